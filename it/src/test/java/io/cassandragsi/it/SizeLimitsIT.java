package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Writes whose index entries Cassandra could not store never fail the client's write (issue 13):
 * an entry key over the size a key may have is left unindexed and counted; index writes that would
 * push the write's logged batch over the node's mutation size limit are left to the repair
 * service, which writes them on their own. Both reach {@code too_large} in the service's status.
 */
class SizeLimitsIT {
    private static final String KS = "it_size_limits";
    private static CqlSession s;

    @BeforeAll
    static void setUp() {
        s = SharedCluster.session();
        TableDef def = Definitions.parse("""
                {"keyspace": "%s", "table": "docs",
                 "attributes": {"id": "string", "a": "string", "b": "string", "body": "string"},
                 "index": [{"type": "hash", "attribute": "id"}],
                 "secondaryIndexes": {
                   "by_ab": [{"type": "hash", "attribute": "a"}, {"type": "hash", "attribute": "b"}],
                   "by_a": [{"type": "hash", "attribute": "a"}, {"type": "proj", "attribute": "body"}]}}
                """.formatted(KS), "docs.json");
        SharedCluster.apply(def);
    }

    /** The base ids an index table has entries for (a scan: the table is tiny). */
    private static List<String> ids(String table) {
        List<String> out = new ArrayList<>();
        for (Row r : s.execute(SimpleStatement.newInstance("SELECT id FROM " + KS + "." + table).setTimeout(Duration.ofSeconds(30)))) {
            out.add(r.getString("id"));
        }
        return out;
    }

    private static long tooLarge(RepairService service) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        Map<String, Object> status;
        do {
            Thread.sleep(300);
            status = service.status();
        } while (((Number) status.get("too_large")).longValue() == 0 && System.currentTimeMillis() < deadline);
        return ((Number) status.get("too_large")).longValue();
    }

    @Test
    void should_leave_an_entry_unindexed_and_count_it_when_its_composite_key_is_too_large() throws Exception {
        // two hash values of 40,000 bytes: each fits, the index table's composite partition key (80 KB) does not
        String a = "a".repeat(40_000);
        String b = "b".repeat(40_000);
        try (RepairService service = new RepairService(s, GsiConfig.defaults()).start()) {
            s.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".docs (id, a, b, body) VALUES ('wide', ?, ?, 'x')", a, b));

            assertThat(s.execute(SimpleStatement.newInstance("SELECT id FROM " + KS + ".docs WHERE id = 'wide'")).one())
                    .as("the client's write went through").isNotNull();
            assertThat(tooLarge(service)).as("the service counts the row the trigger left unindexed").isPositive();
            assertThat(ids("idx_docs_by_ab_ever")).as("no entry Cassandra would drop at flush").doesNotContain("wide");
            Row byA = s.execute(SimpleStatement.newInstance("SELECT body FROM " + KS + ".idx_docs_by_a_ever WHERE a = ? AND id = 'wide'", a)).one();
            assertThat(byA).as("the other index, whose key fits, has its entry").isNotNull();
            assertThat(byA.getString("body")).isEqualTo("x");
        }
        io.cassandragsi.repair.jobs.CheckResult check = new io.cassandragsi.repair.jobs.Jobs(s, GsiConfig.defaults())
                .check(KS, "docs", "by_ab", false, null);
        System.out.println("SizeLimitsIT: " + check.summary());
        assertThat(check.index("by_ab").tooLarge()).as("check counts the row left unindexed").isPositive();
        assertThat(check.drift()).as("which is not drift").isFalse();
        // the premise, from Cassandra's composite encoding (2 length bytes, the value, 1 end byte per component)
        assertThat((2 + a.length() + 1) + (2 + b.length() + 1)).as("the index partition key is over a key's 65,535 bytes").isGreaterThan(65_535);
    }

    @Test
    void should_write_a_large_projection_through_the_service_when_the_batch_would_be_over_the_mutation_limit() throws Exception {
        // 9 MB projected: base write and entry together are over the node's 16 MiB max_mutation_size, each alone is not
        String body = "p".repeat(9 * 1024 * 1024);
        try (RepairService service = new RepairService(s, GsiConfig.defaults()).start()) {
            s.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".docs (id, a, b, body) VALUES ('heavy', 'h', 'h', ?)", body)
                    .setTimeout(Duration.ofSeconds(30)));

            assertThat(s.execute(SimpleStatement.newInstance("SELECT id FROM " + KS + ".docs WHERE id = 'heavy'")).one())
                    .as("the client's write went through").isNotNull();
            assertThat(tooLarge(service)).as("the service counts the write the trigger left to it").isPositive();
            long deadline = System.currentTimeMillis() + 30_000;
            Row entry;
            do {
                Thread.sleep(300);
                entry = s.execute(SimpleStatement.newInstance("SELECT body FROM " + KS + ".idx_docs_by_a_ever WHERE a = 'h' AND id = 'heavy'")
                        .setTimeout(Duration.ofSeconds(30))).one();
            } while ((entry == null || entry.isNull("body")) && System.currentTimeMillis() < deadline);
            assertThat(entry).as("the service wrote the entry on its own").isNotNull();
            assertThat(entry.getString("body")).hasSize(body.length());
            assertThat(s.execute(SimpleStatement.newInstance("SELECT id FROM " + KS + ".idx_docs_by_ab_ever WHERE a = 'h' AND b = 'h'")).one())
                    .isNotNull();
        }
    }
}
