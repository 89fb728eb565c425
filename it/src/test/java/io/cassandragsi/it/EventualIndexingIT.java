package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.TableDef;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.schema.ProjectTables;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.QueueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Eventual indexing on a real node (docs/design.md section 7.11): the trigger adds nothing to the
 * write, so Cassandra 5.0.6 takes its plain write path (no batchlog: {@code
 * StorageProxy.mutateWithTriggers} sends a write through {@code mutateAtomically} only when a trigger
 * returned mutations), and the index still equals the oracle once the maintainer has caught up.
 */
class EventualIndexingIT {

    /** Writes to {@code system.batches} on this node so far: every logged batch stores and then removes its batchlog row. */
    private static long batchlogWrites(CqlSession session) {
        Row r = session.execute("SELECT count FROM system_views.local_write_latency WHERE keyspace_name = 'system' AND table_name = 'batches'").one();
        return r == null ? 0 : r.getLong(0);
    }

    /** The batchlog writes made while {@code writes} writes of a fresh history of {@code def} run, with no repair service running. */
    private static long batchlogWritesDuring(CqlSession session, HistoryRun run, int writes) throws Exception {
        long before = batchlogWrites(session);
        run.write(20, writes, 2);
        return batchlogWrites(session) - before;
    }

    @Test
    void should_write_through_the_plain_path_and_equal_the_oracle_after_the_lag() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        System.out.println("EventualIndexingIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        TableDef atomic = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_eventual_atomic"), Maintenance.NODE);
        TableDef eventual = SharedCluster.withIndexing(SharedCluster.example("revisions", "it_eventual_plain"), Indexing.EVENTUAL);
        TableDef warm = SharedCluster.withIndexing(SharedCluster.example("revisions", "it_eventual_warm"), Indexing.EVENTUAL);
        SharedCluster.apply(atomic);
        SharedCluster.apply(eventual);
        SharedCluster.apply(warm);
        HistoryRun warmUp = new HistoryRun(session, warm, seed + 1);
        warmUp.write(5, 20, 1); // the first offer starts the node's maintainer; until it runs, writes are indexed atomically
        Thread.sleep(1500);

        HistoryRun atomicRun = new HistoryRun(session, atomic, seed);
        long atomicBatches = batchlogWritesDuring(session, atomicRun, 200);
        HistoryRun eventualRun = new HistoryRun(session, eventual, seed);
        long eventualBatches = batchlogWritesDuring(session, eventualRun, 200);
        System.out.printf("batchlog writes for 200 writes: atomic %d, eventual %d%n", atomicBatches, eventualBatches);
        assertThat(atomicBatches).as("the measure sees the batchlog: each atomic write stores and removes a batch").isGreaterThanOrEqualTo(200);
        assertThat(eventualBatches).as("eventual writes take the plain path: no batchlog").isZero();

        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            for (HistoryRun run : new HistoryRun[] {eventualRun, warmUp}) {
                Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
                System.out.printf("seed %d %s: %s%n", seed, run == warmUp ? "warm-up" : "eventual", drift);
                for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                    assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
                }
            }
        }
    }

    /**
     * The durable record of eventual indexing (docs/design.md section 7.11): writes acknowledged and
     * not yet indexed when their coordinator is killed with kill -9 (its maintainer made to wait 4 s
     * before each write, so that hundreds are pending) are indexed again from the node's own CDC log
     * once it is back, with anti-entropy off: the index equals the oracle of what the base holds.
     * Then the CDC space limit (4 MiB of 1-MiB segments here) is reached under load while the
     * maintainer holds every write 4 s: Cassandra drops kept segments rather than refuse a write
     * ({@code cdc_block_writes: false}), the backstop counts and logs each loss, no client write
     * fails, and the index still converges (the maintainer that holds the writes is alive). On a
     * node of its own, so that the suite's node is never killed.
     */
    @Test
    void should_index_the_writes_a_killed_coordinator_had_not_indexed_and_never_fail_a_write_when_cdc_space_runs_out() throws Exception {
        Assumptions.assumeTrue(SharedCluster.isLocal(), "kills a node of its own");
        long seed = RepairServiceIT.seed();
        System.out.println("EventualIndexingIT kill seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        Path jar = Path.of(System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar"));
        assertThat(Files.isRegularFile(jar)).as("trigger jar %s", jar).isTrue();
        String rf1 = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
        try (LocalCluster cluster = LocalCluster.builder().nodes(1).workDir(Path.of("target", "it-eventual-kill")).firstAddress("127.0.7.1")
                .jmxPortBase(7799).heap("768M").triggerJar(jar).jvmOption("-Dgsi.maintainer.settle_ms=4000")
                .yaml("cdc_total_space", "4MiB").yaml("commitlog_segment_size", "1MiB")
                // a segment's _cdc.idx is written at each sync, and what kill -9 loses is the last sync period: a quarter second
                .yaml("commitlog_sync_period", "250ms")
                .startupTimeout(Duration.ofMinutes(3)).build()) {
            cluster.start();
            try (CqlSession session = CqlSession.builder().addContactPoints(cluster.contactPoints()).withLocalDatacenter(cluster.localDatacenter())
                    .build()) {
                TableDef def = SharedCluster.withIndexing(SharedCluster.example("revisions", "it_eventual_kill"), Indexing.EVENTUAL);
                TableDef other = SharedCluster.withIndexing(SharedCluster.example("revisions", "it_eventual_other"), Indexing.EVENTUAL);
                List<String> cql = new ArrayList<>();
                for (TableDef d : List.of(def, other)) {
                    CqlGenerator.all(d, "gsi", rf1).forEach(st -> cql.add(st.cql()));
                }
                ProjectTables.all("gsi", QueueLayout.Settings.defaults()).forEach(t -> cql.add(t.cql()));
                cql.addAll(ProjectTables.initialRows("gsi", QueueLayout.Settings.defaults()));
                for (String statement : cql) {
                    session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(statement).setTimeout(Duration.ofSeconds(60)));
                }
                new HistoryRun(session, other, seed + 1).write(5, 20, 1); // starts the node's maintainer
                Thread.sleep(1500);

                HistoryRun run = new HistoryRun(session, def, seed).tolerateFailures();
                run.write(20, 300, 2);
                cluster.kill(0); // within the maintainer's 4 s: most of these writes are not indexed yet
                System.out.println("node killed with kill -9 right after 300 acknowledged writes; starting it again");
                cluster.start(0);
                awaitDriver(session);
                new HistoryRun(session, other, seed + 2).write(5, 20, 1); // a write starts the new maintainer, and its CDC backstop
                run.oracleFromBase(com.datastax.oss.driver.api.core.ConsistencyLevel.ALL);

                GsiConfig d = GsiConfig.defaults();
                GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                        d.antiEntropy().withEnabled(false));
                try (RepairService service = new RepairService(session, config).start()) {
                    Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 120_000);
                    String replayed = Files.readAllLines(cluster.nodeLog(0)).stream().filter(l -> l.contains("gsi cdc backstop: maintainer epoch"))
                            .reduce((a, b) -> b).orElse("(no replay logged)");
                    System.out.printf("seed %d after kill -9: %s; node log: %s%n", seed, drift, replayed);
                    for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                        assertThat(e.getValue().clean()).as("seed %d index %s after kill -9: %s", seed, e.getKey(), e.getValue()).isTrue();
                    }
                    assertThat(replayed).as("the backstop replayed the killed epoch").contains("stopped without retiring");

                    fillCdcSpace(session, def, seed);
                    run.oracleFromBase(com.datastax.oss.driver.api.core.ConsistencyLevel.ALL);
                    Map<String, HistoryRun.Drift> after = RepairServiceIT.awaitConverged(run, 120_000);
                    String lost = Files.readAllLines(cluster.nodeLog(0)).stream().filter(l -> l.contains("Cassandra dropped CDC segment"))
                            .findFirst().orElse("(no segment dropped)");
                    System.out.printf("seed %d after the CDC space ran out: %s; node log: %s%n", seed, after, lost);
                    assertThat(lost).as("the space limit was reached and the loss logged").contains("before every maintainer had passed it");
                    long deadline = System.currentTimeMillis() + 15_000;
                    long reported = 0;
                    while (reported == 0 && System.currentTimeMillis() < deadline) { // the progress record carries it within a second
                        reported = ((List<?>) service.status().get("nodes")).stream().mapToLong(n -> ((Number) ((Map<?, ?>) n).get("cdc_segments_lost"))
                                .longValue()).sum();
                        Thread.sleep(500);
                    }
                    assertThat(reported).as("/admin/status names the CDC segments lost (nodes[].cdc_segments_lost)").isPositive();
                    for (Map.Entry<String, HistoryRun.Drift> e : after.entrySet()) {
                        assertThat(e.getValue().clean()).as("seed %d index %s after the CDC space ran out: %s", seed, e.getKey(), e.getValue())
                                .isTrue();
                    }
                    // the maintainer behind the dropped segments was alive and passes them: harmless, nothing to repair
                    Map<?, ?> repairs = awaitCdcRepairs(service, "harmless", 1, 20_000);
                    System.out.printf("seed %d after the CDC space ran out, cdc_repairs: %s%n", seed, repairs);
                    assertThat(((Number) repairs.get("harmless")).intValue()).as("the loss cleared itself (cdc_repairs.harmless)").isPositive();
                    assertThat(((Number) repairs.get("repaired_here")).longValue()).as("no repair for a harmless loss").isZero();
                }
                harmfulLoss(cluster, session, run, other, config, seed);
            }
        }
    }

    /**
     * The targeted repair (docs/design.md section 7.11): the node's CDC segments vanish (as the space
     * limit removes them) while its maintainer holds hundreds of unindexed writes, and the node is
     * killed before that maintainer passes them. The backstop has nothing to replay them from, so the
     * index lacks them; with anti-entropy off, the repair service's check --fix of the node's ranges,
     * run because the record names the loss, makes the index equal the oracle, and status says so.
     */
    private static void harmfulLoss(LocalCluster cluster, CqlSession session, HistoryRun run, TableDef other, GsiConfig config, long seed)
            throws Exception {
        String lostBefore = lostBehindOfRunningEpoch(session);
        run.write(20, 300, 2);
        long written = System.currentTimeMillis();
        Path cdcRaw = cluster.nodeDir(0).resolve("cdc_raw");
        List<Path> logs = new ArrayList<>();
        while (System.currentTimeMillis() < written + 2_000) { // the backstop knows a segment by its index, written at the next sync
            logs.clear();
            boolean indexed = true;
            try (java.util.stream.Stream<Path> files = Files.list(cdcRaw)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    if (f.toString().endsWith(".log")) {
                        logs.add(f);
                        indexed &= Files.exists(Path.of(f.toString().replace(".log", "_cdc.idx")));
                    }
                }
            }
            if (indexed && !logs.isEmpty()) {
                break;
            }
            Thread.sleep(50);
        }
        for (Path log : logs) {
            Files.deleteIfExists(log); // the segments' data gone, as the space limit removes it (the backstop sees an index without its log)
        }
        String lostNow = lostBefore;
        while (lostNow.equals(lostBefore) && System.currentTimeMillis() < written + 3_500) { // the backstop notes it within a second
            Thread.sleep(50);
            lostNow = lostBehindOfRunningEpoch(session);
        }
        assertThat(lostNow).as("the progress record names the epochs the vanished segments were kept for").isNotEqualTo(lostBefore);
        Thread.sleep(600); // on this one node (RF 1), the record must be past a commit log sync before kill -9, or the loss dies with it
        cluster.kill(0); // within the maintainer's 4 s settle: the last writes are not indexed
        System.out.printf("%d segment(s) deleted and the node killed %d ms after 300 acknowledged writes; cdc_lost_behind %s%n", logs.size(),
                System.currentTimeMillis() - written, lostNow);
        cluster.start(0);
        awaitDriver(session);
        new HistoryRun(session, other, seed + 3).write(5, 20, 1); // starts the new maintainer, and its CDC backstop
        run.oracleFromBase(com.datastax.oss.driver.api.core.ConsistencyLevel.ALL);
        for (long deadline = System.currentTimeMillis() + 60_000; replays(cluster) < 2 && System.currentTimeMillis() < deadline;) {
            Thread.sleep(500); // the backstop replays the killed epoch from what is left
        }
        Map<String, HistoryRun.Drift> unrepaired = RepairServiceIT.awaitConverged(run, 0);
        System.out.printf("seed %d after the harmful loss, replayed, before the service: %s%n", seed, unrepaired);
        assertThat(unrepaired.values()).as("the writes in the vanished segments are missing from the index (the loss was harmful)")
                .anyMatch(d -> !d.clean());
        System.out.println("progress records before the service: " + progressRecords(session));
        try (RepairService service = new RepairService(session, config).start()) { // anti-entropy off
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            Map<?, ?> repairs = awaitCdcRepairs(service, "done", 1, 30_000);
            System.out.printf("seed %d after the targeted repair: %s; cdc_repairs %s%n", seed, drift, repairs);
            System.out.println("progress records after: " + progressRecords(session));
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s after the targeted repair: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(((Number) repairs.get("repaired_here")).longValue()).as("the targeted repair ran once (cdc_repairs.repaired_here)")
                    .isEqualTo(1);
            assertThat(((Number) repairs.get("pending")).intValue()).isZero();
            assertThat(((List<?>) service.status().get("nodes")).stream().map(n -> String.valueOf(((Map<?, ?>) n).get("cdc_repair"))).toList())
                    .as("nodes[].cdc_repair").contains("repaired");
            // the running epoch passes the vanished segments' last change (their index's, docs/design.md section 7.11): its
            // entries turn harmless, not waiting for ever
            long t0 = System.currentTimeMillis();
            Map<?, ?> settled = awaitCdcRepairs(service, r -> ((Number) r.get("waiting_on_running_epochs")).intValue() == 0, 60_000);
            System.out.printf("seed %d, %.1f s after the repair: cdc_repairs %s%n", seed, (System.currentTimeMillis() - t0) / 1000.0, settled);
            assertThat(((Number) settled.get("waiting_on_running_epochs")).intValue()).as("cdc_repairs.waiting_on_running_epochs within 60 s")
                    .isZero();
        }
    }

    /** The progress records, for the log: shard, state, heartbeat and done_before (epoch ms), cdc_lost_behind, cdc_repaired. */
    private static List<String> progressRecords(CqlSession session) {
        List<String> out = new ArrayList<>();
        for (Row r : session.execute("SELECT shard, state, heartbeat, done_before, cdc_lost_behind, cdc_repaired FROM gsi.node_progress")) {
            out.add(r.getInt(0) + " " + r.getString(1) + " hb=" + (r.isNull(2) ? null : r.getInstant(2).toEpochMilli()) + " done_before="
                    + (r.isNull(3) ? null : io.cassandragsi.index.Tids.instant(r.getUuid(3)).toEpochMilli()) + " lost_behind=" + r.getString(4)
                    + " repaired=" + r.getString(5));
        }
        return out;
    }

    /** The {@code cdc_lost_behind} of the freshest running epoch's record ("" when none). */
    private static String lostBehindOfRunningEpoch(CqlSession session) {
        Row best = null;
        for (Row r : session.execute("SELECT heartbeat, state, cdc_lost_behind FROM gsi.node_progress")) {
            if ("running".equals(r.getString(1)) && (best == null || r.getInstant(0).isAfter(best.getInstant(0)))) {
                best = r;
            }
        }
        return best == null || best.getString(2) == null ? "" : best.getString(2);
    }

    /** Status's {@code cdc_repairs} once its {@code key} reaches {@code atLeast}, or as it is at the deadline. */
    private static Map<?, ?> awaitCdcRepairs(RepairService service, String key, int atLeast, long timeoutMillis) throws InterruptedException {
        return awaitCdcRepairs(service, r -> ((Number) r.get(key)).intValue() >= atLeast, timeoutMillis);
    }

    /** Status's {@code cdc_repairs} once {@code until} accepts it, or as it is at the deadline. */
    private static Map<?, ?> awaitCdcRepairs(RepairService service, java.util.function.Predicate<Map<?, ?>> until, long timeoutMillis)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            Map<?, ?> repairs = (Map<?, ?>) service.status().get("cdc_repairs");
            if (until.test(repairs) || System.currentTimeMillis() > deadline) {
                return repairs;
            }
            Thread.sleep(500);
        }
    }

    /** How many times the node's backstop logged a replay of an epoch that stopped. */
    private static long replays(LocalCluster cluster) throws java.io.IOException {
        return Files.readAllLines(cluster.nodeLog(0)).stream().filter(l -> l.contains("gsi cdc backstop: maintainer epoch")).count();
    }

    /** Waits until the driver answers again after a restart (it reconnects on its own schedule). */
    private static void awaitDriver(CqlSession session) throws InterruptedException {
        for (long deadline = System.currentTimeMillis() + 60_000;;) {
            try {
                session.execute("SELECT release_version FROM system.local");
                return;
            } catch (com.datastax.oss.driver.api.core.DriverException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }

    /**
     * About 12 MiB of base writes (3,000 rows of 4 KB) at LOCAL_QUORUM from four writers, far more
     * than the 4 MiB of CDC space the 4-s hold keeps: each must be acknowledged (a write refused for
     * CDC space would throw here).
     */
    private static void fillCdcSpace(CqlSession session, TableDef def, long seed) throws Exception {
        var insert = session.prepare("INSERT INTO " + def.keyspace() + ".revisions (key, tid, length, value) VALUES (?, now(), ?, ?)");
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
        List<java.util.concurrent.Future<?>> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            java.util.Random rnd = new java.util.Random(seed * 17 + w);
            writers.add(pool.submit(() -> {
                for (int i = 0; i < 750; i++) {
                    char[] value = new char[4096];
                    java.util.Arrays.fill(value, (char) ('a' + rnd.nextInt(26)));
                    session.execute(insert.bind("big" + rnd.nextInt(200), java.math.BigInteger.valueOf(rnd.nextInt(4)), new String(value))
                            .setConsistencyLevel(com.datastax.oss.driver.api.core.ConsistencyLevel.LOCAL_QUORUM));
                }
                return null;
            }));
        }
        for (java.util.concurrent.Future<?> f : writers) {
            f.get(); // a write that failed fails the test
        }
        pool.shutdown();
    }
}
