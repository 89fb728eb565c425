package io.cassandragsi.repair.jobs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a check found, per index and per bucketed index's buckets; {@link #drift()} is true when any
 * index drifted or any bucket differed (the command exits 3).
 */
public record CheckResult(String jobId, String keyspace, String table, JobState state, boolean fix, List<IndexReport> indexes, long rows,
        long entries, Duration elapsed, String message, List<BucketReport> buckets) {

    /**
     * One index. {@code stale} counts entries with a wrong {@code _tid}, {@code _deleted} or
     * projection (an entry can be wrong in several ways, so the three finer counts may add up to
     * more); {@code approximate} entries are legitimate (not drift); {@code transientFindings}
     * differed at first sight but not when read again (writes in flight); {@code fixed} and
     * {@code unfixable} are set with fix: unfixable entries still differ after the rewrite, which
     * the TS rule allows only when a cell carries a timestamp above every version's TS (written
     * outside the project, e.g. a DELETE or an INSERT with a future timestamp). {@code tooLarge}
     * counts versions (rows, on an unversioned table) whose entry key is over the size Cassandra
     * stores as a key: they have no entry by design (README), which is not drift.
     */
    public record IndexReport(String index, long expected, long missing, long stale, long wrongTid, long wrongDeleted,
            long wrongProjection, long orphans, long approximate, long transientFindings, long fixed, long unfixable,
            long tooLarge, List<String> examples) implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        /** The counts of {@code parts} (the same index over parts of the ring) added up, with at most {@code examples} of their examples. */
        public static IndexReport sum(String index, List<IndexReport> parts, int examples) {
            long[] n = new long[12];
            List<String> shown = new ArrayList<>();
            for (IndexReport r : parts) {
                long[] c = {r.expected, r.missing, r.stale, r.wrongTid, r.wrongDeleted, r.wrongProjection, r.orphans, r.approximate,
                    r.transientFindings, r.fixed, r.unfixable, r.tooLarge};
                for (int i = 0; i < n.length; i++) {
                    n[i] += c[i];
                }
                for (String e : r.examples) {
                    if (shown.size() < examples) {
                        shown.add(e);
                    }
                }
            }
            return new IndexReport(index, n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8], n[9], n[10], n[11], List.copyOf(shown));
        }

        public long driftCount() {
            return missing + stale + orphans;
        }

        public boolean drift() {
            return driftCount() > 0;
        }

        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", index);
            m.put("expected", expected);
            m.put("missing", missing);
            m.put("stale", stale);
            m.put("wrong_tid", wrongTid);
            m.put("wrong_deleted", wrongDeleted);
            m.put("wrong_projection", wrongProjection);
            m.put("orphans", orphans);
            m.put("approximate", approximate);
            m.put("transient", transientFindings);
            m.put("fixed", fixed);
            m.put("unfixable", unfixable);
            m.put("too_large", tooLarge);
            m.put("examples", examples);
            return m;
        }
    }

    /**
     * The buckets of one bucketed index (docs/design.md section 9.2): {@code compared} had the same
     * valid seal at the start and the end of the check; {@code skipped} had a valid seal at the
     * start that was sealed again or changed meanwhile (not compared); {@code differing} differ
     * from what the base gives; {@code givenBack} are those a change was recorded for (with fix),
     * which the sealer seals again.
     */
    public record BucketReport(String index, long compared, long skipped, long differing, long givenBack, List<String> examples) {
        public Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("index", index);
            m.put("compared", compared);
            m.put("skipped", skipped);
            m.put("differing", differing);
            m.put("given_back", givenBack);
            m.put("examples", examples);
            return m;
        }
    }

    public boolean drift() {
        return indexes.stream().anyMatch(IndexReport::drift) || buckets.stream().anyMatch(b -> b.differing() > 0);
    }

    public IndexReport index(String name) {
        return indexes.stream().filter(i -> i.index().equals(name)).findFirst().orElse(null);
    }

    public Map<String, Object> toMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("job", jobId);
        m.put("keyspace", keyspace);
        m.put("table", table);
        m.put("state", state.label());
        m.put("fix", fix);
        m.put("drift", drift());
        m.put("rows", rows);
        m.put("entries", entries);
        m.put("elapsed_seconds", elapsed.toMillis() / 1000.0);
        m.put("message", message);
        List<Map<String, Object>> idx = new ArrayList<>();
        indexes.forEach(i -> idx.add(i.toMap()));
        m.put("indexes", idx);
        m.put("buckets", buckets.stream().map(BucketReport::toMap).toList());
        return m;
    }

    public String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("check %s of %s.%s: %s%s, %,d base versions and %,d index %sentries read in %.1f s%n", jobId, keyspace, table,
                state == JobState.DONE ? (drift() ? "DRIFT" : "clean") : state.label() + (message == null ? "" : ": " + message),
                fix ? " (with --fix)" : "", rows, entries, buckets.isEmpty() ? "" : "and bucket ", elapsed.toMillis() / 1000.0));
        for (IndexReport r : indexes) {
            sb.append(String.format("  %s: %,d expected entries; missing %,d, stale %,d (wrong _tid %,d, wrong _deleted %,d, wrong projection %,d),"
                    + " orphans %,d; approximate _deleted %,d (not drift), transient %,d",
                    r.index(), r.expected(), r.missing(), r.stale(), r.wrongTid(), r.wrongDeleted(), r.wrongProjection(), r.orphans(),
                    r.approximate(), r.transientFindings()));
            if (fix) {
                sb.append(String.format("; fixed %,d, unfixable %,d", r.fixed(), r.unfixable()));
            }
            if (r.tooLarge() > 0) {
                sb.append(String.format("; %,d not indexed: key too large (not drift)", r.tooLarge()));
            }
            sb.append(System.lineSeparator());
            for (String e : r.examples()) {
                sb.append("    ").append(e).append(System.lineSeparator());
            }
        }
        for (BucketReport b : buckets) {
            sb.append(String.format("  %s buckets: %,d compared, %,d differing, %,d skipped (sealed again or changed during the check)", b.index(),
                    b.compared(), b.differing(), b.skipped()));
            if (fix) {
                sb.append(String.format("; %,d given back to the sealer", b.givenBack()));
            }
            sb.append(System.lineSeparator());
            for (String e : b.examples()) {
                sb.append("    ").append(e).append(System.lineSeparator());
            }
        }
        return sb.toString().stripTrailing();
    }
}
