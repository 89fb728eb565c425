package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.DriverTimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A range whose task failed because Cassandra did not answer is tried again; any other failure ends it at once. */
class RangeRunnerTest {
    private static final TokenRange RANGE = new TokenRange(0, 100);

    @Test
    void should_try_a_range_again_when_cassandra_did_not_answer() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        boolean done = RangeRunner.runRetrying((range, stop) -> {
            if (calls.incrementAndGet() == 1) {
                throw new JobFailedException("read failed", new DriverTimeoutException("Query timed out after PT2S"));
            }
            return true;
        }, RANGE, () -> false);
        assertThat(done).isTrue();
        assertThat(calls).hasValue(2);
    }

    @Test
    void should_fail_at_once_on_a_failure_that_is_not_cassandra_silent() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> RangeRunner.runRetrying((range, stop) -> {
            calls.incrementAndGet();
            throw new IllegalStateException("a bug");
        }, RANGE, () -> false)).isInstanceOf(IllegalStateException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void should_run_every_range_when_one_failed_once() {
        AtomicInteger failures = new AtomicInteger();
        RangeRunner.Outcome o = RangeRunner.run("test", TokenRanges.split(4), 2, () -> false, (range, stop) -> {
            if (range.start() == Long.MIN_VALUE && failures.getAndIncrement() == 0) {
                throw new DriverTimeoutException("Query timed out after PT2S");
            }
            return true;
        });
        assertThat(o.failure()).isNull();
        assertThat(o.done()).isEqualTo(4);
    }
}
