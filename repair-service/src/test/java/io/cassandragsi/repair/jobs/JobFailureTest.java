package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.DriverTimeoutException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class JobFailureTest {
    @Test
    void should_not_repeat_what_the_driver_said() {
        Throwable f = new CompletionException(new DriverTimeoutException("Query timed out after PT2S on /10.9.8.7:9042: SELECT * FROM ks.secret"));

        assertThat(JobFailure.message(f)).isEqualTo("Cassandra did not answer (DriverTimeoutException); the service log has the details")
                .doesNotContain("10.9.8.7").doesNotContain("SELECT");
    }

    @Test
    void should_keep_the_message_of_anything_else() {
        assertThat(JobFailure.message(new IllegalStateException("index by_x has no table"))).isEqualTo("index by_x has no table");
        assertThat(JobFailure.message(new IllegalStateException())).isEqualTo("IllegalStateException");
    }
}
