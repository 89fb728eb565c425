package io.cassandragsi.repair.status;

import java.util.List;

/** A {@link StatusReport} as plain text for a terminal ({@code ./gsi status}): its sections, aligned columns, no colours. */
public final class StatusText {
    private StatusText() {}

    public static String render(StatusReport r, String source) {
        StringBuilder out = new StringBuilder();
        out.append("Repair service (").append(source).append(")\n");
        for (StatusReport.Section s : r.sections()) {
            out.append('\n').append(s.title()).append(s.note() == null ? "" : " (" + s.note() + ")").append('\n');
            if (s.table().rows().isEmpty()) {
                out.append("  ").append(s.none()).append('\n');
            } else if (s.kind() == StatusReport.Section.Kind.TABLE) {
                table(out, s.table().columns(), s.table().rows());
            } else {
                table(out, null, s.table().rows());
            }
        }
        return out.toString();
    }

    /** Rows in aligned columns, under a header unless {@code columns} is null. */
    private static void table(StringBuilder out, List<String> columns, List<List<String>> rows) {
        int[] w = new int[rows.get(0).size()];
        for (int c = 0; c < w.length; c++) {
            w[c] = columns == null ? 0 : columns.get(c).length();
            for (List<String> row : rows) {
                w[c] = Math.max(w[c], row.get(c).length());
            }
        }
        if (columns != null) {
            row(out, columns, w);
        }
        rows.forEach(row -> row(out, row, w));
    }

    private static void row(StringBuilder out, List<String> cells, int[] w) {
        StringBuilder line = new StringBuilder("  ");
        for (int c = 0; c < cells.size(); c++) {
            line.append(cells.get(c)).append(" ".repeat(Math.max(0, w[c] - cells.get(c).length()))).append(c + 1 < cells.size() ? "  " : "");
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }
}
