package io.cassandragsi.repair.status;

import java.util.List;

/** A {@link StatusReport} as plain text for a terminal ({@code ./gsi status}): aligned columns, no colours. */
public final class StatusText {
    private StatusText() {}

    public static String render(StatusReport r, String source) {
        StringBuilder out = new StringBuilder();
        out.append("Repair service (").append(source).append(")\n");
        int width = r.service().stream().mapToInt(kv -> kv[0].length()).max().orElse(0);
        for (String[] kv : r.service()) {
            out.append("  ").append(pad(kv[0], width)).append("  ").append(kv[1]).append('\n');
        }
        out.append("\nWaiting for\n");
        lines(out, r.waiting(), "nothing");
        out.append("\nCassandra nodes (as the driver sees them)\n");
        table(out, r.cassandra(), "none known");
        out.append("\nIn-node maintainers\n");
        table(out, r.nodes(), "none (no table in node mode, or none has written yet)");
        out.append("\nIndexes (work of this instance since it started)\n");
        table(out, r.indexes(), "none yet");
        out.append("\nJobs (rebuild and check started through this instance)\n");
        table(out, r.jobs(), "none");
        out.append("\nDefinition problems\n");
        lines(out, r.problems(), "none");
        return out.toString();
    }

    private static void lines(StringBuilder out, List<String> lines, String none) {
        if (lines.isEmpty()) {
            out.append("  ").append(none).append('\n');
        }
        lines.forEach(l -> out.append("  ").append(l).append('\n'));
    }

    private static void table(StringBuilder out, StatusReport.Table t, String none) {
        if (t.rows().isEmpty()) {
            out.append("  ").append(none).append('\n');
            return;
        }
        int[] w = new int[t.columns().size()];
        for (int c = 0; c < w.length; c++) {
            w[c] = t.columns().get(c).length();
            for (List<String> row : t.rows()) {
                w[c] = Math.max(w[c], row.get(c).length());
            }
        }
        row(out, t.columns(), w);
        t.rows().forEach(row -> row(out, row, w));
    }

    private static void row(StringBuilder out, List<String> cells, int[] w) {
        StringBuilder line = new StringBuilder("  ");
        for (int c = 0; c < cells.size(); c++) {
            line.append(pad(cells.get(c), w[c])).append(c + 1 < cells.size() ? "  " : "");
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }
}
