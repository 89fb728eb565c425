package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.helpers.NOPLogger;

/** Rate-limited logging of refused requests: a flood is counted, not logged line by line. */
class RejectLogTest {
    @Test
    void should_log_at_most_n_lines_a_minute_and_count_the_rest_when_flooded() {
        AtomicLong now = new AtomicLong();
        RejectLog log = new RejectLog(NOPLogger.NOP_LOGGER, 5, now::get);
        int admitted = 0;
        for (int i = 0; i < 1000; i++) {
            admitted += log.admit() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(5);
        assertThat(log.suppressed.sum()).isEqualTo(995);
        now.addAndGet(TimeUnit.SECONDS.toNanos(59));
        assertThat(log.admit()).isFalse();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(log.admit()).as("a new minute").isTrue();
    }

    @Test
    void should_cut_and_strip_control_characters_when_logging_request_text() {
        assertThat(RejectLog.clean("a\nb\r\u0000c")).isEqualTo("a?b??c");
        assertThat(RejectLog.clean("x".repeat(100_000))).hasSizeLessThan(RejectLog.MAX_LOGGED_CHARS + 40).endsWith("(100000 characters)");
    }
}
