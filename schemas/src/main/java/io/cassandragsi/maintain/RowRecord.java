package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * What the rows table says of one row (docs/design.md section 3): its key, the entry keys it has
 * had per index name, the newest write seen (unversioned) or the highest TS a recompute wrote at
 * (versioned), each entry key's write time (on a versioned table, the TS of the newest version that
 * had it), the entry keys of per-version indexes with their write times, and {@code rewrittenAt}:
 * the TS of the row's newest version when it was written more than once with every indexed
 * attribute, at different timestamps ({@code _whi} and {@code _wlo} differ), else Long.MIN_VALUE;
 * {@code writtenBy} (unversioned) the marker id of the write that set {@code written}, when the
 * rows table says ({@code _wid}), else null.
 */
public record RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written,
        Map<String, Map<List<ByteBuffer>, Long>> keyTimes, Map<String, Map<List<ByteBuffer>, Long>> versionKeys, long rewrittenAt,
        UUID writtenBy) {

    /** A record that does not say which write set {@code written} (a versioned table, or a rows table without {@code _wid}). */
    public RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written,
            Map<String, Map<List<ByteBuffer>, Long>> keyTimes, Map<String, Map<List<ByteBuffer>, Long>> versionKeys, long rewrittenAt) {
        this(rowKey, keys, written, keyTimes, versionKeys, rewrittenAt, null);
    }

    public RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written) {
        this(rowKey, keys, written, Map.of(), Map.of(), Long.MIN_VALUE);
    }

    /** A record for a row the rows table does not know. */
    public static RowRecord none(List<ByteBuffer> rowKey) {
        return new RowRecord(rowKey, Map.of(), Long.MIN_VALUE);
    }

    /** The entry keys of an index that keeps one entry per version, with their write times. */
    public Map<List<ByteBuffer>, Long> versionKeys(String index) {
        return versionKeys.getOrDefault(index, Map.of());
    }

    public Set<List<ByteBuffer>> keys(String index) {
        return keys.getOrDefault(index, Set.of());
    }

    /** The highest write time of the row's entry keys (Long.MIN_VALUE: none known). */
    public long newestKeyTime() {
        long out = Long.MIN_VALUE;
        for (Map<List<ByteBuffer>, Long> times : keyTimes.values()) {
            for (long t : times.values()) {
                out = Math.max(out, t);
            }
        }
        return out;
    }

    /** The entry keys of one index with their write times. */
    public Map<List<ByteBuffer>, Long> keyTimes(String index) {
        return keyTimes.getOrDefault(index, Map.of());
    }
}
