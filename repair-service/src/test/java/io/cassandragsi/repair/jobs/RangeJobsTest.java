package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Adding up the ranges' findings of a check run range by range elsewhere (docs/design.md section 9.5). */
class RangeJobsTest {
    private static CheckResult.IndexReport report(String index, long n, String... examples) {
        return new CheckResult.IndexReport(index, 10 * n, n, 2 * n, n, n, 0, n, 3 * n, 0, 0, 0, n, List.of(examples));
    }

    @Test
    void should_add_every_count_and_keep_the_first_examples_when_ranges_are_merged() {
        List<RangeJobs.Checked> ranges = List.of(new RangeJobs.Checked(List.of(report("a", 1, "a1", "a2"), report("b", 0)), 5, 7),
                new RangeJobs.Checked(List.of(report("a", 2, "a3"), report("b", 4, "b1")), 6, 8));
        CheckResult r = RangeJobs.merge("spark-check-x", "ks", "t", false, List.of("a", "b"), ranges, 2, Duration.ofSeconds(3));
        assertThat(r.rows()).isEqualTo(11);
        assertThat(r.entries()).isEqualTo(15);
        assertThat(r.state()).isEqualTo(JobState.DONE);
        assertThat(r.index("a")).isEqualTo(new CheckResult.IndexReport("a", 30, 3, 6, 3, 3, 0, 3, 9, 0, 0, 0, 3, List.of("a1", "a2")));
        assertThat(r.index("b")).isEqualTo(report("b", 4, "b1"));
        assertThat(r.drift()).isTrue();
    }

    @Test
    void should_report_every_target_index_clean_when_no_range_found_anything() {
        CheckResult r = RangeJobs.merge("id", "ks", "t", true, List.of("a"), List.of(), 5, Duration.ZERO);
        assertThat(r.index("a")).isEqualTo(new CheckResult.IndexReport("a", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of()));
        assertThat(r.drift()).isFalse();
    }
}
