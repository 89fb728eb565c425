package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The in-node maintainer's decisions after a turn, without a node. */
class NextTurnTest {
    private static final long HAND_OFF_AFTER = 5_000;

    @Test
    void should_be_done_when_the_repair_is_done() {
        assertThat(NextTurn.after(Outcome.DONE, false, 30, 0, HAND_OFF_AFTER)).isEqualTo(NextTurn.DONE);
    }

    @Test
    void should_take_a_second_pass_a_second_later_taking_the_unseen_for_gone_when_the_repair_says_again() {
        NextTurn first = NextTurn.after(Outcome.AGAIN, false, 30, 0, HAND_OFF_AFTER);
        assertThat(first).isEqualTo(new NextTurn(NextTurn.Kind.AGAIN, 1000, true));
        assertThat(NextTurn.after(Outcome.AGAIN, true, 1030, 1, HAND_OFF_AFTER)).as("after the second pass").isEqualTo(NextTurn.DONE);
    }

    @Test
    void should_retry_a_version_not_visible_with_backoff_and_hand_it_off_once_it_is_old() {
        assertThat(NextTurn.after(Outcome.RETRY, false, 15, 0, HAND_OFF_AFTER)).isEqualTo(new NextTurn(NextTurn.Kind.AGAIN, 20, false));
        assertThat(NextTurn.after(Outcome.RETRY, false, 200, 3, HAND_OFF_AFTER).delayMillis()).isEqualTo(160);
        assertThat(NextTurn.after(Outcome.RETRY, false, 3000, 9, HAND_OFF_AFTER).delayMillis()).as("at most a second").isEqualTo(1000);
        assertThat(NextTurn.after(Outcome.RETRY, false, 5001, 9, HAND_OFF_AFTER)).isEqualTo(NextTurn.HAND_OFF);
    }

    @Test
    void should_hand_off_what_is_not_a_plain_repair_and_what_has_no_table() {
        assertThat(NextTurn.after(Outcome.HANDOFF, false, 15, 0, HAND_OFF_AFTER)).isEqualTo(NextTurn.HAND_OFF);
        assertThat(NextTurn.after(Outcome.DROPPED, false, 15, 0, HAND_OFF_AFTER)).isEqualTo(NextTurn.HAND_OFF);
    }

    @Test
    void should_retry_a_failure_with_backoff_and_hand_it_off_after_twice_the_wait() {
        assertThat(NextTurn.after(null, false, 15, 0, HAND_OFF_AFTER)).isEqualTo(new NextTurn(NextTurn.Kind.AGAIN, 50, false));
        assertThat(NextTurn.after(null, true, 2000, 6, HAND_OFF_AFTER)).as("a second pass stays one").isEqualTo(new NextTurn(NextTurn.Kind.AGAIN, 2000, true));
        assertThat(NextTurn.after(null, false, 9_999, 20, HAND_OFF_AFTER).kind()).isEqualTo(NextTurn.Kind.AGAIN);
        assertThat(NextTurn.after(null, false, 10_001, 20, HAND_OFF_AFTER)).isEqualTo(NextTurn.HAND_OFF);
    }
}
