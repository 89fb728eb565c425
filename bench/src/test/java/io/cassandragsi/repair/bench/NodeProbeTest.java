package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Parsing of /proc files; no process is started. */
class NodeProbeTest {
    @Test
    void should_add_utime_and_stime_when_the_command_name_has_spaces_and_parentheses() {
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 90000 0 12 0 1500 250 3 4 20 0 77 0 1234 5000000 300000"
                + " 18446744073709551615 1 1 0 0 0 0 0 2 0 0 0 17 1 0 0 0 0 0";
        assertThat(NodeProbe.parseCpuTicks(stat)).isEqualTo(1750);
    }

    @Test
    void should_count_idle_and_iowait_as_idle_in_proc_stat() {
        long[] busyTotal = NodeProbe.parseProcStat("cpu  100 5 50 800 40 1 2 3 7 0");
        assertThat(busyTotal).containsExactly(161, 1001);
    }

    @Test
    void should_turn_jiffies_into_average_busy_cores() {
        Optional<long[]> before = Optional.of(new long[] {1_000, 10_000});
        Optional<long[]> after = Optional.of(new long[] {1_750, 11_000});
        assertThat(NodeProbe.busyCores(before, after, 2)).isEqualTo(1.5);
        assertThat(NodeProbe.busyCores(Optional.empty(), after, 2)).isNaN();
    }
}
