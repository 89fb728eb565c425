package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.AntiEntropyConfig;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Continuous anti-entropy on a real node (docs/design.md section 9.3): writes that bypass the
 * trigger (dropped, written to, created again) on a versioned table with a randomized history and
 * on an unversioned one; anti-entropy alone brings both indexes to the oracle (zero tolerance, the
 * seed printed; replay with -Dgsi.seed=N), and says what it found and fixed.
 */
class AntiEntropyIT {

    @Test
    void should_bring_the_index_to_the_oracle_after_writes_that_bypassed_the_trigger() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        System.out.println("AntiEntropyIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        TableDef revisions = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_entropy"), Maintenance.SERVICE);
        TableDef users = SharedCluster.withMaintenance(SharedCluster.example("users", "it_entropy_users"), Maintenance.SERVICE);
        SharedCluster.apply(revisions);
        SharedCluster.apply(users);
        HistoryRun run = new HistoryRun(session, revisions, seed);
        run.write(20, 300, 2); // a history through the trigger: markers
        // rows whose first version goes through the trigger and whose second does not: a stale entry, a missing one
        java.util.Random rnd = new java.util.Random(seed);
        for (int i = 0; i < 40; i++) {
            java.util.UUID tid = com.datastax.oss.driver.api.core.uuid.Uuids.timeBased();
            insertRevision(session, run, "moved" + i, tid, rnd.nextInt(4));
        }
        for (int i = 0; i < 50; i++) {
            session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                    "INSERT INTO it_entropy_users.users (id, email, country, age, name) VALUES (?, ?, 'fr', 30, ?)", "u" + i, "old" + i + "@example.com",
                    "n" + i).setConsistencyLevel(ConsistencyLevel.QUORUM));
        }
        // Writes that bypass the trigger. Not prepared: a statement prepared before DROP TRIGGER keeps the table's
        // metadata of then, trigger included (Cassandra does not invalidate prepared statements for a trigger change).
        session.execute("DROP TRIGGER IF EXISTS gsi_index ON it_entropy.revisions");
        session.execute("DROP TRIGGER IF EXISTS gsi_index ON it_entropy_users.users");
        for (int i = 0; i < 40; i++) {
            insertRevision(session, run, "moved" + i, com.datastax.oss.driver.api.core.uuid.Uuids.timeBased(), 4 + rnd.nextInt(4));
            insertRevision(session, run, "bypass" + i, com.datastax.oss.driver.api.core.uuid.Uuids.timeBased(), rnd.nextInt(8));
        }
        for (int i = 0; i < 100; i++) { // half of the users move to a new email, fifty new ones: the index knows none of it
            session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                    "INSERT INTO it_entropy_users.users (id, email, country, age, name) VALUES (?, ?, 'fr', 30, ?)", "u" + i, "new" + i + "@example.com",
                    "n" + i).setConsistencyLevel(ConsistencyLevel.QUORUM));
        }
        SharedCluster.apply(revisions); // the trigger again
        SharedCluster.apply(users);
        try (IndexReader before = new IndexReader(session, new io.cassandragsi.repair.store.Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM,
                null, 4)) {
            assertThat(usersIndexed(before)).as("the bypass left the users' index behind").isFalse();
        }

        GsiConfig d = GsiConfig.defaults();
        GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                new AntiEntropyConfig(true, 5_000, Duration.ZERO, Duration.ofSeconds(5), 16, Duration.ZERO));
        long t0 = System.currentTimeMillis();
        try (GsiServer server = new GsiServer(session, config)) {
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 180_000);
            long versioned = System.currentTimeMillis() - t0;
            long deadline = System.currentTimeMillis() + 180_000;
            while (!usersIndexed(server.reader()) && System.currentTimeMillis() < deadline) {
                Thread.sleep(500);
            }
            long unversioned = System.currentTimeMillis() - t0;
            Map<?, ?> entropy = status(server);
            System.out.printf("AntiEntropyIT seed %d: versioned converged in %.1f s (%s), unversioned in %.1f s; anti-entropy %s%n", seed,
                    versioned / 1000.0, drift, unversioned / 1000.0, entropy);
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(usersIndexed(server.reader())).as("every user found by its email, none by its old one").isTrue();
            Map<?, ?> tables = (Map<?, ?>) entropy.get("tables");
            Map<?, ?> rev = (Map<?, ?>) tables.get("it_entropy.revisions");
            Map<?, ?> usr = (Map<?, ?>) tables.get("it_entropy_users.users");
            assertThat(((Number) rev.get("fixed")).longValue()).as("anti-entropy fixed the revisions' index").isPositive();
            assertThat(((Number) usr.get("fixed")).longValue()).as("anti-entropy fixed the users' index").isPositive();
        }
    }

    /** A version written with a statement of its own (not prepared), recorded in the oracle. */
    private static void insertRevision(CqlSession session, HistoryRun run, String key, java.util.UUID tid, int length) {
        session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                "INSERT INTO it_entropy.revisions (key, tid, length, value) VALUES (?, ?, ?, 'v')", key, tid, java.math.BigInteger.valueOf(length))
                .setConsistencyLevel(ConsistencyLevel.QUORUM));
        run.oracle.write(java.nio.ByteBuffer.wrap(key.getBytes(java.nio.charset.StandardCharsets.UTF_8)), io.cassandragsi.index.Tids.bytes(tid),
                java.nio.ByteBuffer.wrap(java.math.BigInteger.valueOf(length).toByteArray()),
                java.nio.ByteBuffer.wrap("v".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    @SuppressWarnings("unchecked")
    private static Map<?, ?> status(GsiServer server) throws Exception {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + server.httpPort() + "/admin/status")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        return (Map<?, ?>) new com.fasterxml.jackson.databind.ObjectMapper().readValue(r.body(), Map.class).get("anti_entropy");
    }

    /** Every user u0..u99 is found by its new email, and u0..u49 no longer by their old one (eventual reads: the index alone). */
    private static boolean usersIndexed(IndexReader reader) {
        for (int i = 0; i < 100; i++) {
            List<Map<String, Object>> now = reader.read(IndexReader.Query.of("it_entropy_users", "users", "by_email", "new" + i + "@example.com"))
                    .items();
            if (now.size() != 1 || !("u" + i).equals(now.get(0).get("id"))) {
                return false;
            }
            if (i < 50 && !reader.read(IndexReader.Query.of("it_entropy_users", "users", "by_email", "old" + i + "@example.com")).items().isEmpty()) {
                return false;
            }
        }
        return true;
    }
}
