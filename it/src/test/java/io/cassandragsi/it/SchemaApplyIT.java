package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.schema.SchemaApplier;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code gsi schema apply} on a real node, against a table that clients already write to. */
class SchemaApplyIT {

    @Test
    void should_index_writes_of_statements_prepared_before_the_trigger_was_created() throws Exception {
        CqlSession s = SharedCluster.session();
        s.execute("CREATE KEYSPACE IF NOT EXISTS it_apply WITH replication = " + SharedCluster.REPLICATION);
        s.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                "CREATE TABLE IF NOT EXISTS it_apply.revisions (key text, tid timeuuid, length varint, value text,"
                        + " PRIMARY KEY ((key), tid)) WITH CLUSTERING ORDER BY (tid DESC)").setTimeout(java.time.Duration.ofSeconds(60)));
        // a client prepares its insert before the index exists
        PreparedStatement insert = s.prepare("INSERT INTO it_apply.revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        s.execute(insert.bind("before", Tids.fromTicks(Tids.ticks(Instant.now()), 1), BigInteger.valueOf(7), "v"));

        String json = Files.readString(Path.of("../schemas/examples/revisions.json")).replace("\"wiki\"", "\"it_apply\"");
        Path file = Files.createDirectories(Path.of("target/apply")).resolve("revisions.json");
        Files.writeString(file, json);
        var cp = SharedCluster.contactPoint();
        GsiConfig config = GsiConfig.defaults().withContactPoints(List.of(ContactPoint.parse(cp.getAddress().getHostAddress() + ":" + cp.getPort())));
        StringWriter out = new StringWriter();
        new SchemaApplier(config, new PrintWriter(out, true), new PrintWriter(out, true)).apply(List.of(file), SharedCluster.REPLICATION, false);
        System.out.println(out);
        assertThat(out.toString()).contains("re-prepare").contains("rebuild");

        UUID tid = Tids.fromTicks(Tids.ticks(Instant.now()), 2);
        s.execute(insert.bind("after", tid, BigInteger.valueOf(8), "w")); // the same prepared statement
        var row = s.execute("SELECT \"_tid\" FROM it_apply.idx_revisions_by_length_ever WHERE length = 8 AND key = 'after'").one();
        assertThat(row).as("a write through a statement prepared before CREATE TRIGGER must fire the trigger").isNotNull();
        assertThat(row.getUuid(0)).isEqualTo(tid);

        StringWriter again = new StringWriter();
        new SchemaApplier(config, new PrintWriter(again, true), new PrintWriter(again, true)).apply(List.of(file), SharedCluster.REPLICATION, false);
        assertThat(again.toString()).contains("nothing to do");
    }
}
