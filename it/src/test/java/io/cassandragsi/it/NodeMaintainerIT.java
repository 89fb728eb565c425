package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.schema.SchemaApplier;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The in-node maintainer on a real node (docs/design.md section 7): tables in node mode, randomized
 * histories judged by the oracle (zero tolerance, the seed printed; replay with -Dgsi.seed=N), the
 * node doing the plain diffs, the repair service the rest; the sweep of an epoch that stopped; and
 * {@code nodetool reloadtriggers} under load.
 */
class NodeMaintainerIT {

    private static TableDef nodeMode(String keyspace) {
        return inNode(SharedCluster.example("revisions", keyspace));
    }

    /**
     * The definition maintained in the node: in node maintenance, or in eventual indexing when the
     * suite runs eventual ({@code -Dgsi.it.maintenance=eventual}, docs/design.md section 7.11).
     */
    private static TableDef inNode(TableDef def) {
        return SharedCluster.INDEXING == Indexing.EVENTUAL ? SharedCluster.withIndexing(def, Indexing.EVENTUAL)
                : SharedCluster.withMaintenance(def, Maintenance.NODE);
    }

    /** The progress records of every maintainer epoch: done, handed off, state. */
    private static List<Row> epochs(CqlSession session) {
        return session.execute("SELECT shard, state, done, handed_off, queued, done_before, heartbeat, swept_to FROM gsi." + NodeProgressLayout.TABLE)
                .all();
    }

