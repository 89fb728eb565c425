package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The safe time from the progress of the queue shards and the in-node maintainers (docs/design.md section 7.10). */
class SafeTimeTest {
    private static final long NOW = Instant.parse("2026-11-26T10:00:00Z").toEpochMilli();
    private static final long SKEW = 100;

    private static SafeTime.Source shard(int n, long doneBefore) {
        return new SafeTime.Source("shard " + n, doneBefore, "worked here");
    }

    private static Epoch epoch(int shard, long heartbeat, long doneBefore, String state, Long sweptTo) {
        return new Epoch(shard, "10.0.0." + shard, Instant.ofEpochMilli(heartbeat - 60_000), Instant.ofEpochMilli(heartbeat),
                Tids.maxAtTicks(doneBefore * 10_000L), state, 0, 0, 0, 0, sweptTo == null ? null : Tids.maxAtTicks(sweptTo * 10_000L), null, 0);
    }

    private static final List<SafeTime.Source> SHARDS = List.of(shard(0, NOW - 150), shard(1, NOW - 400), shard(2, NOW - 200));

    @Test
    void should_be_the_least_shard_less_the_skew_held_by_that_shard() {
        SafeTime.Reading r = SafeTime.of(SHARDS, List.of(), Map.of(), SKEW, NOW, false);
        assertThat(r.service()).isEqualTo(NOW - 400 - SKEW);
        assertThat(r.serviceHeldBy().name()).isEqualTo("shard 1");
        assertThat(r.node()).as("no maintainers known: as the service's").isEqualTo(r.service());
    }

    @Test
    void should_be_unknown_while_a_shard_has_not_reported() {
        SafeTime.Reading r = SafeTime.of(List.of(shard(0, NOW - 150), new SafeTime.Source("shard 1", SafeTime.UNKNOWN, "no owner")), List.of(),
                Map.of(), SKEW, NOW, true);
        assertThat(r.service()).isEqualTo(SafeTime.UNKNOWN);
        assertThat(r.node()).isEqualTo(SafeTime.UNKNOWN);
        assertThat(r.unknownBecause(io.cassandragsi.schema.Maintenance.SERVICE)).contains("shard 1").contains("no owner");
    }

    @Test
    void should_use_only_progress_records_read_before_the_service_shards_safe_time() {
        long service = NOW - 400 - SKEW;
        SafeTime.Snapshot old = new SafeTime.Snapshot(service - 1_000, List.of(epoch(7, service - 1_100, service - 1_300, "running", null)));
        SafeTime.Snapshot fresh = new SafeTime.Snapshot(NOW - 10, List.of(epoch(7, NOW - 20, NOW - 30, "running", null)));
        SafeTime.Reading r = SafeTime.of(SHARDS, List.of(old, fresh), Map.of(), SKEW, NOW, true);
        assertThat(r.node()).as("the fresh record's hand-offs may not be read by every shard yet").isEqualTo(service - 1_300 - SKEW);
        assertThat(r.nodeHeldBy().name()).contains("epoch 7");
        assertThat(r.service()).as("tables in service mode do not wait for maintainers").isEqualTo(service);
    }

    @Test
    void should_be_unknown_in_node_mode_until_a_record_old_enough_was_read() {
        SafeTime.Snapshot fresh = new SafeTime.Snapshot(NOW - 10, List.of());
        SafeTime.Reading r = SafeTime.of(SHARDS, List.of(fresh), Map.of(), SKEW, NOW, true);
        assertThat(r.node()).isEqualTo(SafeTime.UNKNOWN);
        assertThat(r.service()).isNotEqualTo(SafeTime.UNKNOWN);
    }

    @Test
    void should_follow_the_service_when_every_maintainer_is_ahead_of_it() {
        SafeTime.Snapshot s = new SafeTime.Snapshot(NOW - 2_000, List.of(epoch(7, NOW - 2_100, NOW - 2_100, "running", null)));
        SafeTime.Reading r = SafeTime.of(SHARDS, List.of(s), Map.of(), SKEW, NOW, true);
        assertThat(r.node()).isEqualTo(NOW - 2_100 - SKEW);
        SafeTime.Snapshot ahead = new SafeTime.Snapshot(NOW - 600, List.of(epoch(7, NOW - 650, NOW - 300, "running", null)));
        assertThat(SafeTime.of(SHARDS, List.of(ahead), Map.of(), SKEW, NOW, true).node()).isEqualTo(NOW - 400 - SKEW);
    }

    @Test
    void should_hold_at_a_silent_maintainer_until_its_sweep_moves_and_forget_it_once_swept() {
        long died = NOW - 30_000;
        Epoch silent = epoch(7, died, died - 50, "running", null);
        SafeTime.Snapshot s = new SafeTime.Snapshot(NOW - 1_000, List.of(silent));
        assertThat(SafeTime.epoch(silent, s.readAt(), null).state()).isEqualTo("silent; sweep due");
        assertThat(SafeTime.of(SHARDS, List.of(s), Map.of(), SKEW, NOW, true).node()).as("a stopped maintainer holds it back")
                .isEqualTo(died - 50 - SKEW);
        assertThat(SafeTime.of(SHARDS, List.of(s), Map.of(7, NOW - 5_000L), SKEW, NOW, true).node()).as("swept here up to 5 s ago")
                .isEqualTo(NOW - 5_000 - SKEW);
        Epoch swept = epoch(7, died, died - 50, "running", died + 60_000);
        assertThat(SafeTime.of(SHARDS, List.of(new SafeTime.Snapshot(NOW - 1_000, List.of(swept))), Map.of(), SKEW, NOW, true).node())
                .isEqualTo(NOW - 400 - SKEW);
    }

    @Test
    void should_keep_the_progress_records_the_safe_time_may_still_use() {
        NodeSweeps sweeps = new NodeSweeps(new NodeSweeps.Progress() {
            @Override
            public List<Epoch> all() {
                return List.of();
            }

            @Override
            public void swept(int shard, java.util.UUID sweptTo, String owner) {}
        }, "me", 8);
        long[] now = {0};
        for (int i = 1; i <= 5; i++) {
            now[0] = i * 1_000L;
            sweeps.refresh(() -> now[0]);
        }
        sweeps.prune(3_500);
        assertThat(sweeps.snapshots()).extracting(SafeTime.Snapshot::readAt).as("the newest read at or before 3.5 s, and every later one")
                .containsExactly(3_000L, 4_000L, 5_000L);
        sweeps.prune(500);
        assertThat(sweeps.snapshots()).hasSize(3);
    }

    @Test
    void should_count_a_retired_maintainer_as_stopped_at_once() {
        Epoch retired = epoch(7, NOW - 1_500, NOW - 1_600, "retired", null);
        SafeTime.Source s = SafeTime.epoch(retired, NOW - 1_000, null);
        assertThat(s.state()).isEqualTo("retired; sweep due");
        assertThat(s.doneBefore()).isEqualTo(NOW - 1_600);
    }
}
