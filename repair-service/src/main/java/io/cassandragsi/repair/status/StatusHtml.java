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
        String version = r.service().stream().filter(pair -> "version".equals(pair[0])).map(pair -> pair[1]).findFirst().orElse("");
        out.append("<h1>cassandra-gsi ").append(esc(version)).append("</h1><p><small>as of ").append(esc(generatedAt)).append(", refreshed every ").append(REFRESH_SECONDS)
                .append(" s; JSON at <code>/admin/status</code>, metrics at <code>/metrics</code></small></p>\n");
        for (StatusReport.Section section : r.sections()) {
            out.append("<h2>").append(esc(section.title())).append("</h2>");
            if (section.note() != null) {
                out.append("<p><small>").append(esc(section.note())).append("</small></p>");
            }
            section(out, section);
        }
        out.append("</body></html>\n");
        return out.toString();
    }

    private static void section(StringBuilder out, StatusReport.Section s) {
        List<List<String>> rows = s.table().rows();
        if (rows.isEmpty()) {
            out.append(s.kind() == StatusReport.Section.Kind.WARNINGS ? "<p class=\"ok\">" : "<p>").append(esc(s.none())).append("</p>\n");
            return;
        }
        if (s.kind() == StatusReport.Section.Kind.WARNINGS) {
            out.append("<ul>");
            rows.forEach(line -> out.append("<li class=\"warn\">").append(esc(line.get(0))).append("</li>"));
            out.append("</ul>\n");
            return;
        }
        out.append("<table>");
        if (s.kind() == StatusReport.Section.Kind.TABLE) {
            out.append("<tr>");
            s.table().columns().forEach(c -> out.append("<th>").append(esc(c)).append("</th>"));
            out.append("</tr>");
        }
        for (List<String> row : rows) {
            out.append("<tr>");
            for (int c = 0; c < row.size(); c++) {
                String cell = row.get(c);
                String tag = s.kind() == StatusReport.Section.Kind.PAIRS && c == 0 ? "th" : "td";
                out.append('<').append(tag).append(tag.equals("td") && cell.matches("-?[0-9][0-9.,]*( [0-9a-z.]+)*") ? " class=\"n\">" : ">")
                        .append(esc(cell)).append("</").append(tag).append('>');
            }
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
