package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The repair service's decisions after a repair, without a node (docs/design.md section 7.5). */
class NextStepTest {
    private static final UUID TID = UUID.fromString("00000000-0000-1000-8000-000000000000");

    private static MarkerGroup group(int flags) {
        return new MarkerGroup("ks", "t", ByteBuffer.wrap(new byte[] {1}), ByteBuffer.allocate(0), TID, TID, flags, List.of(TID), TID, false);
    }

    @Test
    void should_finish_a_done_repair() {
        assertThat(NextStep.after(group(0), Outcome.DONE, 0, 100).kind()).isEqualTo(NextStep.Kind.DONE);
    }

    @Test
    void should_take_one_second_pass_taking_the_unseen_for_gone_then_finish() {
        NextStep first = NextStep.after(group(0), Outcome.AGAIN, 0, 100);
        assertThat(first.kind()).isEqualTo(NextStep.Kind.AGAIN);
        assertThat(first.delayMillis()).isEqualTo(NextStep.AGAIN_AFTER.toMillis());
        assertThat(first.group().unseenGone()).isTrue();
        assertThat(NextStep.after(first.group(), Outcome.AGAIN, 1, 1100).kind()).isEqualTo(NextStep.Kind.DONE);
    }

    @Test
    void should_pass_again_over_a_conditional_write_until_a_serial_read_must_have_seen_it() {
        MarkerGroup cas = group(QueueLayout.FLAG_CAS).withUnseenGone();
        assertThat(NextStep.after(cas, Outcome.AGAIN, 5, 60_000).kind()).isEqualTo(NextStep.Kind.AGAIN);
        assertThat(NextStep.after(cas, Outcome.AGAIN, 5, 60_000).delayMillis()).as("at most 4 s").isEqualTo(4_000);
        assertThat(NextStep.after(cas, Outcome.AGAIN, 9, NextStep.CAS_SETTLE.toMillis() + 1).kind()).isEqualTo(NextStep.Kind.DONE);
    }

    @Test
    void should_wait_for_an_invisible_version_then_recompute_then_give_up() {
        NextStep early = NextStep.after(group(0), Outcome.RETRY, 2, 500);
        assertThat(early.kind()).isEqualTo(NextStep.Kind.AGAIN);
        assertThat(early.delayMillis()).isEqualTo(400);
        assertThat(early.group().recompute()).isFalse();
        NextStep late = NextStep.after(group(0), Outcome.RETRY, 9, NextStep.INVISIBLE_FOR.toMillis() + 1);
        assertThat(late.group().recompute()).as("recomputed once invisible for long").isTrue();
        assertThat(late.delayMillis()).isZero();
        MarkerGroup recompute = late.group();
        assertThat(NextStep.after(recompute, Outcome.RETRY, 10, 60_000).delayMillis()).as("at most 30 s").isEqualTo(25_600);
        assertThat(NextStep.after(recompute, Outcome.RETRY, 30, NextStep.GIVE_UP.toMillis() + 1).kind()).isEqualTo(NextStep.Kind.GAVE_UP);
    }

    @Test
    void should_count_a_conditional_write_never_visible_as_not_applied() {
        MarkerGroup cas = group(QueueLayout.FLAG_CAS);
        assertThat(NextStep.after(cas, Outcome.RETRY, 3, 60_000).kind()).as("not recomputed: a SERIAL read decides").isEqualTo(NextStep.Kind.AGAIN);
        assertThat(NextStep.after(cas, Outcome.RETRY, 30, NextStep.CAS_SETTLE.toMillis() + 1).kind()).isEqualTo(NextStep.Kind.CAS_NOT_APPLIED);
    }

    @Test
    void should_read_a_conditional_write_at_serial_only_once_its_client_round_has_ended() {
        MarkerGroup cas = group(QueueLayout.FLAG_CAS);
        assertThat(cas.serial()).isFalse();
        assertThat(NextStep.after(cas, Outcome.RETRY, 1, 300).group().serial()).as("its round may still run").isFalse();
        assertThat(NextStep.after(cas, Outcome.AGAIN, 1, 300).group().serial()).isFalse();
        assertThat(NextStep.after(cas, null, 1, 300).group().serial()).isFalse();
        long after = NextStep.CAS_SERIAL_AFTER.toMillis();
        assertThat(NextStep.after(cas, Outcome.RETRY, 4, after).group().serial()).isTrue();
        assertThat(NextStep.after(cas, Outcome.AGAIN, 4, after).group().serial()).isTrue();
        assertThat(NextStep.after(cas, null, 4, after).group().serial()).isTrue();
        assertThat(NextStep.after(group(0), Outcome.RETRY, 4, after).group().serial()).as("a plain write never").isFalse();
    }

    @Test
    void should_spread_the_retries_of_failed_attempts_by_row() {
        java.util.Set<Long> delays = new java.util.HashSet<>();
        for (int i = 0; i < 20; i++) {
            MarkerGroup g = new MarkerGroup("ks", "t", ByteBuffer.wrap(new byte[] {(byte) i}), ByteBuffer.allocate(0), TID, TID, 0, List.of(TID), TID,
                    false);
            long d = NextStep.after(g, null, 3, 1_000).delayMillis();
            assertThat(d).isBetween(1_200L, 2_000L); // 1.6 s, spread over 0.75 to 1.25 times
            assertThat(NextStep.after(g, null, 3, 1_000).delayMillis()).as("the same row, the same delay").isEqualTo(d);
            delays.add(d);
        }
        assertThat(delays).as("rows that failed together come back apart").hasSizeGreaterThan(10);
    }

    @Test
    void should_wait_ten_minutes_for_a_table_whose_indexes_are_not_known_yet() {
        assertThat(NextStep.after(group(0), Outcome.DROPPED, 0, 1_000).delayMillis()).isEqualTo(500);
        assertThat(NextStep.after(group(0), Outcome.DROPPED, 40, NextStep.GIVE_UP.toMillis() + 1).kind()).isEqualTo(NextStep.Kind.UNKNOWN_TABLE);
    }

    @Test
    void should_retry_a_failed_repair_with_backoff_and_never_give_up() {
        assertThat(NextStep.after(group(0), null, 0, 100).delayMillis()).isBetween(150L, 250L); // 200 ms, spread by row
        NextStep old = NextStep.after(group(0), null, 40, 3_600_000);
        assertThat(old.kind()).isEqualTo(NextStep.Kind.AGAIN);
        assertThat(old.delayMillis()).isBetween(19_200L, 32_000L);
    }
}
