package io.cassandragsi.repair.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What a read must answer, from a row history alone, written from Cassandra's documented semantics
 * and the HTTP contract (docs/design.md section 8.1), sharing no code with the read path: a row's
 * version current at a moment is its version with the greatest timestamp not after it (every tid
 * of a history here has a 100-ns tick of its own, and every query time a tick no version has, so
 * timestamps alone order them); a row matches index value L at q when that version has L; in a
 * window from F to T (exclusive) when a version with L is current at some moment of it, and the
 * latest such version makes the item; a per-version index lists every version that had L up to
 * its moment. Items come in index order: by row key (text, ascending); a per-version index's by
 * tid descending, then row key.
 */
final class ReadOracle {
    /** One version of a row: its tid, its indexed value (null: none) and its projected value. */
    record Version(UUID tid, Integer length, String value) {}

    /** An expected item: the row key, the tid of the version that makes it, and its projection. */
    record Expected(String key, UUID tid, String value) {}

    private final Map<String, List<Version>> rows;

    /** {@code rows}: each row key's versions, ascending by timestamp. */
    ReadOracle(Map<String, List<Version>> rows) {
        this.rows = new TreeMap<>(rows);
    }

    /** The rows that have {@code length} at timestamp {@code q} (100-ns ticks since 1582). */
    List<Expected> at(int length, long q) {
        List<Expected> out = new ArrayList<>();
        rows.forEach((key, versions) -> {
            Version current = null;
            for (Version v : versions) {
                if (v.tid().timestamp() <= q) {
                    current = v;
                }
            }
            if (current != null && current.length() != null && current.length() == length) {
                out.add(new Expected(key, current.tid(), current.value()));
            }
        });
        return out;
    }

    /**
     * A per-version index's answer up to timestamp {@code upTo}: every version with {@code length}
     * not after it, newest first (the index's order: tid descending, then row key).
     */
    List<Expected> versions(int length, long upTo) {
        List<Expected> out = new ArrayList<>();
        rows.forEach((key, versions) -> {
            for (Version v : versions) {
                if (v.tid().timestamp() <= upTo && v.length() != null && v.length() == length) {
                    out.add(new Expected(key, v.tid(), v.value()));
                }
            }
        });
        out.sort(java.util.Comparator.comparingLong((Expected e) -> e.tid().timestamp()).reversed().thenComparing(Expected::key));
        return out;
    }

    /** The rows that had {@code length} at some timestamp t with {@code from <= t < until}, each with its latest such version. */
    List<Expected> window(int length, long from, long until) {
        List<Expected> out = new ArrayList<>();
        rows.forEach((key, versions) -> {
            Version latest = null;
            for (int i = 0; i < versions.size(); i++) {
                Version v = versions.get(i);
                long start = v.tid().timestamp();
                long end = i + 1 < versions.size() ? versions.get(i + 1).tid().timestamp() : Long.MAX_VALUE;
                boolean meets = start < until && end > from;
                if (meets && v.length() != null && v.length() == length) {
                    latest = v;
                }
            }
            if (latest != null) {
                out.add(new Expected(key, latest.tid(), latest.value()));
            }
        });
        return out;
    }
}
