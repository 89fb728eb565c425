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
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Three real nodes, keyspaces at RF=3, every write and read at LOCAL_QUORUM, with a table in node
 * mode and one in service mode side by side (docs/design.md section 7), the repair service running:
 * concurrent writers of the same rows through every coordinator; a node killed with kill -9 under
 * load and restarted 15 s later; {@code nodetool reloadtriggers} on two nodes under load; a node
 * killed while {@code check --fix} and {@code rebuild} run. The
 * nodes' maintainers take at most 500 writes at once, so their queues overflow under this load and
 * refused writes go to the repair service. After each: drain, every entry equal to the oracle of
 * what the base holds (read at ALL), and {@code check} finds no drift. Seeds printed; replay with
 * -Dgsi.seed=N.
 *
 * <p>About 5 GB of memory and 10 minutes on two cores, so only when asked:
 * {@code mvn -B install -DskipTests && mvn -B verify -pl it -Dgsi.it.threeNodes=true -Dit.test=ThreeNodesIT}.
 */
@EnabledIfSystemProperty(named = "gsi.it.threeNodes", matches = "true")
@DisabledIfSystemProperty(named = "gsi.it.maintenance", matches = "node") // it sets each table's mode itself
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ThreeNodesIT {
    private static final String RF3 = "{'class': 'SimpleStrategy', 'replication_factor': 3}";
    private static LocalCluster cluster;
    private static CqlSession session;
    private static RepairService service;

    @BeforeAll
    static void start() {
        Path jar = Path.of(System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar"));
        assertThat(Files.isRegularFile(jar)).as("trigger jar %s (build with mvn install first)", jar).isTrue();
        cluster = LocalCluster.builder().nodes(3).workDir(Path.of("target", "it-three-nodes")).firstAddress("127.0.4.1").jmxPortBase(7499)
                .heap("768M").triggerJar(jar).jvmOption("-Dgsi.maintainer.queue=500").startupTimeout(Duration.ofMinutes(5)).build();
        cluster.start();
        session = CqlSession.builder().addContactPoints(cluster.contactPoints()).withLocalDatacenter(cluster.localDatacenter())
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(20))
                        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "LOCAL_QUORUM")
                        .build())
                .build();
        List<String> cql = new ArrayList<>();
        for (Maintenance mode : Maintenance.values()) {
            CqlGenerator.all(definition(mode), "gsi", RF3).forEach(s -> cql.add(s.cql()));
        }
        ProjectTables.all("gsi", QueueLayout.Settings.defaults()).forEach(t -> cql.add(t.cql()));
        cql.addAll(ProjectTables.initialRows("gsi", QueueLayout.Settings.defaults()));
        for (String statement : cql) {
            session.execute(SimpleStatement.newInstance(statement).setTimeout(Duration.ofSeconds(60)));
        }
        session.checkSchemaAgreement();
        service = new RepairService(session, GsiConfig.defaults()).start();
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close();
        }
        if (session != null) {
            session.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static TableDef definition(Maintenance mode) {
        return SharedCluster.withMaintenance(SharedCluster.example("revisions", "it3_" + mode.jsonName()), mode);
    }

    /** Both tables written at once by {@code writers} threads each, {@code during} running meanwhile; the runs, tolerant of failed writes. */
    private static List<HistoryRun> writeBoth(long seed, int writes, Runnable during) throws Exception {
        List<HistoryRun> runs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<?>> done = new ArrayList<>();
        for (Maintenance mode : Maintenance.values()) {
            HistoryRun run = new HistoryRun(session, definition(mode), seed + mode.ordinal()).tolerateFailures();
            runs.add(run);
            done.add(pool.submit(() -> {
                run.write(60, writes, 3);
                return null;
            }));
        }
        during.run();
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        return runs;
    }

    /** Drains, then compares each table's index with the base read at ALL and runs check: no drift. */
    private static void assertConverged(String when, long seed, List<HistoryRun> runs) throws Exception {
        for (HistoryRun run : runs) {
            run.oracleFromBase(ConsistencyLevel.ALL);
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 180_000);
            System.out.printf("%s, %s mode, seed %d: %d writes failed; %s%n", when, run.def.maintenance().jsonName(), seed, run.failed.get(), drift);
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("%s: seed %d %s index %s: %s", when, seed, run.def.keyspace(), e.getKey(), e.getValue()).isTrue();
            }
            CheckResult check = new Jobs(session, GsiConfig.defaults()).check(run.def.keyspace(), "revisions", null, false, null);
            assertThat(check.drift()).as("%s: check of %s", when, run.def.keyspace()).isFalse();
        }
        System.out.println(when + ": maintainers " + service.status().get("nodes"));
    }

    @Test
    @Order(1)
    void should_equal_the_oracle_when_writers_write_the_same_rows_through_every_coordinator() throws Exception {
        long seed = RepairServiceIT.seed();
        System.out.println("ThreeNodesIT concurrent seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        assertConverged("concurrent writers", seed, writeBoth(seed, 3000, () -> {}));
    }

    @Test
    @Order(2)
    void should_equal_the_oracle_when_a_node_is_killed_under_load_and_restarted() throws Exception {
        long seed = RepairServiceIT.seed() + 100;
        System.out.println("ThreeNodesIT kill seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        List<HistoryRun> runs = writeBoth(seed, 6000, () -> {
            try {
                Thread.sleep(3000);
                cluster.kill(2);
                System.out.println("killed node 2 (kill -9)");
                Thread.sleep(15_000);
                cluster.start(2);
                System.out.println("node 2 back");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertConverged("a node killed and restarted", seed, runs);
    }

    @Test
    @Order(3)
    void should_equal_the_oracle_when_the_trigger_is_reloaded_under_load() throws Exception {
        long seed = RepairServiceIT.seed() + 200;
        System.out.println("ThreeNodesIT reload seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        List<HistoryRun> runs = writeBoth(seed, 4000, () -> {
            try {
                Thread.sleep(2000);
                System.out.println("reloadtriggers on node 0: " + cluster.nodetool(0, "reloadtriggers").strip());
                Thread.sleep(1000);
                System.out.println("reloadtriggers on node 1: " + cluster.nodetool(1, "reloadtriggers").strip());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertConverged("triggers reloaded", seed, runs);
    }

    /**
     * A node killed while {@code check --fix} and {@code rebuild} run: at RF=3 with one node down,
     * LOCAL_QUORUM still holds, so both carry on and finish (a range whose requests were in flight to
     * the dead node is tried again once the driver has marked it down).
     */
    @Test
    @Order(4)
    void should_finish_check_and_rebuild_when_a_node_is_killed_while_they_run() throws Exception {
        Jobs jobs = new Jobs(session, GsiConfig.defaults());
        String ks = definition(Maintenance.SERVICE).keyspace();
        long t0 = System.currentTimeMillis();
        io.cassandragsi.repair.jobs.JobHandle<CheckResult> check = jobs.startCheck(ks, "revisions", null,
                io.cassandragsi.repair.jobs.CheckOptions.defaults().withFix(true).withParallelism(1), null);
        Thread.sleep(300);
        cluster.kill(1);
        System.out.println("killed node 1 (kill -9) " + (System.currentTimeMillis() - t0) + " ms into check --fix");
        CheckResult checked = check.await();
        System.out.printf("check --fix with node 1 killed: %s in %.1f s%n", checked.state(), (System.currentTimeMillis() - t0) / 1000.0);
        long t1 = System.currentTimeMillis();
        io.cassandragsi.repair.jobs.RebuildResult rebuilt = jobs.rebuild(ks, "revisions", null, io.cassandragsi.repair.jobs.RebuildOptions.defaults(),
                null);
        System.out.printf("rebuild with node 1 down: %s in %.1f s%n", rebuilt.state(), (System.currentTimeMillis() - t1) / 1000.0);
        cluster.start(1);
        assertThat(checked.state()).as("check --fix: %s", checked.summary()).isEqualTo(io.cassandragsi.repair.jobs.JobState.DONE);
        assertThat(checked.drift()).as(checked.summary()).isFalse();
        assertThat(rebuilt.state()).isEqualTo(io.cassandragsi.repair.jobs.JobState.DONE);
    }
}
