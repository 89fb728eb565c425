package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.read.ReadException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ErrorsTest {
    @Test
    void should_give_each_kind_of_refusal_its_type_code_and_detail() {
        Throwable bad = Errors.map(new CompletionException(ReadException.badRequest("bad_limit", "limit must be 1 to 1000, not 0")));
        assertThat(bad).isInstanceOf(GsiBadRequestException.class).hasMessage("limit must be 1 to 1000, not 0");
        assertThat(((GsiException) bad).error()).isEqualTo("bad_limit");
        assertThat(Errors.map(ReadException.notFound("table wiki.revisions has no index 'x'"))).isInstanceOf(GsiNotFoundException.class)
                .hasMessageContaining("no index 'x'");
        IllegalStateException driver = new IllegalStateException("all nodes failed");
        Throwable down = Errors.map(ReadException.unavailable("Cassandra did not answer: all nodes failed", driver));
        assertThat(down).isInstanceOf(GsiUnavailableException.class).hasCause(driver);
        Throwable late = Errors.map(ReadException.freshTimeout("the safe time is 2.5 s behind", 3));
        assertThat(late).isInstanceOf(GsiNotReadyException.class);
        assertThat(((GsiNotReadyException) late).retryAfter()).contains(Duration.ofSeconds(3));
        assertThat(((GsiException) late).error()).isEqualTo("fresh_timeout");
        assertThat(((GsiNotReadyException) Errors.map(ReadException.safeTimeUnknown("not read every shard yet"))).retryAfter()).isEmpty();
    }

    @Test
    void should_leave_other_failures_as_they_are() {
        IllegalStateException bug = new IllegalStateException("a bug");
        assertThat(Errors.map(new CompletionException(bug))).isSameAs(bug);
        assertThat(Errors.unchecked(bug)).isSameAs(bug);
    }
}
