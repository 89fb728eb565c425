package io.cassandragsi.repair.read;

import static io.cassandragsi.repair.read.EntryDecision.CHECK_CURRENT;
import static io.cassandragsi.repair.read.EntryDecision.CHECK_CURRENT_UNCLAIMED;
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
        assertThat(EntryDecision.ofEntry(true, false, t(10), t(20), Q)).isEqualTo(SKIP);
        assertThat(EntryDecision.ofEntry(false, false, t(10), t(20), Q)).isEqualTo(SKIP);
        assertThat(EntryDecision.ofEntry(true, true, t(10), t(20), Q)).as("consistent reads trust a mark").isEqualTo(SKIP);
    }

    @Test
    void should_match_an_entry_whose_mark_is_not_later_than_its_tid_without_any_tombstone() {
        assertThat(EntryDecision.ofEntry(true, false, t(30), t(20), Q)).isEqualTo(MATCH);
        assertThat(EntryDecision.ofEntry(true, false, t(30), null, Q)).isEqualTo(MATCH);
        assertThat(EntryDecision.ofEntry(false, false, t(30), t(30), Q)).isEqualTo(MATCH);
        assertThat(EntryDecision.ofEntry(true, true, t(30), t(20), Q)).isEqualTo(CHECK_CURRENT);
    }

    @Test
    void should_check_versioned_entries_the_index_alone_cannot_decide_at_a_past_query_time() {
        assertThat(EntryDecision.ofEntry(true, false, t(200), null, Q)).as("newer than q").isEqualTo(CHECK_CURRENT_UNCLAIMED);
        assertThat(EntryDecision.ofEntry(true, false, t(10), t(150), Q)).as("marked after q").isEqualTo(CHECK_CURRENT_UNCLAIMED);
        assertThat(EntryDecision.ofEntry(true, false, null, t(150), Q)).as("only a mark").isEqualTo(CHECK_CURRENT_UNCLAIMED);
        assertThat(EntryDecision.ofEntry(true, false, null, t(50), Q)).isEqualTo(SKIP);
    }

    @Test
    void should_answer_unversioned_entries_from_tid_and_deleted_and_skip_expired_ones() {
        assertThat(EntryDecision.ofEntry(false, false, null, null, Q)).as("its _tid expired").isEqualTo(SKIP);
        assertThat(EntryDecision.ofEntry(false, true, null, null, Q)).isEqualTo(SKIP);
        assertThat(EntryDecision.ofEntry(false, false, t(200), null, Q)).as("written after q").isEqualTo(SKIP);
        assertThat(EntryDecision.ofEntry(false, false, t(10), t(150), Q)).as("marked after q").isEqualTo(MATCH);
        assertThat(EntryDecision.ofEntry(false, true, t(10), null, Q)).isEqualTo(CHECK_CURRENT);
        assertThat(CHECK_CURRENT.claimed()).isTrue();
        assertThat(CHECK_CURRENT_UNCLAIMED.claimed()).isFalse();
    }

    @Test
    void should_decide_per_version_entries_by_the_tid_in_their_key() {
        assertThat(EntryDecision.ofVersionEntry(false, t(200), Q)).isEqualTo(SKIP);
        assertThat(EntryDecision.ofVersionEntry(false, t(20), Q)).isEqualTo(MATCH);
        assertThat(EntryDecision.ofVersionEntry(true, t(20), Q)).isEqualTo(CHECK_CURRENT);
    }
}
