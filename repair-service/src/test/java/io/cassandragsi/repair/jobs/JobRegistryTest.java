package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.repair.http.ErrorMapper;
import io.cassandragsi.repair.http.JobsAdmin;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The job registry behind GET /admin/jobs/{id}, with a launcher that runs nothing; no node. */
class JobRegistryTest {
    private final List<JobHandle<?>> started = new ArrayList<>();
    private final List<Object> options = new ArrayList<>();
    private final MemoryJobLedger ledger = new MemoryJobLedger();

    private final JobRegistry registry = new JobRegistry(new JobRegistry.Launcher() {
        @Override
        public JobHandle<RebuildResult> rebuild(String keyspace, String table, String index, RebuildOptions o) {
            if (table.equals("nope")) {
                throw new UnknownTargetException(keyspace + ".nope is not an indexed table");
            }
            options.add(o);
            JobHandle<RebuildResult> h = new JobHandle<>("rebuild-" + started.size(), Jobs.REBUILD, new Progress());
            started.add(h);
            return h;
        }

        @Override
        public JobHandle<CheckResult> check(String keyspace, String table, String index, CheckOptions o) {
            options.add(o);
            JobHandle<CheckResult> h = new JobHandle<>("check-" + started.size(), Jobs.CHECK, new Progress());
            started.add(h);
            return h;
        }
    }, () -> ledger);
    private final JobsAdmin admin = new JobsAdmin(registry);

    @SuppressWarnings("unchecked")
    private <R> JobHandle<R> handle(int i) {
        return (JobHandle<R>) started.get(i);
    }

    @Test
    void should_report_running_then_result_when_a_rebuild_finishes() {
        Map<String, Object> s = admin.start("ks", "t", "by_x", "rebuild", Map.of("parallelism", "3", "resume", "true"));
        assertThat(s).containsEntry("id", "rebuild-0").containsEntry("state", "running").containsEntry("index", "by_x");
        assertThat(((RebuildOptions) options.get(0)).parallelism()).isEqualTo(3);
        assertThat(((RebuildOptions) options.get(0)).resume()).isTrue();
        JobHandle<RebuildResult> h = handle(0);
        h.result.complete(new RebuildResult("rebuild-0", "ks", "t", List.of("by_x"), JobState.DONE, 32, 4, 32, 1000, 2000, 0,
                Duration.ofSeconds(2), null));
        Map<String, Object> done = admin.job("rebuild-0");
        assertThat(done).containsEntry("state", "done").containsEntry("error", null);
        @SuppressWarnings("unchecked")
        Map<String, Object> result = (Map<String, Object>) done.get("result");
        assertThat(result).containsEntry("rows", 1000L).containsEntry("ranges_skipped", 4).containsEntry("rows_per_second", 500L);
        assertThat(done.get("progress")).isInstanceOf(Map.class);
    }

    @Test
    void should_report_drift_when_a_check_finds_some() {
        admin.start("ks", "t", "*", "check", Map.of("fix", "true"));
        assertThat(((CheckOptions) options.get(0)).fix()).isTrue();
        JobHandle<CheckResult> h = handle(0);
        CheckResult.IndexReport r = new CheckResult.IndexReport("by_x", 10, 1, 0, 0, 0, 0, 2, 0, 0, 3, 0, 0, List.of("missing by_x[x=1]"));
        h.result.complete(new CheckResult("check-0", "ks", "t", JobState.DONE, true, List.of(r), 10, 10, Duration.ofSeconds(1), null,
                List.of()));
        Map<String, Object> s = admin.job("check-0");
        assertThat(s).containsEntry("state", "done").containsEntry("drift", true).containsEntry("index", "*");
    }

    @Test
    void should_refuse_a_second_job_when_the_same_target_is_running() {
        admin.start("ks", "t", "by_x", "rebuild", Map.of());
        assertThatThrownBy(() -> admin.start("ks", "t", "by_x", "rebuild", Map.of()))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(409));
        admin.start("ks", "t", "by_x", "check", Map.of()); // another kind is fine
        handle(0).cancel();
        assertThat(registry.cancel("rebuild-0")).isTrue();
        handle(0).result.complete(null);
        admin.start("ks", "t", "by_x", "rebuild", Map.of());
        assertThat(started).hasSize(3);
    }

    @Test
    void should_answer_4xx_when_parameters_or_names_are_bad() {
        assertThatThrownBy(() -> admin.start("ks", "t", "i", "rebuild", Map.of("fix", "true")))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(400));
        assertThatThrownBy(() -> admin.start("ks", "t", "i", "rebuild", Map.of("parallelism", "many")))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(400));
        assertThatThrownBy(() -> admin.start("ks", "t", "i", "rebuild", Map.of("parallelism", "0")))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(400));
        assertThatThrownBy(() -> admin.start("ks", "t", "i", "check", Map.of("fix", "maybe")))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(400));
        assertThatThrownBy(() -> admin.start("ks", "nope", "i", "rebuild", Map.of()))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(404));
        assertThatThrownBy(() -> admin.start("ks", "t", "i", "compact", Map.of()))
                .satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(404));
        assertThatThrownBy(() -> admin.job("nobody")).satisfies(e -> assertThat(ErrorMapper.status(e)).isEqualTo(404));
    }

    @Test
    void should_report_a_failed_job_with_its_error_when_it_could_not_run() {
        admin.start("ks", "t", "i", "rebuild", Map.of());
        handle(0).result.completeExceptionally(new JobFailedException("Cassandra said no"));
        assertThat(admin.job("rebuild-0")).containsEntry("state", "failed").containsEntry("error", "Cassandra said no");
    }

    @Test
    void should_read_the_ledger_when_the_job_ran_in_another_process() {
        Instant t = Instant.parse("2026-01-01T00:00:00Z");
        ledger.create(new JobLedger.Header("rebuild-old", Jobs.REBUILD, "ks", "t", "by_x", 8, JobState.RUNNING, null, t, t));
        ledger.finished("rebuild-old", new JobLedger.RangeDone(TokenRanges.split(8).get(0), 10, 20, t));
        ledger.finished("rebuild-old", new JobLedger.RangeDone(TokenRanges.split(8).get(0), 10, 20, t)); // recorded twice: one range
        Map<String, Object> s = admin.job("rebuild-old");
        assertThat(s).containsEntry("state", "running").containsEntry("live", false);
        assertThat(s.get("progress")).isEqualTo(Map.of("ranges_done", 1, "ranges_total", 8, "rows", 10L, "writes", 20L));
        assertThat(ledger.latestUnfinished(Jobs.REBUILD, "ks", "t", "by_x")).isPresent();
        ledger.state("rebuild-old", JobState.DONE, null);
        assertThat(ledger.latestUnfinished(Jobs.REBUILD, "ks", "t", "by_x")).isEmpty();
    }
}
