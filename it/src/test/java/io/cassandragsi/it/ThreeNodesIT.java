package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.service.RepairService;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.DisabledIfSystemProperty;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Three real nodes ({@link ThreeNodes}: keyspaces at RF=3, every write and read at LOCAL_QUORUM, a
 * versioned and an unversioned table in node mode and in service mode side by side, docs/design.md
 * section 7), the repair service running in-process: concurrent writers of the same rows through
 * every coordinator; a node killed with kill -9 under load and restarted 15 s later;
 * {@code nodetool reloadtriggers} on two nodes under load; a node killed while {@code check --fix}
 * and {@code rebuild} run. After each: drain, every entry equal to the oracle of what the base
 * holds (read at ALL), and {@code check} finds no drift. Seeds printed; replay with -Dgsi.seed=N.
 * ThreeNodesFaultsIT has the other fault scenarios, on the same nodes.
 *
 * <p>About 5 GB of memory and 25 minutes on two cores for both, so only when asked:
 * {@code mvn -B install -DskipTests && mvn -B verify -pl it -Dgsi.it.threeNodes=true -Dit.test='ThreeNodes*IT'}.
 */
@EnabledIfSystemProperty(named = "gsi.it.threeNodes", matches = "true")
@DisabledIfSystemProperty(named = "gsi.it.maintenance", matches = "node|eventual") // it sets each table's mode itself
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ThreeNodesIT {
    private static LocalCluster cluster;
    private static CqlSession session;
    private static RepairService service;

    @BeforeAll
    static void start() {
        cluster = ThreeNodes.cluster();
        session = ThreeNodes.session();
        service = new RepairService(session, GsiConfig.defaults()).start();
    }

    @AfterAll
    static void stop() {
        if (service != null) {
            service.close(); // the cluster stays up for the other three-node suite; it stops with the JVM
        }
    }

    private static void assertConverged(String when, long seed, ThreeNodes.Runs runs) throws Exception {
        ThreeNodes.assertConverged(when, seed, runs, () -> service.status().get("nodes"));
    }

    @Test
    @Order(1)
    void should_equal_the_oracle_when_writers_write_the_same_rows_through_every_coordinator() throws Exception {
        long seed = RepairServiceIT.seed();
        System.out.println("ThreeNodesIT concurrent seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        assertConverged("concurrent writers", seed, ThreeNodes.writeAll("concurrent", seed, 3000, () -> {}));
    }

    @Test
    @Order(2)
    void should_equal_the_oracle_when_a_node_is_killed_under_load_and_restarted() throws Exception {
        long base = RepairServiceIT.seed();
        long seed = base + 100;
        System.out.println("ThreeNodesIT kill seed " + seed + " (replay with -Dgsi.seed=" + base + ")");
        ThreeNodes.Runs runs = ThreeNodes.runs("kill", seed, java.util.EnumSet.allOf(ThreeNodes.Mode.class));
        try (ConsistentProbe probe = new ConsistentProbe(session, runs.versioned())) {
            ThreeNodes.write(runs, 6000, () -> {
                ThreeNodes.sleep(3000);
                cluster.kill(2);
                System.out.println("killed node 2 (kill -9)");
                ThreeNodes.sleep(15_000);
                cluster.start(2);
                System.out.println("node 2 back");
            });
            ThreeNodes.sleep(ConsistentProbe.BEHIND_SECONDS * 1000L); // the probe reads 30 s back: past the fault too
            probe.finish();
            assertConverged("a node killed and restarted", seed, runs);
            probe.assertNoFalsePositives("a node killed and restarted", seed);
        }
    }

    @Test
    @Order(3)
    void should_equal_the_oracle_when_the_trigger_is_reloaded_under_load() throws Exception {
        long seed = RepairServiceIT.seed() + 200;
        System.out.println("ThreeNodesIT reload seed " + seed + " (replay with -Dgsi.seed=" + (seed - 200) + ")");
        ThreeNodes.Runs runs = ThreeNodes.writeAll("reload", seed, 4000, () -> {
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
        String ks = ThreeNodes.revisions("kill", ThreeNodes.Mode.SERVICE).keyspace();
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
