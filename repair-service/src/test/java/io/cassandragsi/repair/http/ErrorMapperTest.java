package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.jobs.InvalidJobException;
import io.cassandragsi.repair.jobs.JobConflictException;
import io.cassandragsi.repair.jobs.UnknownTargetException;
import io.cassandragsi.repair.read.ReadException;
import org.junit.jupiter.api.Test;

/** The one mapping from exception types to status codes and error codes. */
class ErrorMapperTest {
    @Test
    void should_map_each_domain_failure_to_its_status_when_it_reaches_http() {
        assertThat(ErrorMapper.map(ReadException.badRequest("bad_value", "no"))).isEqualTo(new ErrorMapper.Answer(400, "bad_value", "no", true));
        assertThat(ErrorMapper.map(ReadException.notFound("gone"))).isEqualTo(new ErrorMapper.Answer(404, "not_found", "gone", true));
        assertThat(ErrorMapper.map(ReadException.unavailable("down", null)))
                .isEqualTo(new ErrorMapper.Answer(503, "cassandra_unavailable", "down", true));
        assertThat(ErrorMapper.map(ReadException.safeTimeUnknown("shard 3 has not reported")))
                .as("the service's own reason, not Cassandra's words: shown").isEqualTo(
                        new ErrorMapper.Answer(503, "safe_time_unknown", "shard 3 has not reported", true, true));
        assertThat(ErrorMapper.map(new UnknownTargetException("ks.t is not indexed")))
                .isEqualTo(new ErrorMapper.Answer(404, "not_found", "ks.t is not indexed", true));
        assertThat(ErrorMapper.map(new InvalidJobException("bad id", null))).isEqualTo(new ErrorMapper.Answer(400, "bad_job", "bad id", true));
        assertThat(ErrorMapper.map(new JobConflictException("runs"))).isEqualTo(new ErrorMapper.Answer(409, "job_running", "runs", true));
        assertThat(ErrorMapper.map(new HttpError(421, "misdirected_request", "elsewhere")))
                .isEqualTo(new ErrorMapper.Answer(421, "misdirected_request", "elsewhere", true));
    }

    @Test
    void should_answer_500_when_the_failure_is_unexpected() {
        ErrorMapper.Answer a = ErrorMapper.map(new IllegalStateException("bug"));
        assertThat(a.status()).isEqualTo(500);
        assertThat(a.error()).isEqualTo("internal_error");
        assertThat(a.known()).isFalse();
    }
}
