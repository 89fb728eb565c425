package io.cassandragsi.repair.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The read benchmark's ratios against its targets (issue 5): p50 of our eventual reads over the
 * materialized view's, through the Java API (target at most 1.1) and HTTP (at most 1.5), and of our
 * consistent reads over SAI's (target below 1), and of reads at {@code as_of=safe} through the Java API
 * over the view's (at most 1.1) and SAI's (below 1, issue 25), each for the same question in the same run. Pure:
 * computed from the measured figures, unit-tested alone.
 */
final class ReadRatios {
    /** A ratio: its JSON name, the query it divides by the reference, and the target it is held to. */
    record Ratio(String name, String ours, String reference, String target, double atMost) {}

    static final List<Ratio> RATIOS = List.of(
            new Ratio("java_eventual_vs_mv", "gsi-java-eventual", "mv-cql", "<= 1.10", 1.10),
            new Ratio("http_eventual_vs_mv", "gsi-http-eventual", "mv-cql", "<= 1.50", 1.50),
            new Ratio("java_consistent_vs_sai", "gsi-java-consistent", "sai-cql", "< 1.00", 1.00 - 1e-9),
            new Ratio("http_consistent_vs_sai", "gsi-http-consistent", "sai-cql", "< 1.00", 1.00 - 1e-9),
            new Ratio("java_safe_vs_mv", "gsi-java-safe", "mv-cql", "<= 1.10", 1.10),
            new Ratio("java_safe_vs_sai", "gsi-java-safe", "sai-cql", "< 1.00", 1.00 - 1e-9));

    private ReadRatios() {}

    /**
     * Per question (the name's text after the query kind, e.g. " limit=10 many(1400)"), the ratios
     * whose two queries were both measured; questions in first-seen order.
     */
    static List<Map<String, Object>> of(Map<String, Double> p50ByName) {
        Set<String> questions = new LinkedHashSet<>();
        for (String name : p50ByName.keySet()) {
            for (Ratio r : RATIOS) {
                if (name.startsWith(r.ours() + " ")) {
                    questions.add(name.substring(r.ours().length()));
                }
            }
        }
        List<Map<String, Object>> out = new ArrayList<>();
        for (String q : questions) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("question", q.trim());
            for (Ratio r : RATIOS) {
                Double ours = p50ByName.get(r.ours() + q);
                Double ref = p50ByName.get(r.reference() + q);
                if (ours != null && ref != null && ref > 0) {
                    row.put(r.name(), Math.round(ours / ref * 100) / 100.0);
                }
            }
            if (row.size() > 1) {
                out.add(row);
            }
        }
        return out;
    }

    /** Prints the ratios as a table, a target row under it, and '*' next to each ratio that misses its target. */
    static void print(List<Map<String, Object>> rows, PrintWriter out) {
        if (rows.isEmpty()) {
            return;
        }
        out.printf(Locale.ROOT, "%-28s", "p50 ratio (* misses target)");
        for (Ratio r : RATIOS) {
            out.printf(Locale.ROOT, " %23s", r.name());
        }
        out.println();
        for (Map<String, Object> row : rows) {
            out.printf(Locale.ROOT, "%-28s", row.get("question"));
            for (Ratio r : RATIOS) {
                Object v = row.get(r.name());
                out.printf(Locale.ROOT, " %23s", v == null ? "-" : String.format(Locale.ROOT, "%.2f%s", (Double) v,
                        (Double) v > r.atMost() ? " *" : "  "));
            }
            out.println();
        }
        out.printf(Locale.ROOT, "%-28s", "target");
        for (Ratio r : RATIOS) {
            out.printf(Locale.ROOT, " %21s  ", r.target());
        }
        out.println();
        out.flush();
    }
}
