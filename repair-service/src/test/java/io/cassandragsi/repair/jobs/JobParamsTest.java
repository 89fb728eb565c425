package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.cassandragsi.repair.http.ErrorMapper;
import io.cassandragsi.repair.http.JobParams;
import io.cassandragsi.repair.http.JobsAdmin;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Bounds of the job parameters of POST /admin/.../rebuild|check: 400 outside them. */
class JobParamsTest {
    /** The status a start answers: 200, or the refusal's. */
    private static int status(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Throwable e = catchThrowable(call);
        return e == null ? 200 : ErrorMapper.status(e);
    }

    @Test
    void should_answer_400_when_a_job_parameter_is_out_of_bounds() {
        for (Map<String, String> p : new Map[] {Map.of("parallelism", "0"), Map.of("parallelism", "65"), Map.of("parallelism", "65536"),
            Map.of("splits", "4097"), Map.of("splits", "65536"), Map.of("splits", "-1"), Map.of("max_in_flight", "0"),
            Map.of("max_in_flight", "99999999999999999999"), Map.of("parallelism", "1e3"), Map.of("parallelism", ""),
            Map.of("job_id", "../x"), Map.of("job_id", "j".repeat(65))}) {
            assertThat(status(() -> JobParams.rebuildOptions(p))).as("rebuild %s", p).isEqualTo(400);
        }
        for (Map<String, String> p : new Map[] {Map.of("examples", "101"), Map.of("examples", "-1"), Map.of("parallelism", "100")}) {
            assertThat(status(() -> JobParams.checkOptions(p))).as("check %s", p).isEqualTo(400);
        }
    }

    @Test
    void should_accept_parameters_at_their_bounds() {
        RebuildOptions r = JobParams.rebuildOptions(Map.of("parallelism", "64", "splits", "4096", "max_in_flight", "4096",
                "job_id", "rebuild-20261123-200000-0a1b"));
        assertThat(r.parallelism()).isEqualTo(JobParams.MAX_PARALLELISM);
        assertThat(r.splits()).isEqualTo(JobParams.MAX_SPLITS);
        CheckOptions c = JobParams.checkOptions(Map.of("parallelism", "1", "splits", "0", "examples", "100"));
        assertThat(c.splits()).as("0: automatic").isZero();
        assertThat(c.examples()).isEqualTo(JobParams.MAX_EXAMPLES);
    }

    @Test
    void should_answer_409_when_a_second_job_of_the_same_kind_and_index_starts_while_the_first_is_starting() throws Exception {
        java.util.concurrent.CountDownLatch inLaunch = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        JobRegistry registry = new JobRegistry(new JobRegistry.Launcher() {
            @Override
            public JobHandle<RebuildResult> rebuild(String keyspace, String table, String index, RebuildOptions o) {
                inLaunch.countDown();
                try {
                    release.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                return new JobHandle<>("rebuild-" + index, Jobs.REBUILD, new Progress());
            }

            @Override
            public JobHandle<CheckResult> check(String keyspace, String table, String index, CheckOptions o) {
                return new JobHandle<>("check-1", Jobs.CHECK, new Progress());
            }
        }, MemoryJobLedger::new);
        JobsAdmin admin = new JobsAdmin(registry);
        Thread first = new Thread(() -> admin.start("ks", "t", "by_x", "rebuild", Map.of()));
        first.start();
        inLaunch.await();
        assertThat(status(() -> admin.start("ks", "t", "by_x", "rebuild", Map.of()))).isEqualTo(409);
        assertThat(status(() -> admin.start("ks", "t", "by_x", "check", Map.of()))).as("another kind").isEqualTo(200);
        release.countDown();
        first.join(5000);
        assertThat(status(() -> admin.start("ks", "t", "by_x", "rebuild", Map.of()))).as("the first runs").isEqualTo(409);
        assertThat(status(() -> admin.start("ks", "t", "by_y", "rebuild", Map.of()))).as("another index").isEqualTo(200);
    }
}
