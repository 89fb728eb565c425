package io.cassandragsi.repair.read;

import static io.cassandragsi.repair.read.EntryDecision.CHECK;
import static io.cassandragsi.repair.read.EntryDecision.CHECK_UNCLAIMED;
import static io.cassandragsi.repair.read.EntryDecision.MATCH;
import static io.cassandragsi.repair.read.EntryDecision.SKIP;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class EntryDecisionTest {
    private static UUID t(long ticks) {
        return Tids.minAtTicks(ticks);
    }

    private static final UUID Q = Tids.maxAtTicks(100);

    @Test
    void should_skip_an_entry_marked_after_its_tid_and_by_the_query_time() {
        assertThat(ReadKind.VERSIONED.atMoment(false, t(10), t(20), Q)).isEqualTo(SKIP);
        assertThat(ReadKind.UNVERSIONED.atMoment(false, t(10), t(20), Q)).isEqualTo(SKIP);
        assertThat(ReadKind.VERSIONED.atMoment(true, t(10), t(20), Q)).as("consistent reads trust a mark").isEqualTo(SKIP);
    }

    @Test
    void should_match_an_entry_whose_mark_is_not_later_than_its_tid_without_any_tombstone() {
        assertThat(ReadKind.VERSIONED.atMoment(false, t(30), t(20), Q)).isEqualTo(MATCH);
        assertThat(ReadKind.VERSIONED.atMoment(false, t(30), null, Q)).isEqualTo(MATCH);
        assertThat(ReadKind.UNVERSIONED.atMoment(false, t(30), t(30), Q)).isEqualTo(MATCH);
        assertThat(ReadKind.VERSIONED.atMoment(true, t(30), t(20), Q)).isEqualTo(CHECK);
    }

    @Test
    void should_check_versioned_entries_the_index_alone_cannot_decide_at_a_past_query_time() {
        assertThat(ReadKind.VERSIONED.atMoment(false, t(200), null, Q)).as("newer than q").isEqualTo(CHECK_UNCLAIMED);
        assertThat(ReadKind.VERSIONED.atMoment(false, t(10), t(150), Q)).as("marked after q").isEqualTo(CHECK_UNCLAIMED);
        assertThat(ReadKind.VERSIONED.atMoment(false, null, t(150), Q)).as("only a mark").isEqualTo(CHECK_UNCLAIMED);
        assertThat(ReadKind.VERSIONED.atMoment(false, null, t(50), Q)).isEqualTo(SKIP);
    }

    @Test
    void should_answer_unversioned_entries_from_tid_and_deleted_and_skip_expired_ones() {
        assertThat(ReadKind.UNVERSIONED.atMoment(false, null, null, Q)).as("its _tid expired").isEqualTo(SKIP);
        assertThat(ReadKind.UNVERSIONED.atMoment(true, null, null, Q)).isEqualTo(SKIP);
        assertThat(ReadKind.UNVERSIONED.atMoment(false, t(200), null, Q)).as("written after q").isEqualTo(SKIP);
        assertThat(ReadKind.UNVERSIONED.atMoment(false, t(10), t(150), Q)).as("marked after q").isEqualTo(MATCH);
        assertThat(ReadKind.UNVERSIONED.atMoment(true, t(10), null, Q)).isEqualTo(CHECK);
        assertThat(CHECK.claimed()).isTrue();
        assertThat(CHECK_UNCLAIMED.claimed()).isFalse();
    }

    @Test
    void should_decide_per_version_entries_by_the_tid_in_their_key() {
        assertThat(EntryDecision.ofVersionEntry(false, t(200), Q)).isEqualTo(SKIP);
        assertThat(EntryDecision.ofVersionEntry(false, t(20), Q)).isEqualTo(MATCH);
        assertThat(EntryDecision.ofVersionEntry(true, t(20), Q)).isEqualTo(CHECK);
    }

    /** A window from tick 100 to tick 200 (its versions: the one current at 100, those after it up to 200). */
    private static EntryDecision window(boolean versioned, boolean consistent, UUID tid, UUID deleted) {
        return (versioned ? ReadKind.VERSIONED : ReadKind.UNVERSIONED).inWindow(consistent, tid, deleted, Q, Tids.maxAtTicks(200));
    }

    @Test
    void should_skip_in_a_window_an_entry_deleted_before_the_window_starts() {
        assertThat(window(true, false, t(10), t(50))).isEqualTo(SKIP);
        assertThat(window(true, true, t(10), t(100))).as("deleted at the window's first moment").isEqualTo(SKIP);
        assertThat(window(false, false, t(10), t(50))).isEqualTo(SKIP);
    }

    @Test
    void should_match_in_a_window_an_unmarked_entry_that_starts_before_its_end() {
        assertThat(window(true, false, t(150), null)).as("starts in the window").isEqualTo(MATCH);
        assertThat(window(true, false, t(10), null)).as("current since before it").isEqualTo(MATCH);
        assertThat(window(true, false, t(10), t(5))).as("matches again").isEqualTo(MATCH);
        assertThat(window(true, true, t(150), null)).as("consistent: checked, claimed").isEqualTo(CHECK);
    }

    @Test
    void should_check_in_a_window_an_entry_the_index_cannot_place() {
        assertThat(window(true, false, t(10), t(150))).as("marked in the window: the mark may be late").isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, false, t(300), null)).as("newer than the window: an older interval may be in it").isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, false, null, t(150))).as("only a mark").isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, true, t(300), t(400))).isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, false, t(150), t(151))).as("a recompute's mark: the version went away").isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, false, t(150), t(300))).as("starts in it, marked after it: the version may be gone").isEqualTo(CHECK_UNCLAIMED);
        assertThat(window(true, false, t(150), t(160))).as("starts and ends in it").isEqualTo(CHECK_UNCLAIMED);
    }

    @Test
    void should_answer_unversioned_window_entries_from_their_last_interval() {
        assertThat(window(false, false, t(10), t(150))).as("ends in the window").isEqualTo(MATCH);
        assertThat(window(false, false, t(150), null)).isEqualTo(MATCH);
        assertThat(window(false, false, t(300), null)).as("the index keeps no earlier interval").isEqualTo(SKIP);
        assertThat(window(false, false, null, null)).as("expired").isEqualTo(SKIP);
    }

    @Test
    void should_decide_like_a_moment_when_the_window_is_one_moment() {
        UUID[] tids = {null, t(10), t(100), t(150), Q};
        for (boolean consistent : new boolean[] {false, true}) {
            for (UUID tid : tids) {
                for (UUID deleted : tids) {
                    assertThat(ReadKind.VERSIONED.inWindow(consistent, tid, deleted, Q, Q)).as("tid %s deleted %s", tid, deleted)
                            .isEqualTo(ReadKind.VERSIONED.atMoment(consistent, tid, deleted, Q));
                }
            }
        }
    }
}
