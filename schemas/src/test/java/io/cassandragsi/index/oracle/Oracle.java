package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The expected index, computed from the final history alone (DESIGN.md section 6): for every index
 * entry (index key + base row), the latest version that matches it ({@code _tid}) and the first
 * later version that does not ({@code _deleted}, null when the latest version matches). Knows
 * nothing about how the system gets there.
 */
public final class Oracle {
    private final TablePlan plan;
    /** base row key -> versions by tid (ascending, Cassandra's timeuuid order). */
    private final Map<List<ByteBuffer>, TreeMap<UUID, VersionRow>> rows = new LinkedHashMap<>();

    public Oracle(TablePlan plan) {
        this.plan = plan;
    }

    /** Records a complete version (a later write of the same tid replaces it, as in Cassandra). */
    public void write(List<ByteBuffer> rowKey, UUID tid, VersionRow version) {
        rows.computeIfAbsent(rowKey, k -> new TreeMap<>(Tids::compare)).put(tid, version);
    }

    public Map<List<ByteBuffer>, TreeMap<UUID, VersionRow>> rows() {
        return rows;
    }

    /** Expected state of one entry of an index that keeps one entry across versions. */
    public record EntryState(UUID tid, UUID deleted, List<ByteBuffer> rowKey) {}

    /** Expected entries of an index: entry key -> state. */
    public Map<List<ByteBuffer>, EntryState> expected(IndexPlan index) {
        Map<List<ByteBuffer>, EntryState> out = new HashMap<>();
        for (Map.Entry<List<ByteBuffer>, TreeMap<UUID, VersionRow>> row : rows.entrySet()) {
            List<Map.Entry<UUID, VersionRow>> versions = new ArrayList<>(row.getValue().entrySet());
            for (int i = 0; i < versions.size(); i++) {
                List<ByteBuffer> key = plan.entryKey(index, versions.get(i).getValue());
                if (key == null) {
                    continue;
                }
                UUID tid = versions.get(i).getKey();
                if (index.perVersion()) {
                    out.put(key, new EntryState(tid, null, row.getKey()));
                    continue;
                }
                UUID deleted = null;
                if (i + 1 < versions.size() && !key.equals(plan.entryKey(index, versions.get(i + 1).getValue()))) {
                    deleted = versions.get(i + 1).getKey();
                }
                EntryState before = out.get(key);
                if (before == null || Tids.compare(tid, before.tid()) > 0) {
                    out.put(key, new EntryState(tid, deleted, row.getKey()));
                }
            }
        }
        return out;
    }

    /** Entries matching {@code indexKeyPrefix} at tid q: base rows whose version current at q has that key. */
    public Map<List<ByteBuffer>, UUID> matchesAt(IndexPlan index, UUID q) {
        Map<List<ByteBuffer>, UUID> out = new LinkedHashMap<>();
        for (TreeMap<UUID, VersionRow> versions : rows.values()) {
            Map.Entry<UUID, VersionRow> current = versions.floorEntry(q);
            if (current == null) {
                continue;
            }
            List<ByteBuffer> key = plan.entryKey(index, current.getValue());
            if (key != null) {
                out.put(key, current.getKey());
            }
        }
        return out;
    }

    /**
     * How an observed {@code _deleted} compares with the expected one. The TS rule makes a
     * {@code _deleted} written from an incomplete view of the history (a version that arrived later
     * with an older tid, or was in flight during the diff) win over the exact one, so an observed
     * value may be a later non-matching version than expected; null-ness and {@code _tid} are exact.
     */
    public enum DeletedVerdict { EXACT, LATER_NON_MATCHING_VERSION, WRONG }

    public DeletedVerdict judgeDeleted(IndexPlan index, List<ByteBuffer> entryKey, EntryState expected, UUID observed) {
        if (Objects.equals(expected.deleted(), observed)) {
            return DeletedVerdict.EXACT;
        }
        if (expected.deleted() == null || observed == null || Tids.compare(observed, expected.deleted()) < 0) {
            return DeletedVerdict.WRONG;
        }
        VersionRow v = rows.get(expected.rowKey()).get(observed);
        if (v != null && !entryKey.equals(plan.entryKey(index, v))) {
            return DeletedVerdict.LATER_NON_MATCHING_VERSION;
        }
        return DeletedVerdict.WRONG;
    }
}
