package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.QueueConfig;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.schema.SchemaApplier;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.MissingTableException;
import io.cassandragsi.schema.QueueLayout;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@code gsi schema apply} on a real node: against a table that clients already write to, and the project keyspace's tables. */
class SchemaApplyIT {

    /**
     * Index tables whose definition does not fit the live base table (made around schema apply,
     * which refuses them) are neither maintained by the trigger nor served or repaired by the
     * service, which says why in its problems (/admin/status).
     */
    @Test
    void should_refuse_in_the_service_an_index_table_that_does_not_fit_the_live_base_table() {
        CqlSession s = SharedCluster.session();
        s.execute("CREATE KEYSPACE IF NOT EXISTS it_misfit WITH replication = " + SharedCluster.REPLICATION);
        // length is int here, varint in the definition: by_length does not fit, by_tid does
        s.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                "CREATE TABLE IF NOT EXISTS it_misfit.revisions (key text, tid timeuuid, length int, value text,"
                        + " PRIMARY KEY ((key), tid)) WITH CLUSTERING ORDER BY (tid DESC)").setTimeout(java.time.Duration.ofSeconds(60)));
        SharedCluster.apply(SharedCluster.example("revisions", "it_misfit"));

        io.cassandragsi.repair.store.Catalog catalog = new io.cassandragsi.repair.store.Catalog(s);
        assertThat(catalog.table("it_misfit", "revisions")).as("the definition does not fit: no index of it is served").isNull();
        for (String index : List.of("by_length", "by_tid")) {
            assertThat(catalog.problems()).hasEntrySatisfying("it_misfit.revisions/" + index,
                    why -> assertThat(why).contains("column length is int in the base table but varint in the definition"));
        }
    }

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

    /**
     * A rows table made before {@code _whi}/{@code _wlo}: schema apply adds them (no rebuild), the
     * trigger writes them from the next schema version on, and the service reads them, so a
     * version written whole twice at once shows the later projection.
     */
    @Test
    void should_add_the_newest_write_columns_to_an_older_rows_table_and_use_them() throws Exception {
        CqlSession s = SharedCluster.session();
        String ks = "it_newest_writes";
        s.execute("CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = " + SharedCluster.REPLICATION);
        s.execute(SimpleStatement.newInstance("CREATE TABLE IF NOT EXISTS " + ks + ".revisions (key text, tid timeuuid, length varint, value text,"
                + " PRIMARY KEY ((key), tid)) WITH CLUSTERING ORDER BY (tid DESC)").setTimeout(Duration.ofSeconds(60)));
        io.cassandragsi.schema.TableDef def = SharedCluster.example("revisions", ks);
        String older = io.cassandragsi.schema.RowsLayout.createTable(def).replace(",\n  \"_whi\" bigint", "").replace(",\n  \"_wlo\" bigint", "");
        assertThat(older).doesNotContain("_whi").doesNotContain("_wlo");
        s.execute(SimpleStatement.newInstance(older).setTimeout(Duration.ofSeconds(60)));

        StringWriter out = new StringWriter();
        new SchemaApplier(GsiConfig.defaults(), new PrintWriter(out, true), new PrintWriter(out, true)).apply(s, List.of(def),
                SharedCluster.REPLICATION, false);
        assertThat(out.toString()).contains("add _whi and _wlo to rows table " + ks + ".idx_revisions__rows");
        s.checkSchemaAgreement();

        UUID tid = com.datastax.oss.driver.api.core.uuid.Uuids.timeBased();
        PreparedStatement insert = s.prepare("INSERT INTO " + ks + ".revisions (key, tid, length, value) VALUES ('k', ?, 7, ?)");
        s.execute(insert.bind(tid, "zz"));
        s.execute(insert.bind(tid, "aa"));
        assertThat(s.execute(SimpleStatement.newInstance("SELECT \"_whi\", \"_wlo\" FROM " + ks + ".idx_revisions__rows WHERE key = 'k'")).one())
                .satisfies(r -> {
                    assertThat(r.isNull(0) || r.isNull(1)).as("the trigger writes the added columns at once").isFalse();
                    assertThat(r.getLong(0)).as("two writes: the latest and the earliest").isNotEqualTo(Long.MAX_VALUE - r.getLong(1));
                });
        try (RepairService service = new RepairService(s, GsiConfig.defaults()).start();
                io.cassandragsi.repair.read.IndexReader reader = new io.cassandragsi.repair.read.IndexReader(s,
                        new io.cassandragsi.repair.store.Catalog(s), null, com.datastax.oss.driver.api.core.ConsistencyLevel.LOCAL_QUORUM, null, 32)) {
            long deadline = System.currentTimeMillis() + 30_000;
            List<java.util.Map<String, Object>> items;
            do {
                Thread.sleep(200);
                items = reader.read(io.cassandragsi.repair.read.IndexReader.Query.of(ks, "revisions", "by_length", "7")).items();
            } while (!(items.size() == 1 && "aa".equals(items.get(0).get("value"))) && System.currentTimeMillis() < deadline);
            assertThat(items).extracting(i -> i.get("value")).as("the later write's value, not the greater one").containsExactly("aa");
        }
    }

    @Test
    void should_refuse_to_start_the_service_and_jobs_naming_the_missing_table_until_schema_apply_creates_it() {
        CqlSession s = SharedCluster.session();
        String project = "it_apply_project";
        var cp = SharedCluster.contactPoint();
        GsiConfig defaults = GsiConfig.defaults().withContactPoints(List.of(ContactPoint.parse(cp.getAddress().getHostAddress() + ":" + cp.getPort())));
        GsiConfig config = new GsiConfig(defaults.cassandra(), defaults.consistency(),
                new QueueConfig(project, defaults.queue().shards(), defaults.queue().pollInterval()), defaults.http());
        // a project keyspace made before schema apply created the service's tables: the queue alone
        s.execute("CREATE KEYSPACE IF NOT EXISTS " + project + " WITH replication = " + SharedCluster.REPLICATION);
        s.execute(SimpleStatement.newInstance(QueueLayout.createTable(project, QueueLayout.Settings.defaults())).setTimeout(Duration.ofSeconds(60)));

        assertThatThrownBy(() -> new RepairService(s, config).close())
                .isInstanceOf(MissingTableException.class)
                .hasMessage("no shard checkpoints table " + project + ".checkpoints: run ./gsi schema apply first (it creates the tables"
                        + " of the project keyspace " + project + ")");
        assertThatThrownBy(() -> new Jobs(s, config).ledger())
                .isInstanceOf(MissingTableException.class).hasMessageStartingWith("no job ledger table " + project + ".jobs: run ./gsi schema apply");

        StringWriter out = new StringWriter();
        new SchemaApplier(config, new PrintWriter(out, true), new PrintWriter(out, true)).apply(s, List.of(), SharedCluster.REPLICATION, false);
        assertThat(out.toString()).contains("create shard checkpoints " + project + ".checkpoints", "create shard leases " + project + ".leases",
                "create service instances " + project + ".instances", "create job ledger " + project + ".jobs").doesNotContain("work queue");
        new RepairService(s, config).close();
        assertThat(new Jobs(s, config).ledger().headers()).isEmpty();
    }
}
