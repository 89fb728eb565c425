package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import io.cassandragsi.schema.CdcLosses;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which lost CDC segments need the targeted repair, what it acknowledges, and how the safe time
 * waits for it (docs/design.md section 7.11).
 */
class CdcRepairsTest {
    private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
    private static final long SKEW = 100;
    private static final long LOST_AT = NOW - 60_000;
    private static final List<SafeTime.Source> SHARDS = List.of(new SafeTime.Source("shard 0", NOW - 150, "worked here"));

    /** A record of epoch {@code shard} on node {@code node}: heartbeat, done_before, state, and its CDC columns. */
    static Epoch epoch(int shard, String node, long heartbeat, long doneBefore, String state, String lostBehind, String repaired) {
        return new Epoch(shard, node, Instant.ofEpochMilli(heartbeat - 600_000), Instant.ofEpochMilli(heartbeat), Tids.maxAtTicks(doneBefore * 10_000L),
                state, 0, 0, 0, 0, null, null, lostBehind == null ? 0 : 1, lostBehind, repaired);
    }

    private static String behind(int shard, long doneBefore) {
        return CdcLosses.format(Map.of(shard, new CdcLosses.Behind(shard, doneBefore, LOST_AT)));
    }

    @Test
    void should_need_nothing_while_the_epoch_behind_runs_and_nothing_once_it_passed() {
        Epoch losing = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", behind(12, LOST_AT - 3_000), null);
        Epoch behindRunning = epoch(12, "10.0.0.2:7000", NOW - 100, LOST_AT - 3_000, "running", null, null);
        assertThat(CdcRepairs.needs(List.of(losing, behindRunning), NOW)).isEmpty();
        assertThat(CdcRepairs.standing(losing, List.of(losing, behindRunning), NOW)).isEqualTo(CdcRepairs.Standing.WAITING);
        Epoch passedThenKilled = epoch(12, "10.0.0.2:7000", NOW - 30_000, LOST_AT + CdcLosses.SKEW_MS + 1, "running", null, null);
        assertThat(CdcRepairs.needs(List.of(losing, passedThenKilled), NOW)).as("it passed the segment before it stopped").isEmpty();
        assertThat(CdcRepairs.standing(losing, List.of(losing, passedThenKilled), NOW)).isEqualTo(CdcRepairs.Standing.HARMLESS);
        Epoch retired = epoch(12, "10.0.0.2:7000", NOW - 30_000, LOST_AT - 3_000, "retired", null, null);
        assertThat(CdcRepairs.needs(List.of(losing, retired), NOW)).as("it handed its unfinished writes off").isEmpty();
    }

    @Test
    void should_need_a_repair_of_the_losing_node_when_the_epoch_behind_stops_first_until_acknowledged() {
        Epoch losing = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", behind(12, LOST_AT - 3_000), null);
        Epoch killed = epoch(12, "10.0.0.2:7000", NOW - 30_000, LOST_AT - 2_000, "running", null, null);
        List<CdcRepairs.Need> needs = CdcRepairs.needs(List.of(losing, killed), NOW);
        assertThat(needs).singleElement().satisfies(n -> {
            assertThat(n.shard()).isEqualTo(11);
            assertThat(n.node()).as("the node that lost the segment, not the one that stopped").isEqualTo("10.0.0.1:7000");
            assertThat(n.harmful()).containsOnlyKeys(12);
            assertThat(n.holdMillis()).as("the stopped epoch's last done_before").isEqualTo(LOST_AT - 2_000);
        });
        assertThat(CdcRepairs.standing(losing, List.of(losing, killed), NOW)).isEqualTo(CdcRepairs.Standing.PENDING);

        Epoch acked = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", behind(12, LOST_AT - 3_000), needs.get(0).acknowledgment(losing));
        assertThat(CdcRepairs.needs(List.of(acked, killed), NOW)).as("acknowledged: not run twice").isEmpty();
        assertThat(CdcRepairs.standing(acked, List.of(acked, killed), NOW)).isEqualTo(CdcRepairs.Standing.REPAIRED);

        String later = CdcLosses.format(Map.of(12, new CdcLosses.Behind(12, LOST_AT - 3_000, LOST_AT + 500)));
        Epoch lostMore = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", later, acked.cdcRepaired());
        assertThat(CdcRepairs.needs(List.of(lostMore, killed), NOW)).as("a segment lost after the repair's acknowledgment").hasSize(1);
    }

    @Test
    void should_repair_a_loss_whose_epoch_record_is_gone_and_one_the_losing_epoch_itself_was_behind() {
        Epoch killedItself = epoch(21, "10.0.0.3:7000", NOW - 30_000, LOST_AT - 1_000, "running", behind(21, LOST_AT - 1_500), null);
        assertThat(CdcRepairs.needs(List.of(killedItself), NOW)).singleElement().satisfies(n -> assertThat(n.node()).isEqualTo("10.0.0.3:7000"));
        Epoch orphan = epoch(22, "10.0.0.3:7000", NOW - 100, NOW - 200, "running", behind(99, LOST_AT - 4_000), null);
        assertThat(CdcRepairs.needs(List.of(orphan), NOW)).singleElement().satisfies(n -> assertThat(n.holdMillis()).isEqualTo(LOST_AT - 4_000));
    }

    @Test
    void should_hold_the_safe_time_at_the_stopped_epoch_until_the_repair_is_acknowledged() {
        Epoch losing = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", behind(12, LOST_AT - 3_000), null);
        // the stopped epoch is swept to its end: without the loss, it would no longer hold anything
        Epoch killed = new Epoch(12, "10.0.0.2:7000", Instant.ofEpochMilli(NOW - 600_000), Instant.ofEpochMilli(NOW - 120_000),
                Tids.maxAtTicks((LOST_AT - 2_000) * 10_000L), "running", 0, 0, 0, 0, Tids.maxAtTicks((NOW - 50_000) * 10_000L), "x", 0, null, null);
        SafeTime.Reading r = SafeTime.of(SHARDS, List.of(new SafeTime.Snapshot(NOW - 1_000, List.of(losing, killed))), Map.of(), SKEW, NOW, true);
        assertThat(r.node()).isEqualTo(LOST_AT - 2_000 - SKEW);
        assertThat(r.nodeHeldBy().name()).contains("CDC segments lost on 10.0.0.1:7000");
        String ack = CdcRepairs.needs(List.of(losing, killed), NOW).get(0).acknowledgment(losing);
        Epoch acked = epoch(11, "10.0.0.1:7000", NOW - 100, NOW - 200, "running", losing.cdcLostBehind(), ack);
        SafeTime.Reading after = SafeTime.of(SHARDS, List.of(new SafeTime.Snapshot(NOW - 1_000, List.of(acked, killed))), Map.of(), SKEW, NOW, true);
        assertThat(after.node()).as("repaired: held only by the running epoch").isEqualTo(NOW - 200 - SKEW);
    }
}
