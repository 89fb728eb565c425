package io.cassandragsi.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** When the CDC backstop keeps a segment and when it replays an epoch (docs/design.md section 7.11). */
class CdcRetentionTest {
    private static final long NOW = 1_000_000_000L;
    private static final long SYNC = 10_000;

    private static CdcRetention.Epoch running(int shard, long doneBefore) {
        return new CdcRetention.Epoch(shard, false, NOW - 200, doneBefore);
    }

    private static CdcRetention.Epoch silentFor(int shard, long millis) {
        return new CdcRetention.Epoch(shard, false, NOW - millis, NOW - millis - 500);
    }

    @Test
    void should_keep_a_segment_until_every_running_epoch_has_passed_it_by_the_skew() {
        long changed = NOW - 5_000;
        List<CdcRetention.Epoch> passed = List.of(running(1, changed + CdcRetention.SKEW_MS + 1), running(2, NOW));
        assertThat(CdcRetention.deletable(changed, passed, Set.of(), NOW)).isTrue();
        List<CdcRetention.Epoch> behind = List.of(running(1, changed + CdcRetention.SKEW_MS), running(2, NOW));
        assertThat(CdcRetention.deletable(changed, behind, Set.of(), NOW)).as("one epoch has not passed it by the skew").isFalse();
    }

    @Test
    void should_keep_a_segment_for_a_stopped_epoch_until_it_is_replayed_and_ignore_retired_ones() {
        long changed = NOW - 60_000;
        CdcRetention.Epoch stopped = silentFor(3, 30_000);
        assertThat(CdcRetention.deletable(changed, List.of(running(1, NOW), stopped), Set.of(), NOW)).isFalse();
        assertThat(CdcRetention.deletable(changed, List.of(running(1, NOW), stopped), Set.of(3), NOW)).isTrue();
        CdcRetention.Epoch retired = new CdcRetention.Epoch(4, true, NOW - 30_000, changed - 10_000);
        assertThat(CdcRetention.deletable(changed, List.of(running(1, NOW), retired), Set.of(), NOW))
                .as("a retired maintainer handed off what it had not finished").isTrue();
    }

    @Test
    void should_replay_an_epoch_once_it_has_been_silent_for_the_stop_rule_and_a_commit_log_sync_period() {
        long due = CdcRetention.STOPPED_AFTER_MS + SYNC + CdcRetention.SKEW_MS;
        assertThat(CdcRetention.toReplay(silentFor(5, due - 100), Set.of(), NOW, SYNC)).as("its last writes may not be readable yet").isFalse();
        assertThat(CdcRetention.toReplay(silentFor(5, due + 100), Set.of(), NOW, SYNC)).isTrue();
        assertThat(CdcRetention.toReplay(silentFor(5, due + 100), Set.of(5), NOW, SYNC)).as("replayed already").isFalse();
        assertThat(CdcRetention.toReplay(new CdcRetention.Epoch(6, true, NOW - due - 100, 0), Set.of(), NOW, SYNC)).isFalse();
        assertThat(CdcRetention.toReplay(running(7, NOW), Set.of(), NOW, SYNC)).isFalse();
    }

    @Test
    void should_hold_the_progress_at_an_epoch_silent_for_two_seconds_until_it_is_replayed_here() {
        CdcRetention.Epoch own = running(1, NOW);
        CdcRetention.Epoch slow = new CdcRetention.Epoch(2, false, NOW - CdcRetention.SUSPECT_AFTER_MS + 100, NOW - 5_000);
        assertThat(CdcRetention.holdBefore(List.of(own, slow), 1, Set.of(), NOW)).as("a heartbeat 1.9 s old: no hold").isEqualTo(Long.MAX_VALUE);
        CdcRetention.Epoch silent = silentFor(3, CdcRetention.SUSPECT_AFTER_MS + 100);
        CdcRetention.Epoch older = silentFor(4, 60_000);
        assertThat(CdcRetention.holdBefore(List.of(own, silent, older), 1, Set.of(), NOW)).as("the oldest silent epoch's done_before")
                .isEqualTo(older.doneBeforeMillis());
        assertThat(CdcRetention.holdBefore(List.of(own, silent, older), 1, Set.of(4), NOW)).as("once one is replayed here, the other")
                .isEqualTo(silent.doneBeforeMillis());
        CdcRetention.Epoch retired = new CdcRetention.Epoch(5, true, NOW - 60_000, NOW - 70_000);
        assertThat(CdcRetention.holdBefore(List.of(own, retired), 1, Set.of(), NOW)).as("a retired maintainer handed its writes off")
                .isEqualTo(Long.MAX_VALUE);
        assertThat(CdcRetention.holdBefore(List.of(silentFor(1, 60_000)), 1, Set.of(), NOW)).as("never its own epoch").isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void should_name_as_behind_a_lost_segment_exactly_the_epochs_it_was_kept_for() {
        long changed = NOW - 5_000;
        CdcRetention.Epoch past = running(1, changed + CdcRetention.SKEW_MS + 1);
        CdcRetention.Epoch slow = running(2, changed);
        CdcRetention.Epoch stopped = silentFor(3, 30_000);
        CdcRetention.Epoch replayedHere = silentFor(4, 30_000);
        CdcRetention.Epoch retired = new CdcRetention.Epoch(5, true, NOW - 30_000, changed - 10_000);
        List<CdcRetention.Epoch> all = List.of(past, slow, stopped, replayedHere, retired);
        assertThat(CdcRetention.behind(changed, all, Set.of(4), NOW)).extracting(b -> b.shard()).containsExactly(2, 3);
        assertThat(CdcRetention.behind(changed, all, Set.of(4), NOW).get(0).doneBeforeMillis()).isEqualTo(changed);
        assertThat(CdcRetention.behind(changed, all, Set.of(4), NOW)).allMatch(b -> b.lastChangeMillis() == changed);
        assertThat(CdcRetention.deletable(changed, List.of(past, replayedHere, retired), Set.of(4), NOW))
                .as("behind is empty exactly when the segment was deletable").isTrue();
        assertThat(CdcRetention.behind(changed, List.of(past, replayedHere, retired), Set.of(4), NOW)).isEmpty();
    }
}
