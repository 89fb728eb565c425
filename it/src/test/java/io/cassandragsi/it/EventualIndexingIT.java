package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.TableDef;
import java.util.Map;
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
}
