package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SaturationTest {
    private static final String Q = " limit=10 few(5)";

    /** A window of one second on a machine of two saturated cores, whose CPU went {@code ownUs} to this JVM. */
    private static Saturation.Result result(String name, double readsPerSecond, double ownUs, double restUs) {
        long requests = Math.round(readsPerSecond);
        return new Saturation.Result(name + Q, readsPerSecond, 1, 2, requests, new CpuUse.Share(ownUs * requests, restUs * requests, 1, 1));
    }

    @Test
    void should_bound_the_http_read_by_the_java_read_plus_the_http_exchange() {
        List<Map<String, Object>> rows = Saturation.ratios(List.of(
                result("mv-cql", 20_000, 30, 70), // 100 us a read
                result("gsi-java-eventual", 16_000, 40, 85), // 125 us
                result("http-floor", 40_000, 45, 5), // 50 us
                result("gsi-http-eventual", 9_000, 110, 110)));
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0)).containsEntry("question", "limit=10 few(5)").containsEntry("http-eventual_vs_mv", 0.45)
                .containsEntry("java-eventual_vs_mv", 0.8).containsEntry("http-floor_vs_mv", 2.0)
                .containsEntry("http_ceiling_vs_mv", 0.57) // 100 / (125 + 50)
                .containsEntry("http-eventual_vs_ceiling", 0.79); // 0.45 / (100 / 175)
    }

    @Test
    void should_leave_the_ceiling_out_when_the_cpu_is_not_known() {
        Saturation.Result mv = new Saturation.Result("mv-cql" + Q, 20_000, 1, 2, 20_000, null);
        List<Map<String, Object>> rows = Saturation.ratios(List.of(mv, result("gsi-java-eventual", 16_000, 40, 85),
                result("http-floor", 40_000, 45, 5)));
        assertThat(rows.get(0)).doesNotContainKey("http_ceiling_vs_mv").containsEntry("java-eventual_vs_mv", 0.8);
    }

    @Test
    void should_add_windows_and_weigh_busy_by_their_length() {
        CpuUse.Share a = new CpuUse.Share(100, 300, 1.0, 1);
        CpuUse.Share b = new CpuUse.Share(50, 150, 0.4, 3);
        CpuUse.Share sum = CpuUse.Share.plus(a, b);
        assertThat(sum.ownMicros()).isEqualTo(150);
        assertThat(sum.restMicros()).isEqualTo(450);
        assertThat(sum.busy()).isEqualTo(0.55); // (1.0 * 1 + 0.4 * 3) / 4
        assertThat(sum.seconds()).isEqualTo(4);
        assertThat(CpuUse.Share.plus(a, null)).isNull();
    }
}
