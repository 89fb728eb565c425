package io.cassandragsi.repair.jobs;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a rebuild run did. {@code rangesSkipped} were finished by earlier runs of the job; {@code
 * rows} are base versions read and {@code writes} index writes made by this run.
 */
public record RebuildResult(String jobId, String keyspace, String table, List<String> indexes, JobState state, int rangesTotal,
        int rangesSkipped, int rangesDone, long rows, long writes, long retries, Duration elapsed, String message) {

    public double rowsPerSecond() {
        double s = elapsed.toNanos() / 1e9;
        return s <= 0 ? 0 : rows / s;
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", jobId);
        m.put("keyspace", keyspace);
        m.put("table", table);
        m.put("indexes", indexes);
        m.put("state", state.label());
        m.put("ranges_total", rangesTotal);
        m.put("ranges_skipped", rangesSkipped);
        m.put("ranges_done", rangesDone);
        m.put("rows", rows);
        m.put("writes", writes);
        m.put("retries", retries);
        m.put("elapsed_seconds", elapsed.toMillis() / 1000.0);
        m.put("rows_per_second", Math.round(rowsPerSecond()));
        m.put("message", message);
        return m;
    }

    /** A few lines for the terminal. */
    public String summary() {
        String head = switch (state) {
            case DONE -> "rebuild " + jobId + " done";
            case CANCELLED -> "rebuild " + jobId + " cancelled";
            case FAILED -> "rebuild " + jobId + " FAILED: " + message;
            case RUNNING -> "rebuild " + jobId + " running";
        };
        return String.format("%s: %s.%s %s%n  ranges: %d/%d done (%d finished by earlier runs)%n"
                + "  %,d base versions read, %,d index writes, %,d retries, %.1f s, %,.0f rows/s",
                head, keyspace, table, indexes, rangesDone, rangesTotal, rangesSkipped, rows, writes, retries,
                elapsed.toMillis() / 1000.0, rowsPerSecond());
    }
}