    @Test
    void should_do_the_plain_diffs_in_the_node_and_equal_the_oracle_when_concurrent_writers_write() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        TableDef def = nodeMode("it_node_diffs");
        SharedCluster.apply(def);
        System.out.println("NodeMaintainerIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        long doneBefore = epochs(session).stream().mapToLong(r -> r.getLong(2)).sum();
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            HistoryRun run = new HistoryRun(session, def, seed);
            run.write(40, 1500, 4);
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            Thread.sleep(1500); // a progress record after the last write
            long done = epochs(session).stream().mapToLong(r -> r.getLong(2)).sum() - doneBefore;
            System.out.printf("seed %d: %s; node maintainers did %d plain writes; service %s%n", seed, drift, done, service.status());
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(done).as("plain writes the node's maintainer did (of 1,500 writes, most of them plain)").isGreaterThan(500);
            if (SharedCluster.isLocal()) {
                long[] local = localReadsAndWrites(SharedCluster.cluster().jmxPort(0));
                System.out.printf("node maintainers: %d local reads, %d local writes%n", local[0], local[1]);
                // one node, RF=1: every read and write of the maintainer is of this node's replica alone (docs/design.md section 7.8)
                assertThat(local[0]).as("selects the maintainers ran on this node's replica alone").isGreaterThan(done);
                assertThat(local[1]).as("mutations the maintainers applied to this node's replica alone").isGreaterThan(done);
            }
        }
    }

    /** The selects and mutations the node's maintainers ran on its replica alone ({@code LocalReads}, {@code LocalWrites}, summed over epochs). */
    private static long[] localReadsAndWrites(int jmxPort) throws Exception {
        javax.management.remote.JMXServiceURL url = new javax.management.remote.JMXServiceURL(
                "service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        try (javax.management.remote.JMXConnector c = javax.management.remote.JMXConnectorFactory.connect(url)) {
            javax.management.MBeanServerConnection mbeans = c.getMBeanServerConnection();
            long[] out = new long[2];
            for (javax.management.ObjectName name : mbeans.queryNames(new javax.management.ObjectName("io.cassandragsi:type=Maintainer,*"), null)) {
                out[0] += ((Number) mbeans.getAttribute(name, "LocalReads")).longValue();
                out[1] += ((Number) mbeans.getAttribute(name, "LocalWrites")).longValue();
            }
            return out;
        }
    }

    /**
     * Values the maintainer hands to Cassandra that it did not get from Cassandra: entry keys from the
     * rows table's {@code _keys} (reads and writes of index rows) and an index with no hash attribute
     * (its constant partition, docs/design.md section 7.8). A read-only buffer among them crashed the
     * node (Cassandra's comparisons read a buffer without an array as direct memory).
     */
    @Test
    void should_hand_cassandra_only_buffers_it_can_compare() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        TableDef def = io.cassandragsi.schema.Definitions.parse("""
                {"keyspace": "it_node_buffers", "table": "revisions", "maintenance": "node",
                 "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
                 "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
                 "secondaryIndexes": {
                   "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}],
                   "recent_lengths": [{"type": "range", "attribute": "length"}]}}""", "revisions.json");
        SharedCluster.apply(def);
        System.out.println("NodeMaintainerIT buffers seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            HistoryRun run = new HistoryRun(session, def, seed);
            run.write(30, 1200, 4);
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            System.out.printf("seed %d: %s%n", seed, drift);
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(session.execute("SELECT release_version FROM system.local").one()).as("the node is still up").isNotNull();
        }
    }

    /**
     * Switching a table between modes is a {@code schema apply} that loses nothing in flight: service
     * to node to service to node while writers write (docs/design.md section 7.8).
     */
    @Test
    void should_lose_nothing_when_a_table_switches_modes_under_load() throws Exception {
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        TableDef service = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_node_switch"), Maintenance.SERVICE);
        TableDef node = inNode(service);
        SharedCluster.apply(node);
        apply(session, service);
        System.out.println("NodeMaintainerIT switch seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        long doneBefore = epochs(session).stream().mapToLong(r -> r.getLong(2)).sum();
        try (RepairService repair = new RepairService(session, GsiConfig.defaults()).start()) {
            HistoryRun run = new HistoryRun(session, service, seed);
            AtomicBoolean switched = new AtomicBoolean();
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<?> writing = writer.submit(() -> { // rounds until three after the last switch
                for (int after = 0; after < 3; after += switched.get() ? 1 : 0) {
                    run.write(40, 300, 4);
                }
                return null;
            });
            for (TableDef next : List.of(node, service, node)) {
                Thread.sleep(1500);
                System.out.println("schema apply: maintenance " + next.maintenance().jsonName() + ", indexing " + next.indexing().jsonName());
                apply(session, next);
            }
            switched.set(true);
            writing.get();
            writer.shutdown();
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            Thread.sleep(1500);
            long done = epochs(session).stream().mapToLong(r -> r.getLong(2)).sum() - doneBefore;
            System.out.printf("seed %d: %s; node maintainers did %d plain writes; service %s%n", seed, drift, done, repair.status());
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(done).as("the node maintained the table while it was in node mode").isPositive();
        }
    }

    /** What {@code gsi schema apply} does with one definition. */
    private static void apply(CqlSession session, TableDef def) {
        java.io.StringWriter out = new java.io.StringWriter();
        new SchemaApplier(GsiConfig.defaults(), new java.io.PrintWriter(out, true), new java.io.PrintWriter(out, true)).apply(session, List.of(def),
                SharedCluster.REPLICATION, false);
        session.checkSchemaAgreement();
    }

    /**
     * A maintainer that stopped (here: a progress record whose heartbeat is old, and markers in its
     * epoch's shard for writes that bypassed the trigger): the service sweeps the shard from where the
     * record says, indexes every marked row, and closes the epoch.
     */
    @Test
    void should_sweep_the_markers_of_a_maintainer_that_stopped() throws Exception {
        Assumptions.assumeTrue(SharedCluster.INDEXING == Indexing.ATOMIC, "the sweep reads markers only atomic indexing writes: run once");
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        TableDef def = SharedCluster.example("revisions", "it_node_sweep");
        SharedCluster.apply(def);
        session.execute("DROP TRIGGER IF EXISTS gsi_index ON it_node_sweep.revisions");
        HistoryRun run = new HistoryRun(session, def, seed);
        run.write(20, 200, 2); // no trigger: no entries, no markers
        int shard = NodeProgressLayout.FIRST_EPOCH_SHARD + (int) Math.floorMod(seed, 1_000_000L);
        Instant heartbeat = Instant.now().minusSeconds(75);
        UUID doneBefore = Tids.minAtTicks(Tids.ticks(heartbeat.minusSeconds(5)));
        QueueLayout.Settings settings = QueueLayout.Settings.defaults();
        int i = 0;
        for (List<ByteBuffer> rowKey : run.oracle.rows().keySet()) {
            UUID id = Tids.fromTicks(Tids.ticks(heartbeat.minusSeconds(3)) + i, 0x8000000000000000L | i++);
            session.execute(SimpleStatement.newInstance("INSERT INTO gsi.queue (shard, bucket, id, keyspace_name, table_name, pk, ck, flags)"
                    + " VALUES (?, ?, ?, 'it_node_sweep', 'revisions', ?, ?, ?)", shard, settings.bucketOf(Tids.instant(id).toEpochMilli()), id,
                    rowKey.get(0), Composite.encode(List.of()), QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE));
        }
        session.execute(SimpleStatement.newInstance("INSERT INTO gsi.node_progress (shard, node, started, heartbeat, done_before, state, queued,"
                + " done, handed_off, retried) VALUES (?, 'test', ?, ?, ?, 'running', 0, 0, 0, 0)", shard, heartbeat.minusSeconds(60), heartbeat,
                doneBefore));
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            System.out.printf("swept epoch %d: %d markers; %s%n", shard, i, drift);
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            long deadline = System.currentTimeMillis() + 60_000;
            UUID swept = null;
            while (System.currentTimeMillis() < deadline) {
                swept = session.execute(SimpleStatement.newInstance("SELECT swept_to FROM gsi.node_progress WHERE shard = ?", shard)).one().getUuid(0);
                if (swept != null && Tids.instant(swept).isAfter(heartbeat.plusSeconds(59))) {
                    break;
                }
                Thread.sleep(500);
            }
            System.out.println("status nodes: " + service.status().get("nodes"));
            assertThat(swept).as("the epoch is swept to 60 s past its last heartbeat").isNotNull();
            assertThat(Tids.instant(swept)).isAfter(heartbeat.plusSeconds(59));
        }
    }

    /** {@code nodetool reloadtriggers} while writers write: the old maintainer retires, a new one starts, nothing is lost. */
    @Test
    void should_lose_nothing_when_the_trigger_is_reloaded_under_load() throws Exception {
        Assumptions.assumeTrue(SharedCluster.isLocal(), "needs the suite's own node (nodetool)");
        CqlSession session = SharedCluster.session();
        long seed = RepairServiceIT.seed();
        TableDef def = nodeMode("it_node_reload");
        SharedCluster.apply(def);
        System.out.println("NodeMaintainerIT reload seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        TableDef warm = nodeMode("it_node_reload_warm"); // a maintainer runs before the reload, also when this test runs alone
        SharedCluster.apply(warm);
        new HistoryRun(session, warm, seed + 1).write(5, 20, 1);
        Thread.sleep(1500);
        List<Integer> before = new ArrayList<>();
        // the running maintainers: a fresh heartbeat (other suites leave records of maintainers that never were)
        epochs(session).stream().filter(r -> NodeProgressLayout.RUNNING.equals(r.getString(1))
                && r.getInstant(6).isAfter(Instant.now().minusSeconds(5))).forEach(r -> before.add(r.getInt(0)));
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            HistoryRun run = new HistoryRun(session, def, seed);
            ExecutorService writer = Executors.newSingleThreadExecutor();
            AtomicBoolean reloaded = new AtomicBoolean();
            Future<?> writing = writer.submit(() -> { // rounds until three after the reload: the writes span it however fast they go
                for (int after = 0; after < 3; after += reloaded.get() ? 1 : 0) {
                    run.write(40, 400, 4);
                }
                return null;
            });
            Thread.sleep(1500);
            System.out.println("nodetool reloadtriggers: " + SharedCluster.cluster().nodetool(0, "reloadtriggers"));
            reloaded.set(true);
            writing.get();
            writer.shutdown();
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            Thread.sleep(1500);
            List<Row> epochs = epochs(session);
            System.out.printf("seed %d: %s; epochs running before %s; now %s%n", seed, drift, before,
                    epochs.stream().map(r -> r.getInt(0) + " " + r.getString(1) + " done " + r.getLong(2) + " handed off " + r.getLong(3)).toList());
            for (Map.Entry<String, HistoryRun.Drift> e : drift.entrySet()) {
                assertThat(e.getValue().clean()).as("seed %d index %s: %s", seed, e.getKey(), e.getValue()).isTrue();
            }
            assertThat(epochs).filteredOn(r -> before.contains(r.getInt(0))).extracting(r -> r.getString(1)).as("the old maintainer retired")
                    .containsOnly(NodeProgressLayout.RETIRED);
            assertThat(epochs).filteredOn(r -> !before.contains(r.getInt(0)) && NodeProgressLayout.RUNNING.equals(r.getString(1)))
                    .as("a new maintainer runs, and did plain writes").anySatisfy(r -> assertThat(r.getLong(2)).isPositive());
        }
    }
}
