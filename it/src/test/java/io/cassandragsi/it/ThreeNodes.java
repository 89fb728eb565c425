package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.schema.ProjectTables;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The three local nodes the opt-in three-node suites share (ThreeNodesIT, ThreeNodesFaultsIT):
 * started once per test JVM, keyspaces at RF=3, every write and read at LOCAL_QUORUM. Each mode
 * (docs/design.md section 7) has a versioned table (schemas/examples/revisions.json) and an
 * unversioned one (users.json) side by side. The nodes' maintainers take at most 500 writes at
 * once, so their queues overflow under load and refused writes go to the repair service.
 */
final class ThreeNodes {
    private static final String RF3 = "{'class': 'SimpleStrategy', 'replication_factor': 3}";
    private static LocalCluster cluster;
    private static CqlSession session;

    private ThreeNodes() {}

    /** The cluster, started on first use and closed when the JVM exits. */
    static synchronized LocalCluster cluster() {
        if (cluster == null) {
            Path jar = Path.of(System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar"));
            assertThat(Files.isRegularFile(jar)).as("trigger jar %s (build with mvn install first)", jar).isTrue();
            LocalCluster c = LocalCluster.builder().nodes(3).workDir(Path.of("target", "it-three-nodes")).firstAddress("127.0.4.1")
                    .jmxPortBase(7499).heap("768M").triggerJar(jar).jvmOption("-Dgsi.maintainer.queue=500").startupTimeout(Duration.ofMinutes(5))
                    .build();
            Runtime.getRuntime().addShutdownHook(new Thread(c::close, "three-nodes-stop"));
            c.start();
            cluster = c;
            create(List.of()); // the project keyspace: services start before a scenario creates its tables
        }
        return cluster;
    }

    static synchronized CqlSession session() {
        if (session == null) {
            LocalCluster c = cluster();
            session = CqlSession.builder().addContactPoints(c.contactPoints()).withLocalDatacenter(c.localDatacenter())
                    .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                            .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(20))
                            .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "LOCAL_QUORUM")
                            .build())
                    .build();
        }
        return session;
    }

    /** Creates the tables of {@code defs} (and the project keyspace), as {@code schema apply} does on an empty cluster; triggers included. */
    static void create(List<TableDef> defs) {
        CqlSession s = session();
        List<String> cql = new ArrayList<>();
        cql.add(CqlGenerator.createKeyspace("gsi", RF3));
        for (TableDef def : defs) {
            CqlGenerator.all(def, "gsi", RF3).forEach(st -> cql.add(st.cql()));
        }
        ProjectTables.all("gsi", QueueLayout.Settings.defaults()).forEach(t -> cql.add(t.cql()));
        cql.addAll(ProjectTables.initialRows("gsi", QueueLayout.Settings.defaults()));
        for (String statement : cql) {
            s.execute(SimpleStatement.newInstance(statement).setTimeout(Duration.ofSeconds(60)));
        }
        s.checkSchemaAgreement();
    }

    /**
     * How a scenario's table is indexed and maintained: atomic indexing maintained by the repair
     * service or by the coordinator's node (docs/design.md section 7.8), or eventual indexing
     * (section 7.11: nothing in the write's batch, the CDC backstop behind the hand-off).
     */
    enum Mode {
        SERVICE, NODE, EVENTUAL;

        /** Every mode but eventual indexing: the tables a scenario writes unless it names its modes. */
        static final Set<Mode> ATOMIC = EnumSet.of(SERVICE, NODE);

        String jsonName() {
            return name().toLowerCase(Locale.ROOT);
        }

        TableDef apply(TableDef def) {
            return switch (this) {
                case SERVICE -> SharedCluster.withMaintenance(def, Maintenance.SERVICE);
                case NODE -> SharedCluster.withMaintenance(def, Maintenance.NODE);
                case EVENTUAL -> SharedCluster.withIndexing(def, Indexing.EVENTUAL);
            };
        }

        /** The mode of a definition, for the figures. */
        static Mode of(TableDef def) {
            return def.indexing() == Indexing.EVENTUAL ? EVENTUAL : def.maintenance() == Maintenance.NODE ? NODE : SERVICE;
        }
    }

    /**
     * What a scenario with eventual tables states and asserts: every acknowledged write of such a
     * table is indexed within this many seconds of the last write, anti-entropy off. A killed
     * coordinator's epoch is replayed by the other replicas once silent 10 s plus the commit log
     * sync period (10 s), whether or not it is back (docs/design.md section 7.11).
     */
    static final int EVENTUAL_BOUND_SECONDS = 90;

    /** The versioned table of scenario {@code scenario} in {@code mode}: keyspace {@code it3_<scenario>_<mode>}. */
    static TableDef revisions(String scenario, Mode mode) {
        return mode.apply(SharedCluster.example("revisions", "it3_" + scenario + "_" + mode.jsonName()));
    }

    /** The unversioned table of scenario {@code scenario} in {@code mode}: keyspace {@code it3u_<scenario>_<mode>}. */
    static TableDef users(String scenario, Mode mode) {
        return mode.apply(SharedCluster.example("users", "it3u_" + scenario + "_" + mode.jsonName()));
    }

    /** The histories of one round: a versioned and an unversioned table per mode; when the last write ended (ms, 0 before). */
    record Runs(List<HistoryRun> versioned, List<UsersRun> unversioned, java.util.concurrent.atomic.AtomicLong writesEnded) {}

    /** {@link #runs(String, long, Set)} of the atomic modes. */
    static Runs runs(String scenario, long seed) {
        return runs(scenario, seed, Mode.ATOMIC);
    }

    /**
     * New runs (tolerant of failed writes, seeded from {@code seed}) of the tables of a scenario,
     * one versioned and one unversioned table per mode, created now: each scenario has tables of
     * its own, so what a failure left stays there to look at.
     */
    static Runs runs(String scenario, long seed, Set<Mode> modes) {
        List<HistoryRun> versioned = new ArrayList<>();
        List<UsersRun> unversioned = new ArrayList<>();
        for (Mode mode : modes) {
            versioned.add(new HistoryRun(session(), revisions(scenario, mode), seed + mode.ordinal()).tolerateFailures());
            unversioned.add(new UsersRun(session(), users(scenario, mode), seed + 10 + mode.ordinal()));
        }
        Runs runs = new Runs(versioned, unversioned, new java.util.concurrent.atomic.AtomicLong());
        create(tables(runs));
        return runs;
    }

    /**
     * Writes every run at once ({@code writes} versioned writes by three writers, half as many
     * unversioned ones by two), {@code during} running meanwhile on this thread.
     */
    static Runs write(Runs runs, int writes, Runnable during) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(runs.versioned().size() + runs.unversioned().size());
        List<Future<?>> done = new ArrayList<>();
        for (HistoryRun run : runs.versioned()) {
            done.add(pool.submit(() -> {
                run.write(60, writes, 3);
                return null;
            }));
        }
        for (UsersRun run : runs.unversioned()) {
            done.add(pool.submit(() -> {
                run.write(100, writes / 2, 2);
                return null;
            }));
        }
        during.run();
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        runs.writesEnded().set(System.currentTimeMillis());
        return runs;
    }

    /** {@link #write} with new runs of a scenario. */
    static Runs writeAll(String scenario, long seed, int writes, Runnable during) throws Exception {
        return write(runs(scenario, seed), writes, during);
    }

    /**
     * Drains, then compares every index with the oracle of what the base holds, read at ALL (the
     * acknowledged writes and whichever unacknowledged ones landed), and runs {@code check}: no
     * drift. Prints the writes acknowledged and failed and the time to converge; {@code status}
     * gives what the service says afterwards (printed).
     */
    static void assertConverged(String when, long seed, Runs runs, Supplier<Object> status) throws Exception {
        long t0 = runs.writesEnded().get();
        org.assertj.core.api.SoftAssertions soft = new org.assertj.core.api.SoftAssertions(); // every table's figures print before a failure
        Map<TableDef, Double> eventualAfter = eventualConverged(runs, t0);
        for (HistoryRun run : runs.versioned()) {
            judge(soft, when, seed, t0, run);
            assertWithinBound(soft, when, run.def, eventualAfter);
        }
        for (UsersRun run : runs.unversioned()) {
            judge(soft, when, seed, t0, run);
            assertWithinBound(soft, when, run.def, eventualAfter);
        }
        // check also judges what the oracles above leave out (an unversioned entry's _tid and _deleted): clean, or
        // clean within 5 minutes (anti-entropy's fixes of writes around the trigger, in the last scenario: its passes
        // go over every indexed table of the cluster, one at a time)
        Jobs jobs = new Jobs(session(), GsiConfig.defaults());
        for (TableDef def : tables(runs)) {
            long deadline = System.currentTimeMillis() + 300_000;
            CheckResult check = jobs.check(def.keyspace(), def.table(), null, false, null);
            while (check.drift() && System.currentTimeMillis() < deadline) {
                Thread.sleep(5_000);
                check = jobs.check(def.keyspace(), def.table(), null, false, null);
            }
            System.out.printf("%s: check of %s, %.1f s after the writes: %s%n", when, def.keyspace(), (System.currentTimeMillis() - t0) / 1000.0,
                    check.drift() ? check.toMap() : check.summary());
            soft.assertThat(check.drift()).as("%s: check of %s: %s", when, def.keyspace(), check.toMap()).isFalse();
        }
        System.out.println(when + ": service " + status.get());
        soft.assertAll();
    }

    /** A versioned run against its oracle (read at ALL), waiting up to 3 minutes for it to converge. */
    private static void judge(org.assertj.core.api.SoftAssertions soft, String when, long seed, long t0, HistoryRun run) throws Exception {
        run.oracleFromBase(ConsistencyLevel.ALL);
        Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 180_000);
        double after = (System.currentTimeMillis() - t0) / 1000.0;
        System.out.printf("%s, %s mode, versioned, seed %d: %d writes failed; converged %.1f s after the writes: %s%n", when,
                Mode.of(run.def).jsonName(), seed, run.failed.get(), after, drift);
        for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
            soft.assertThat(e.getValue().expected()).as("%s: %s index %s: entries the oracle expects", when, run.def.keyspace(), e.getKey())
                    .isPositive(); // an empty history would judge nothing
            soft.assertThat(e.getValue().clean()).as("%s: seed %d %s index %s: %s", when, seed, run.def.keyspace(), e.getKey(), e.getValue()).isTrue();
        }
    }

    /** An unversioned run against its oracle, waiting up to 3 minutes for it to converge. */
    private static void judge(org.assertj.core.api.SoftAssertions soft, String when, long seed, long t0, UsersRun run) throws Exception {
        long deadline = System.currentTimeMillis() + 180_000;
        List<String> drift = driftOf(run);
        while (!drift.isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(500);
            drift = driftOf(run);
        }
        double after = (System.currentTimeMillis() - t0) / 1000.0;
        System.out.printf("%s, %s mode, unversioned, seed %d: %d writes acknowledged, %d failed; converged %.1f s after the writes; drift %s%n",
                when, Mode.of(run.def).jsonName(), seed, run.written.get(), run.failed.get(), after,
                drift.size() > 20 ? drift.subList(0, 20) + " and " + (drift.size() - 20) + " more" : drift);
        soft.assertThat(run.written.get()).as("%s: %s: acknowledged writes", when, run.def.keyspace()).isPositive();
        soft.assertThat(drift).as("%s: seed %d %s", when, seed, run.def.keyspace()).isEmpty();
    }

    /**
     * Seconds after {@code t0} at which each eventual table was first seen equal to its oracle,
     * looking at all of them every half second for up to 3 minutes (absent: never). Looked at
     * together, so that one table's figure does not include the judging of another.
     */
    private static Map<TableDef, Double> eventualConverged(Runs runs, long t0) throws Exception {
        Map<TableDef, java.util.concurrent.Callable<Boolean>> clean = new java.util.LinkedHashMap<>();
        for (HistoryRun run : runs.versioned()) {
            if (Mode.of(run.def) == Mode.EVENTUAL) {
                run.oracleFromBase(ConsistencyLevel.ALL);
                clean.put(run.def, () -> run.plan.indexes().stream().allMatch(index -> run.compare(index).clean()));
            }
        }
        for (UsersRun run : runs.unversioned()) {
            if (Mode.of(run.def) == Mode.EVENTUAL) {
                clean.put(run.def, () -> run.drift().isEmpty());
            }
        }
        Map<TableDef, Double> after = new java.util.HashMap<>();
        long deadline = System.currentTimeMillis() + 180_000;
        while (after.size() < clean.size() && System.currentTimeMillis() < deadline) {
            for (Map.Entry<TableDef, java.util.concurrent.Callable<Boolean>> e : clean.entrySet()) {
                if (!after.containsKey(e.getKey()) && cleanNow(e.getValue())) {
                    after.put(e.getKey(), (System.currentTimeMillis() - t0) / 1000.0);
                }
            }
            Thread.sleep(500);
        }
        return after;
    }

    /** Whether a judge says clean; false when its own reads at ALL failed (a node just back: looked at again). */
    private static boolean cleanNow(java.util.concurrent.Callable<Boolean> judge) throws Exception {
        try {
            return judge.call();
        } catch (com.datastax.oss.driver.api.core.DriverException e) {
            return false;
        }
    }

    /**
     * An eventual table first seen equal to the oracle within {@link #EVENTUAL_BOUND_SECONDS} of
     * the last write ({@link #eventualConverged}); printed for the figures.
     */
    private static void assertWithinBound(org.assertj.core.api.SoftAssertions soft, String when, TableDef def, Map<TableDef, Double> after) {
        if (Mode.of(def) != Mode.EVENTUAL) {
            return;
        }
        Double seconds = after.get(def);
        System.out.printf("%s: %s (eventual indexing) first equal to the oracle %s after the writes%n", when, def.keyspace(),
                seconds == null ? "never within 3 minutes" : String.format("%.1f s", seconds));
        soft.assertThat(seconds).as("%s: %s (eventual indexing) equal to the oracle within %d s of the last write", when, def.keyspace(),
                EVENTUAL_BOUND_SECONDS).isNotNull().isLessThanOrEqualTo((double) EVENTUAL_BOUND_SECONDS);
    }

    /** The run's drift, or one line saying the judge's own reads at ALL timed out (looked at again by the caller). */
    private static List<String> driftOf(UsersRun run) {
        try {
            return run.drift();
        } catch (com.datastax.oss.driver.api.core.DriverException e) {
            return List.of("the judge's read failed: " + e.getMessage());
        }
    }

    private static List<TableDef> tables(Runs runs) {
        List<TableDef> defs = new ArrayList<>();
        runs.versioned().forEach(r -> defs.add(r.def));
        runs.unversioned().forEach(r -> defs.add(r.def));
        return defs;
    }

    /** DROP TRIGGER on the tables of {@code runs}: writes from now on bypass the index (unless sent through statements prepared before). */
    static void dropTriggers(Runs runs) {
        for (TableDef def : tables(runs)) {
            session().execute(SimpleStatement.newInstance("DROP TRIGGER IF EXISTS " + CqlGenerator.TRIGGER_NAME + " ON " + def.keyspace() + "."
                    + def.table()).setTimeout(Duration.ofSeconds(60)));
        }
        session().checkSchemaAgreement();
    }

    /** CREATE TRIGGER again on the tables of {@code runs}, as {@code schema apply} does. */
    static void createTriggers(Runs runs) {
        create(tables(runs));
    }

    /** Sleeps, turning an interruption into the interrupted flag (for fault scripts run as a {@link Runnable}). */
    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
