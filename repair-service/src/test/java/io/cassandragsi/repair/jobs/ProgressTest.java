package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProgressTest {

    @Test
    void should_have_no_eta_when_no_range_finished_in_this_run() {
        Progress p = new Progress();
        p.start(10, 4); // 4 finished by an earlier run
        ProgressSnapshot s = p.snapshot();
        assertThat(s.rangesDone()).isEqualTo(4);
        assertThat(s.eta()).isNull();
        assertThat(s.fraction()).isEqualTo(0.4);
    }

    @Test
    void should_estimate_from_ranges_of_this_run_when_resumed() throws InterruptedException {
        Progress p = new Progress();
        p.start(10, 4);
        Thread.sleep(20);
        p.rangeDone();
        p.rangeDone();
        p.rows(1000);
        ProgressSnapshot s = p.snapshot();
        // 2 ranges in ~20 ms, 4 to go: about twice the elapsed time
        assertThat(s.eta().toNanos()).isBetween((long) (s.elapsed().toNanos() * 1.9), (long) (s.elapsed().toNanos() * 2.1));
        assertThat(s.rowsPerSecond()).isPositive();
        assertThat(s.line()).contains("6/10 ranges").contains("1,000 rows");
        p.finish("done");
        assertThat(p.snapshot().eta()).isZero();
        assertThat(p.snapshot().phase()).isEqualTo("done");
    }
}
