package io.cassandragsi.repair.jobs;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A job's progress at one moment. {@code rows} are base versions read, {@code entries} index rows
 * read (check), {@code writes} index writes made; the rate counts rows and entries of this run;
 * {@code eta} is null until a range has finished in this run.
 */
public record ProgressSnapshot(String phase, int rangesDone, int rangesTotal, int rangesSkipped, long rows, long entries, long writes,
        double rowsPerSecond, Duration elapsed, Duration eta) {

    public double fraction() {
        return rangesTotal == 0 ? 0 : (double) rangesDone / rangesTotal;
    }

    /** JSON-friendly form (GET /admin/jobs/{id}). */
    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("phase", phase);
        m.put("ranges_done", rangesDone);
        m.put("ranges_total", rangesTotal);
        m.put("ranges_skipped", rangesSkipped);
        m.put("rows", rows);
        m.put("entries", entries);
        m.put("writes", writes);
        m.put("rows_per_second", Math.round(rowsPerSecond));
        m.put("elapsed_seconds", elapsed.toMillis() / 1000.0);
        m.put("eta_seconds", eta == null ? null : eta.toMillis() / 1000.0);
        return m;
    }

    /** One line for logs and terminals without a progress bar. */
    public String line() {
        return String.format("%s: %d/%d ranges, %,d rows, %,d entries, %,d writes, %,.0f rows/s, ETA %s", phase, rangesDone, rangesTotal,
                rows, entries, writes, rowsPerSecond, eta == null ? "?" : format(eta));
    }

    static String format(Duration d) {
        long s = d.toSeconds();
        return String.format("%d:%02d:%02d", s / 3600, (s / 60) % 60, s % 60);
    }
}
