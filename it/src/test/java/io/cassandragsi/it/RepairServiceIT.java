package io.cassandragsi.it;

import io.cassandragsi.maintain.Marker;
import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Randomized histories by concurrent writers on a real node, with the repair service consuming
 * the trigger's markers in-process: after the backlog drains, every index must equal the oracle
 * (zero missing, orphan, wrong _tid, wrong _deleted). The seed is printed; replay with
 * -Dgsi.seed=N.
 */
class RepairServiceIT {

    static long seed() {
        String s = System.getProperty("gsi.seed", "");
        return s.isBlank() ? System.nanoTime() : Long.parseLong(s.trim());
    }

    static Map<String, HistoryRun.Drift> awaitConverged(HistoryRun run, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        Map<String, HistoryRun.Drift> drift;
        while (true) {
            drift = new LinkedHashMap<>();
            boolean clean = true;
            try {
                for (IndexPlan index : run.plan.indexes()) {
                    HistoryRun.Drift d = run.compare(index);
                    drift.put(index.index().name(), d);
                    clean &= d.clean();
                }
            } catch (com.datastax.oss.driver.api.core.DriverException e) {
                // the judge's own read of the whole index timed out (a node just back from a kill): look again
                System.out.println("comparing with the oracle: " + e.getMessage() + "; again");
                clean = false;
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
            }
            if (clean || System.currentTimeMillis() > deadline) {
                return drift;
            }
            Thread.sleep(500);
        }
    }

    @Test
    void should_equal_the_oracle_when_concurrent_writers_write_random_histories() throws Exception {
        CqlSession session = SharedCluster.session();
        for (int round = 0; round < 3; round++) {
            long seed = seed() + round;
            String ks = "it_repair_" + round;
            TableDef def = SharedCluster.example("revisions", ks);
            SharedCluster.apply(def);
            System.out.println("RepairServiceIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
            try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
                HistoryRun run = new HistoryRun(session, def, seed);
                long t0 = System.nanoTime();
                run.write(40, 1500, 4);
                long wrote = System.nanoTime();
                Map<String, HistoryRun.Drift> drift = awaitConverged(run, 90_000);
                System.out.printf("seed %d: wrote 1500 versions in %.1f s, converged %.1f s later: %s; service %s%n", seed,
                        (wrote - t0) / 1e9, (System.nanoTime() - wrote) / 1e9, drift, service.status());
                for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                    assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
                }
            }
        }
    }

    /**
     * Markers that become visible after the consumer's fast path has moved past their ids (a
     * batch slow to apply, batchlog replay) are found by the sweeps. The late table is written
     * without its trigger, so only the late markers can index it; fresh writes to another table
     * move every shard's position past the late markers' ids first.
     */
    @Test
    void should_index_writes_whose_markers_become_visible_late() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = seed();
        TableDef late = SharedCluster.example("revisions", "it_late");
        TableDef fresh = SharedCluster.example("revisions", "it_late_fresh");
        SharedCluster.apply(late);
        SharedCluster.apply(fresh);
        session.execute("DROP TRIGGER IF EXISTS gsi_index ON it_late.revisions");
        System.out.println("RepairServiceIT late markers seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        HistoryRun lateRun = new HistoryRun(session, late, seed);
        lateRun.write(20, 300, 2); // no trigger: no entries, no markers
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            Thread.sleep(1000); // the consumer holds its shards
            long t0 = System.currentTimeMillis();
            HistoryRun freshRun = new HistoryRun(session, fresh, seed + 1);
            freshRun.write(60, 300, 2);
            for (HistoryRun.Drift d : awaitConverged(freshRun, 60_000).values()) {
                assertThat(d.clean()).as("seed %d fresh table: %s", seed, d).isTrue();
            }
            // one whole-partition marker per key of the late table, with ids from before the fresh writes
            QueueStore queue = new QueueStore(session, QueueLayout.DEFAULT_KEYSPACE);
            long ticks = Tids.ticks(Instant.ofEpochMilli(t0));
            int i = 0;
            for (List<ByteBuffer> rowKey : lateRun.oracle.rows().keySet()) {
                queue.enqueue(new Marker(Tids.fromTicks(ticks + i, 0x8000000000000000L | i++), "it_late", "revisions",
                        rowKey.get(0), Composite.encode(List.of()), null, null, QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE),
                        t0, ConsistencyLevel.LOCAL_QUORUM);
            }
            Map<String, HistoryRun.Drift> drift = awaitConverged(lateRun, 90_000);
            System.out.printf("late markers: %d enqueued; %s; service %s%n", i, drift, service.status());
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(service.consumer().metrics.lateMarkers.sum()).as("markers the sweeps found").isPositive();
        }
    }

    /**
     * The shared read of a poll tick (docs/design.md section 7.2, {@code QueueStore.readShards}:
     * one {@code shard IN (...)} query) against each shard's own read, on a real node: markers in
     * a bucket of 2020 that no consumer reads, random bounds. A shared read that lost markers would
     * leave them to the sweeps, which would hide it from every convergence test.
     */
    @Test
    void should_read_every_shard_of_a_tick_with_one_query_as_each_shard_alone() {
        CqlSession session = SharedCluster.session();
        long seed = seed();
        SharedCluster.apply(SharedCluster.example("revisions", "it_shared")); // the project keyspace and its queue, when this runs first
        System.out.println("RepairServiceIT shared reads seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        java.util.Random random = new java.util.Random(seed);
        QueueStore queue = new QueueStore(session, QueueLayout.DEFAULT_KEYSPACE);
        long start = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();
        long bucket = queue.settings().bucketOf(start);
        for (int i = 0; i < 400; i++) {
            long at = start + random.nextInt(9_000);
            ByteBuffer pk = ByteBuffer.wrap(("k" + random.nextInt(100)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            queue.enqueue(new Marker(Tids.fromTicks(at * 10_000L + random.nextInt(10_000), random.nextLong()), "it_shared", "t", pk,
                    Composite.encode(List.of()), null, null, QueueLayout.FLAG_PARTIAL), at, ConsistencyLevel.LOCAL_QUORUM);
        }
        java.util.Set<Integer> shards = new java.util.TreeSet<>();
        for (int shard = 0; shard < queue.settings().shards(); shard++) {
            shards.add(shard);
        }
        int compared = 0;
        for (int round = 0; round < 20; round++) {
            UUID after = Tids.minAtTicks((start + random.nextInt(9_000)) * 10_000L);
            UUID upTo = Tids.maxAtTicks((start + 4_000 + random.nextInt(6_000)) * 10_000L);
            Map<Integer, List<Marker>> shared = queue.readShards(shards, bucket, after, upTo, ConsistencyLevel.LOCAL_QUORUM);
            assertThat(shared).as("seed %d round %d: fewer than the limit together", seed, round).isNotNull();
            for (int shard : shards) {
                List<Marker> alone = queue.read(shard, bucket, after, upTo, ConsistencyLevel.LOCAL_QUORUM);
                assertThat(shared.get(shard)).as("seed %d round %d shard %d", seed, round, shard).isEqualTo(alone);
                compared += alone.size();
            }
        }
        assertThat(compared).as("markers compared (an empty bucket would judge nothing)").isPositive();
    }
}
