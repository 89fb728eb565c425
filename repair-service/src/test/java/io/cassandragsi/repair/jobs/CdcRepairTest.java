package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import io.cassandragsi.schema.CdcLosses;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The targeted repair of lost CDC segments over an in-memory twin of the progress table and the
 * checks (docs/design.md section 7.11): run once per harmful loss, acknowledged only when every
 * table is checked, run again after a failure, never by an instance that does not own the epoch.
 */
class CdcRepairTest {
    private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
    private static final long LOST_AT = NOW - 60_000;

    /** The progress records in memory, with the checks asked for and the acknowledgments written into the records. */
    static final class MemoryHost implements CdcRepair.Host {
        final Map<Integer, Epoch> records = new HashMap<>();
        final List<String> checks = new ArrayList<>();
        boolean owner = true;
        int failOnCheck = -1;

        @Override
        public List<Epoch> epochs() {
            return List.copyOf(records.values());
        }

        @Override
        public boolean owns(int epochShard) {
            return owner;
        }

        @Override
        public List<String> eventualTables() {
            return List.of("ks.a", "ks.b");
        }

        @Override
        public void check(String table, String node) {
            if (checks.size() == failOnCheck) {
                failOnCheck = -1;
                throw new IllegalStateException("Cassandra did not answer");
            }
            checks.add(table + "@" + node);
        }

        @Override
        public void acknowledge(int epochShard, String covered) {
            Epoch e = records.get(epochShard);
            records.put(epochShard, new Epoch(e.shard(), e.node(), e.started(), e.heartbeat(), e.doneBefore(), e.state(), 0, 0, 0, 0, e.sweptTo(),
                    e.sweptBy(), e.cdcLost(), e.cdcLostBehind(), covered));
        }
    }

    private static Epoch epoch(int shard, String node, long heartbeat, long doneBefore, String lostBehind) {
        return new Epoch(shard, node, Instant.ofEpochMilli(heartbeat - 600_000), Instant.ofEpochMilli(heartbeat), Tids.maxAtTicks(doneBefore * 10_000L),
                "running", 0, 0, 0, 0, null, null, lostBehind == null ? 0 : 1, lostBehind, null);
    }

    private static MemoryHost harmful() {
        MemoryHost h = new MemoryHost();
        h.records.put(11, epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200,
                CdcLosses.format(Map.of(12, new CdcLosses.Behind(12, LOST_AT - 3_000, LOST_AT)))));
        h.records.put(12, epoch(12, "10.0.0.2:7000", NOW - 30_000, LOST_AT - 2_000, null));
        return h;
    }

    @Test
    void should_check_every_eventual_table_over_the_losing_node_then_acknowledge_and_not_run_twice() throws Exception {
        MemoryHost h = harmful();
        CdcRepair repair = new CdcRepair(h);
        repair.round(NOW);
        assertThat(h.checks).containsExactly("ks.a@10.0.0.1:7000", "ks.b@10.0.0.1:7000");
        assertThat(h.records.get(11).cdcRepaired()).isEqualTo(h.records.get(11).cdcLostBehind());
        repair.round(NOW + 2_000);
        assertThat(h.checks).as("acknowledged: not run again").hasSize(2);
        assertThat(repair.status(h.epochs(), NOW + 2_000)).containsEntry("pending", 0).containsEntry("done", 1).containsEntry("repaired_here", 1L);
    }

    @Test
    void should_leave_a_repair_that_failed_mid_way_unacknowledged_and_run_it_again() throws Exception {
        MemoryHost h = harmful();
        h.failOnCheck = 1;
        CdcRepair repair = new CdcRepair(h);
        repair.round(NOW);
        assertThat(h.records.get(11).cdcRepaired()).as("one table checked of two: no acknowledgment").isNull();
        assertThat(repair.status(h.epochs(), NOW)).containsEntry("pending", 1).containsEntry("failed_here", 1L);
        repair.round(NOW + 2_000);
        assertThat(h.checks).containsExactly("ks.a@10.0.0.1:7000", "ks.a@10.0.0.1:7000", "ks.b@10.0.0.1:7000");
        assertThat(h.records.get(11).cdcRepaired()).isNotNull();
    }

    @Test
    void should_run_nothing_for_a_harmless_loss_or_on_an_instance_that_does_not_own_the_epoch() throws Exception {
        MemoryHost h = harmful();
        h.owner = false;
        new CdcRepair(h).round(NOW);
        assertThat(h.checks).isEmpty();
        MemoryHost passed = harmful();
        passed.records.put(12, epoch(12, "10.0.0.2:7000", NOW - 30_000, LOST_AT + CdcLosses.SKEW_MS + 1, null));
        new CdcRepair(passed).round(NOW);
        assertThat(passed.checks).isEmpty();
        assertThat(new CdcRepair(passed).status(passed.epochs(), NOW)).containsEntry("harmless", 1).containsEntry("pending", 0);
    }

    @Test
    void should_join_a_node_s_wrapped_and_adjacent_ranges() {
        List<TokenRange> out = new ArrayList<>();
        NodeRanges.add(out, 100, 200);
        NodeRanges.add(out, Long.MIN_VALUE, -50);
        NodeRanges.add(out, -50, 10);
        NodeRanges.add(out, 5, 5);
        assertThat(NodeRanges.merge(out)).containsExactly(new TokenRange(Long.MIN_VALUE, 10), new TokenRange(100, 200));
    }
}
