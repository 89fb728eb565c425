package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How long a starting node is waited for: while its logs grow, and within a bound only when one is asked for. */
class StartWaitTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void should_wait_as_long_as_the_logs_grow_when_no_bound_is_asked_for() {
        StartWait w = new StartWait(Duration.ofSeconds(120), null, T0);
        for (int minute = 0; minute < 30; minute++) { // a half-hour commit log replay that logs now and then
            assertThat(w.observe(1_000L * minute, T0.plusSeconds(60L * minute))).isEqualTo(StartWait.Verdict.WAIT);
        }
    }

    @Test
    void should_take_the_node_for_stuck_when_no_log_grew_for_the_stall_bound() {
        StartWait w = new StartWait(Duration.ofSeconds(120), null, T0);
        assertThat(w.observe(500, T0)).isEqualTo(StartWait.Verdict.WAIT);
        assertThat(w.observe(500, T0.plusSeconds(120))).isEqualTo(StartWait.Verdict.WAIT);
        assertThat(w.silentFor(T0.plusSeconds(121))).isEqualTo(Duration.ofSeconds(121));
        assertThat(w.observe(500, T0.plusSeconds(121))).isEqualTo(StartWait.Verdict.STALLED);
        assertThat(w.observe(501, T0.plusSeconds(122))).as("it logged again").isEqualTo(StartWait.Verdict.WAIT);
    }

    @Test
    void should_give_up_at_the_bound_asked_for_even_when_the_node_makes_progress() {
        StartWait w = new StartWait(Duration.ofSeconds(120), Duration.ofSeconds(60), T0);
        assertThat(w.observe(1, T0.plusSeconds(59))).isEqualTo(StartWait.Verdict.WAIT);
        assertThat(w.observe(2, T0.plusSeconds(61))).isEqualTo(StartWait.Verdict.TIMED_OUT);
    }
}
