package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReadRatiosTest {

    @Test
    void should_divide_each_of_our_reads_by_its_reference_for_the_same_question() {
        List<Map<String, Object>> rows = ReadRatios.of(p50(
                "gsi-http-eventual limit=10 many(1400)", 0.45,
                "gsi-java-eventual limit=10 many(1400)", 0.33,
                "gsi-java-consistent limit=10 many(1400)", 0.72,
                "mv-cql limit=10 many(1400)", 0.30,
                "sai-cql limit=10 many(1400)", 0.80,
                "mv-cql limit=100 few(5)", 0.25,
                "gsi-java-eventual limit=100 few(5)", 0.26));
        assertThat(rows).hasSize(2);
        assertThat(rows.get(0)).containsEntry("question", "limit=10 many(1400)").containsEntry("java_eventual_vs_mv", 1.1)
                .containsEntry("http_eventual_vs_mv", 1.5).containsEntry("java_consistent_vs_sai", 0.9)
                .doesNotContainKey("http_consistent_vs_sai");
        assertThat(rows.get(1)).containsEntry("question", "limit=100 few(5)").containsEntry("java_eventual_vs_mv", 1.04).hasSize(2);
    }

    @Test
    void should_skip_questions_without_a_reference_and_mark_missed_targets() {
        List<Map<String, Object>> rows = ReadRatios.of(p50(
                "gsi-java-eventual limit=10 few(5)", 0.30,
                "gsi-java-consistent limit=10 many(1400)", 0.70,
                "sai-cql limit=10 many(1400)", 0.69));
        assertThat(rows).hasSize(1);
        StringWriter text = new StringWriter();
        ReadRatios.print(rows, new PrintWriter(text));
        assertThat(text.toString()).contains("limit=10 many(1400)").contains("1.01 *").contains("target").doesNotContain("few");
    }

    /** Measured p50s in run order: name, then milliseconds, repeated. */
    private static Map<String, Double> p50(Object... nameThenMillis) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (int i = 0; i < nameThenMillis.length; i += 2) {
            out.put((String) nameThenMillis[i], (Double) nameThenMillis[i + 1]);
        }
        return out;
    }
}
