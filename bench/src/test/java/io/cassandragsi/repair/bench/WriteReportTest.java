package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The summary, the table and write.json, from made-up phases: no node. */
class WriteReportTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    /** A 10-s phase with {@code wps} writes/s and {@code cpuUs} node µs per write. */
    private static PhaseResult phase(Variant v, int round, double wps, double cpuUs) {
        long writes = Math.round(wps * 10);
        return new PhaseResult(v, round, T0, T0.plusSeconds(10), 10.0, writes, 0,
                Math.round(cpuUs * 1000 * writes), Math.round(2_000.0 * writes), 1.5, true, Math.round(20_000.0 * writes), 1.9, null);
    }

    private static Map<String, Object> config() {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("rounds", 2);
        c.put("phase_seconds", 10);
        return c;
    }

    private static WriteReport twoRounds() {
        List<PhaseResult> phases = new ArrayList<>();
        // warm-up: wildly different, must not count
        phases.add(phase(Variant.UNINDEXED, 0, 100, 900));
        phases.add(phase(Variant.GSI_1, 0, 10_000, 1));
        phases.add(phase(Variant.MV, 0, 10_000, 1));
        // round 1: unindexed 10,000, gsi-1 5,000 (0.5), mv 4,000 (0.4)
        phases.add(phase(Variant.UNINDEXED, 1, 10_000, 30));
        phases.add(phase(Variant.GSI_1, 1, 5_000, 70));
        phases.add(phase(Variant.MV, 1, 4_000, 60));
        // round 2: the machine got slower: unindexed 5,000, gsi-1 4,000 (0.8), mv 2,500 (0.5)
        phases.add(phase(Variant.UNINDEXED, 2, 5_000, 34));
        phases.add(phase(Variant.GSI_1, 2, 4_000, 76));
        phases.add(phase(Variant.MV, 2, 2_500, 66));
        return WriteReport.of(List.of(Variant.UNINDEXED, Variant.GSI_1, Variant.MV), phases, config());
    }

    @Test
    void should_pair_ratios_by_round_and_take_their_geometric_mean() {
        WriteReport.Summary gsi = twoRounds().summary(Variant.GSI_1).orElseThrow();
        assertThat(gsi.ratio().getAsDouble()).isCloseTo(Math.sqrt(0.5 * 0.8), within(1e-9));
        assertThat(gsi.ratioMin().getAsDouble()).isCloseTo(0.5, within(1e-9));
        assertThat(gsi.ratioMax().getAsDouble()).isCloseTo(0.8, within(1e-9));
        assertThat(gsi.rounds()).isEqualTo(2);
        // not the ratio of the means, (5,000 + 4,000) / (10,000 + 5,000) = 0.6
        assertThat(gsi.ratio().getAsDouble()).isNotCloseTo(0.6, within(0.01));
    }

    @Test
    void should_average_writes_per_second_over_measured_rounds_only() {
        WriteReport.Summary unindexed = twoRounds().summary(Variant.UNINDEXED).orElseThrow();
        assertThat(unindexed.writesPerSecond()).isCloseTo(7_500, within(1e-6));
        assertThat(unindexed.ratio().getAsDouble()).isEqualTo(1.0);
        assertThat(unindexed.writes()).isEqualTo(150_000);
    }

    @Test
    void should_weigh_cpu_per_write_by_writes() {
        WriteReport.Summary gsi = twoRounds().summary(Variant.GSI_1).orElseThrow();
        // (70 µs × 50,000 + 76 µs × 40,000) / 90,000
        assertThat(gsi.nodeCpuUsPerWrite()).isCloseTo((70.0 * 50_000 + 76.0 * 40_000) / 90_000, within(1e-3));
        assertThat(gsi.flushNodeCpuUsPerWrite()).isCloseTo(2.0, within(1e-3));
        assertThat(gsi.clientCpuUsPerWrite()).isCloseTo(20.0, within(1e-3));
    }

    @Test
    void should_compare_gsi_with_mv_in_the_same_round() {
        WriteReport report = twoRounds();
        assertThat(report.roundRatios(Variant.GSI_1, Variant.MV)).containsExactly(1.25, 1.6);
        assertThat(report.targetLines()).containsExactly(String.format(java.util.Locale.ROOT,
                "gsi-1 / mv = %.2f (target >= 1.00: met)", Math.sqrt(1.25 * 1.6)));
    }

    @Test
    void should_leave_ratios_empty_when_unindexed_was_not_measured() throws Exception {
        WriteReport report = WriteReport.of(List.of(Variant.GSI_1),
                List.of(phase(Variant.GSI_1, 1, 5_000, 70)), config());
        assertThat(report.summary(Variant.GSI_1).orElseThrow().ratio()).isEmpty();
        JsonNode json = new ObjectMapper().readTree(report.jsonText());
        assertThat(json.at("/variants/0/ratio").isNull()).isTrue();
        assertThat(json.at("/variants/0/writes_per_s").asDouble()).isEqualTo(5_000.0);
        assertThat(json.path("targets")).isEmpty();
        assertThat(report.table()).contains("gsi-1").doesNotContain("target");
    }

    @Test
    void should_write_variants_targets_config_and_phases_to_json() throws Exception {
        JsonNode json = new ObjectMapper().readTree(twoRounds().jsonText());
        JsonNode gsi = json.at("/variants/1");
        assertThat(gsi.path("name").asText()).isEqualTo("gsi-1");
        assertThat(gsi.path("writes_per_s").asDouble()).isEqualTo(4_500.0);
        assertThat(gsi.path("ratio").asDouble()).isEqualTo(0.632); // sqrt(0.4) rounded to 3 decimals
        assertThat(gsi.path("cpu_us_per_write").asDouble()).isEqualTo(72.7);
        assertThat(json.path("variants")).hasSize(3);
        assertThat(json.at("/variants/2/name").asText()).isEqualTo("mv");
        assertThat(json.at("/targets/0/name").asText()).isEqualTo("gsi-1 / mv");
        assertThat(json.at("/targets/0/met").asBoolean()).isTrue();
        assertThat(json.at("/config/rounds").asInt()).isEqualTo(2);
        assertThat(json.path("phases")).hasSize(9);
        assertThat(json.at("/phases/0/warmup").asBoolean()).isTrue();
        assertThat(json.at("/phases/3/round").asInt()).isEqualTo(1);
        assertThat(json.at("/phases/3/started").asText()).isEqualTo("2026-01-01T00:00:00Z");
    }

    @Test
    void should_print_one_line_per_variant_in_round_order_then_the_targets() {
        String[] lines = twoRounds().table().split("\\R");
        assertThat(lines).hasSize(5);
        assertThat(lines[0]).startsWith("variant").contains("writes/s", "ratio", "node us/w");
        assertThat(lines[1]).startsWith("unindexed").contains("7,500", "1.000");
        assertThat(lines[2]).startsWith("gsi-1").contains("4,500", "0.632", "0.50-0.80", "72.7");
        assertThat(lines[3]).startsWith("mv ");
        assertThat(lines[4]).startsWith("gsi-1 / mv = ");
    }

    @Test
    void should_say_when_a_target_is_not_met() {
        List<PhaseResult> phases = List.of(
                phase(Variant.GSI_3, 1, 1_000, 100),
                phase(Variant.MV_3, 1, 1_000, 100));
        WriteReport report = WriteReport.of(List.of(Variant.GSI_3, Variant.MV_3), phases, config());
        assertThat(report.targetLines()).containsExactly("gsi-3 / mv-3 = 1.00 (target >= 1.50: NOT met)");
    }

    @Test
    void should_mark_warmup_errors_and_unsettled_compactions_in_the_progress_line() {
        PhaseResult p = new PhaseResult(Variant.SAI, 0, T0, T0.plusSeconds(5), 5.0, 5_000, 3, 250_000_000L, 0, 20.0, false,
                0, Double.NaN, "WriteTimeoutException: timeout");
        String line = WriteReport.progressLine(p, 3);
        assertThat(line).startsWith("warm-up").contains("sai", "1,000 writes/s", "50.0 us/w", "other load - cores",
                "(compactions still running)", "errors 3 (first: WriteTimeoutException: timeout)");
        assertThat(WriteReport.progressLine(phase(Variant.MV, 2, 4_000, 60), 3)).startsWith("round 2/3 mv ");
    }

    @Test
    void should_show_digest_mismatches_in_the_progress_line_and_json_only_where_replicas_disagreed() throws Exception {
        PhaseResult disagreed = new PhaseResult(Variant.GSI_1_E2E, 1, T0, T0.plusSeconds(10), 10.0, 8_000, 0, 80_000_000L, 0, 1.0, true,
                0, 1.9, null, 30_000_000L, 1.5, 1_234);
        assertThat(WriteReport.progressLine(disagreed, 2)).contains("service 3.8 us/w", "digest mismatches 1,234");
        assertThat(WriteReport.progressLine(phase(Variant.GSI_1, 1, 4_000, 60), 2)).doesNotContain("digest");
        JsonNode json = new ObjectMapper().readTree(WriteReport.of(List.of(Variant.GSI_1_E2E), List.of(disagreed), config()).jsonText());
        assertThat(json.at("/phases/0/digest_mismatches").asLong()).isEqualTo(1_234);
    }

    @Test
    void should_show_the_idle_share_of_the_service_cpu_beside_it() throws Exception {
        // 8,000 writes; the service took 30 ms of CPU, 8 ms of which its idle rate comes to over the phase
        PhaseResult p = new PhaseResult(Variant.GSI_1_NODE_E2E, 1, T0, T0.plusSeconds(10), 10.0, 8_000, 0, 80_000_000L, 0, 1.0, true, 0, 1.9, null,
                30_000_000L, 1.5, 0, 8_000, 0, 8_000_000L);
        assertThat(WriteReport.progressLine(p, 1)).contains("service 3.8 us/w (idle 1.0)");
        WriteReport report = WriteReport.of(List.of(Variant.GSI_1_NODE_E2E), List.of(p), config());
        assertThat(report.summary(Variant.GSI_1_NODE_E2E).orElseThrow().serviceIdleCpuUsPerWrite()).isCloseTo(1.0, within(1e-9));
        assertThat(report.table()).contains("idle us/w");
        JsonNode json = new ObjectMapper().readTree(report.jsonText());
        assertThat(json.at("/phases/0/service_idle_cpu_us_per_write").asDouble()).isEqualTo(1.0);
    }

    /** Both tables, one round: unindexed 10,000, gsi-1 5,000; unindexed-u 12,000, gsi-1-u 4,000, mv-u 5,000. */
    private static WriteReport withUnversioned() {
        List<PhaseResult> phases = List.of(
                phase(Variant.UNINDEXED, 1, 10_000, 30),
                phase(Variant.GSI_1, 1, 5_000, 70),
                phase(Variant.UNINDEXED_U, 1, 12_000, 25),
                phase(Variant.GSI_1_U, 1, 4_000, 90),
                phase(Variant.MV_U, 1, 5_000, 80));
        return WriteReport.of(List.of(Variant.UNINDEXED, Variant.GSI_1, Variant.UNINDEXED_U, Variant.GSI_1_U, Variant.MV_U),
                phases, config());
    }

    @Test
    void should_take_the_ratio_of_u_variants_to_unindexed_u_when_both_tables_are_measured() {
        WriteReport report = withUnversioned();
        assertThat(report.summary(Variant.GSI_1_U).orElseThrow().ratio().getAsDouble()).isCloseTo(4_000.0 / 12_000, within(1e-9));
        assertThat(report.summary(Variant.MV_U).orElseThrow().ratio().getAsDouble()).isCloseTo(5_000.0 / 12_000, within(1e-9));
        assertThat(report.summary(Variant.UNINDEXED_U).orElseThrow().ratio().getAsDouble()).isEqualTo(1.0);
        assertThat(report.summary(Variant.GSI_1).orElseThrow().ratio().getAsDouble()).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void should_print_the_unversioned_comparisons_after_the_table_when_u_variants_are_measured() {
        String[] lines = withUnversioned().table().split("\\R");
        assertThat(lines).hasSize(11);
        assertThat(lines[4]).startsWith("gsi-1-u").contains("4,000", "0.333", "90.0");
        assertThat(lines[6]).isEqualTo("(ratio: to unindexed in the same round; for the -u variants to unindexed-u)");
        assertThat(lines).endsWith(
                "gsi-1-u / unindexed-u = 0.33",
                "gsi-1-u / mv-u = 0.80",
                "gsi-1-u / gsi-1 = 0.80",
                "unindexed-u / unindexed = 1.20");
        assertThat(twoRounds().comparisonLines()).isEmpty();
    }

    @Test
    void should_write_the_comparisons_and_each_ratio_s_denominator_to_json_when_u_variants_are_measured() throws Exception {
        JsonNode json = new ObjectMapper().readTree(withUnversioned().jsonText());
        assertThat(json.at("/variants/3/name").asText()).isEqualTo("gsi-1-u");
        assertThat(json.at("/variants/3/ratio_to").asText()).isEqualTo("unindexed-u");
        assertThat(json.at("/variants/1/ratio_to").asText()).isEqualTo("unindexed");
        assertThat(json.path("ratios")).hasSize(4);
        assertThat(json.at("/ratios/1/name").asText()).isEqualTo("gsi-1-u / mv-u");
        assertThat(json.at("/ratios/1/ratio").asDouble()).isEqualTo(0.8);
        assertThat(json.at("/ratios/0/ratio").asDouble()).isEqualTo(0.333);
        assertThat(json.at("/ratios/0/ratio_min").asDouble()).isEqualTo(0.333);
    }

    @Test
    void should_give_the_range_over_rounds_of_a_comparison_when_there_are_several() {
        List<PhaseResult> phases = List.of(
                phase(Variant.GSI_1_U, 1, 4_000, 90), phase(Variant.MV_U, 1, 5_000, 80),
                phase(Variant.GSI_1_U, 2, 6_000, 90), phase(Variant.MV_U, 2, 5_000, 80));
        WriteReport report = WriteReport.of(List.of(Variant.GSI_1_U, Variant.MV_U), phases, config());
        assertThat(report.comparisonLines()).containsExactly(String.format(java.util.Locale.ROOT,
                "gsi-1-u / mv-u = %.2f (rounds 0.80-1.20)", Math.sqrt(0.8 * 1.2)));
    }

    @Test
    void should_take_the_geometric_mean_of_nothing_as_empty() {
        assertThat(WriteReport.geometricMean(List.of())).isEmpty();
        assertThat(WriteReport.geometricMean(List.of(2.0, 8.0)).getAsDouble()).isCloseTo(4.0, within(1e-12));
        assertThat(WriteReport.geometricMean(List.of(0.0, 8.0)).getAsDouble()).isEqualTo(0.0);
    }
}
