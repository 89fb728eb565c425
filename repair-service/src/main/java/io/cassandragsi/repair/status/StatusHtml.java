package io.cassandragsi.repair.status;

import java.util.List;

/**
 * A {@link StatusReport} as a small HTML page ({@code GET /} of the HTTP API): no scripts and no
 * outside assets (the API sends it with a Content-Security-Policy that allows neither), every
 * value escaped, and a refresh every {@value #REFRESH_SECONDS} seconds.
 */
public final class StatusHtml {
    public static final int REFRESH_SECONDS = 5;

    private StatusHtml() {}

    public static String render(StatusReport r, String generatedAt) {
        StringBuilder out = new StringBuilder(4096);
        out.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS).append("\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>cassandra-gsi status</title><style>")
                .append("body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}")
                .append("table{border-collapse:collapse;margin:.5em 0 1.5em}")
                .append("th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}th{background:#f2f2f2}")
                .append("td.n{text-align:right}.ok{color:#276221}.warn{color:#9c2a00;font-weight:bold}")
                .append("small{color:#666}</style></head><body>\n");
        out.append("<h1>cassandra-gsi</h1><p><small>as of ").append(esc(generatedAt)).append(", refreshed every ").append(REFRESH_SECONDS)
                .append(" s; JSON at <code>/admin/status</code>, metrics at <code>/metrics</code></small></p>\n");
        out.append("<h2>Waiting for</h2>");
        list(out, r.waiting(), "nothing", "warn");
        out.append("<h2>Repair service</h2><table>");
        for (String[] kv : r.service()) {
            out.append("<tr><th>").append(esc(kv[0])).append("</th><td>").append(esc(kv[1])).append("</td></tr>");
        }
        out.append("</table>\n<h2>Cassandra nodes</h2><p><small>as the driver sees them</small></p>");
        table(out, r.cassandra(), "none known");
        out.append("<h2>In-node maintainers</h2>");
        table(out, r.nodes(), "none (no table in node mode, or none has written yet)");
        out.append("<h2>Indexes</h2><p><small>work of this instance since it started</small></p>");
        table(out, r.indexes(), "none yet");
        out.append("<h2>Jobs</h2><p><small>rebuild and check started through this instance</small></p>");
        table(out, r.jobs(), "none");
        out.append("<h2>Definition problems</h2>");
        list(out, r.problems(), "none", "warn");
        out.append("</body></html>\n");
        return out.toString();
    }

    private static void list(StringBuilder out, List<String> items, String none, String cls) {
        if (items.isEmpty()) {
            out.append("<p class=\"ok\">").append(esc(none)).append("</p>\n");
            return;
        }
        out.append("<ul>");
        items.forEach(i -> out.append("<li class=\"").append(cls).append("\">").append(esc(i)).append("</li>"));
        out.append("</ul>\n");
    }

    private static void table(StringBuilder out, StatusReport.Table t, String none) {
        if (t.rows().isEmpty()) {
            out.append("<p>").append(esc(none)).append("</p>\n");
            return;
        }
        out.append("<table><tr>");
        t.columns().forEach(c -> out.append("<th>").append(esc(c)).append("</th>"));
        out.append("</tr>");
        for (List<String> row : t.rows()) {
            out.append("<tr>");
            row.forEach(cell -> out.append(cell.matches("-?[0-9][0-9.,]*( [0-9a-z.]+)*") ? "<td class=\"n\">" : "<td>").append(esc(cell)).append("</td>"));
            out.append("</tr>");
        }
        out.append("</table>\n");
    }

    /** Text for HTML element content and attribute values. */
    static String esc(String s) {
        StringBuilder b = new StringBuilder(s.length() + 16);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
