package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRecompute;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.maintain.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The jobs' rule for a versioned table (docs/design.md sections 4.2 and 9): a row is its stored
 * versions. For an entry key, {@code _tid} is the latest version with that key, {@code _deleted}
 * the version right after it when that one has another key or none, else null; the projections
 * are the {@code _tid} version's. An index that holds the tid has one entry per version, and only
 * existence and projections to compare.
 *
 * <p>One legitimate difference is not drift: an observed {@code _deleted} that is a <em>later</em>
 * version of the row which does not match the entry either. The TS rule makes such a value win
 * when a diff ran before an older version arrived (section 4.2); the entry still answers every
 * query from that version on. It is {@link Finding#APPROXIMATE_DELETED}.
 */
public final class VersionedEntries extends Judged<RowHistory.Versions> implements EntryRule<RowHistory.Versions> {

    VersionedEntries(TablePlan plan) {
        super(plan);
    }

    @Override
    public RowScans<RowHistory.Versions> rows(ScanStores stores) {
        return stores.versions();
    }

    /** Projected values of a version, in the index's projection order. */
    static List<ByteBuffer> projections(IndexPlan index, Version v) {
        int[] attrs = index.projAttributes();
        ByteBuffer[] out = new ByteBuffer[attrs.length];
        for (int i = 0; i < attrs.length; i++) {
            out[i] = v.get(attrs[i]);
        }
        return Arrays.asList(out);
    }

    @Override
    public Map<List<ByteBuffer>, Expected> expected(IndexPlan index, RowHistory.Versions row) {
        List<Version> asc = row.versions();
        Map<List<ByteBuffer>, Expected> out = new LinkedHashMap<>();
        List<ByteBuffer> next = asc.isEmpty() ? null : plan.entryKey(index, asc.get(0));
        for (int i = 0; i < asc.size(); i++) {
            List<ByteBuffer> key = next;
            next = i + 1 < asc.size() ? plan.entryKey(index, asc.get(i + 1)) : null;
            if (key == null) {
                continue;
            }
            Version v = asc.get(i);
            UUID deleted = null;
            if (!index.perVersion() && i + 1 < asc.size() && !key.equals(next)) {
                deleted = asc.get(i + 1).tid();
            }
            out.put(key, new Expected(v.tid(), deleted, projections(index, v))); // ascending: the latest match wins
        }
        return out;
    }

    @Override
    public int tooLarge(IndexPlan index, RowHistory.Versions row) {
        int n = 0;
        for (Version v : row.versions()) {
            if (plan.keyTooLarge(index, v)) {
                n++;
            }
        }
        return n;
    }

    @Override
    long newestTimestamp(RowHistory.Versions row) {
        List<Version> vs = row.versions();
        return vs.isEmpty() ? Long.MIN_VALUE : WriteTimestamps.of(vs.get(vs.size() - 1).tid());
    }

    @Override
    boolean tidAsExpected(Expected expected, Observed observed) {
        return Objects.equals(expected.tid(), observed.tid());
    }

    /** True when {@code observed} is a version after {@code exact} whose entry does not have {@code key}. */
    @Override
    boolean laterNonMatching(IndexPlan index, List<ByteBuffer> key, UUID exact, UUID observed, RowHistory.Versions row) {
        if (exact == null || observed == null || Tids.compare(observed, exact) <= 0) {
            return false;
        }
        for (Version v : row.versions()) {
            if (v.tid().equals(observed)) {
                return !key.equals(plan.entryKey(index, v));
            }
        }
        return false;
    }

    @Override
    public boolean rebuildReadsEntries() {
        return false;
    }

    /**
     * Every version's entries upserted at its TS and the sibling diff's marks ({@link
     * TablePlan#diff}); the keys of the entries that keep one per row recorded in {@code _keys} at
     * timestamp 0 (section 4.5: the element's write time stays the TS of a version that had the
     * key), those of per-version entries in {@code _vkeys} at their version's TS.
     */
    @Override
    public Rewrite rebuild(RowHistory.Versions row, RowRecord record, Collection<IndexPlan> indexes,
            Map<IndexPlan, Map<List<ByteBuffer>, Observed>> entries) {
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        for (TablePlan.IndexWrite w : plan.diff(row.versions(), true)) {
            if (indexes.contains(w.index())) {
                writes.add(w);
            }
        }
        return new Rewrite(unrecorded(row, record, writes), writes, versionKeys(row, writes));
    }

    /**
     * A per-version index gets the rebuild's writes of the drifted keys, at each version's TS; any
     * other the repair core's recompute ({@link VersionRecompute#recompute}, docs/design.md section
     * 6.4), which writes above the cells it corrects, with {@code _w} raised first, so that an
     * entry a recompute or a delete left with later timestamps is fixed too. Cells that read as
     * absent may be expired ones, whose write time cannot be read: they are written above now.
     */
    @Override
    public Rewrite fix(IndexPlan index, RowHistory.Versions row, RowRecord record, Map<List<ByteBuffer>, Observed> entries,
            Set<List<ByteBuffer>> keys, long nowTs) {
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        if (index.perVersion()) {
            for (TablePlan.IndexWrite w : plan.diff(row.versions(), true)) {
                if (w.index() == index && keys.contains(w.key())) {
                    writes.add(w);
                }
            }
            return new Rewrite(List.of(), writes, versionKeys(row, writes));
        }
        Map<List<ByteBuffer>, RowReconcile.EntryState> states = new LinkedHashMap<>();
        entries.forEach((k, o) -> states.put(k, o.state()));
        writes.addAll(VersionRecompute.recompute(plan, index, row.versions(), keys, states, nowTs, true));
        List<RowsWrite> first = new ArrayList<>();
        Set<List<ByteBuffer>> known = record == null ? Set.of() : record.keys(index.index().name());
        Set<List<ByteBuffer>> unrecorded = new LinkedHashSet<>();
        for (List<ByteBuffer> key : expected(index, row).keySet()) {
            if (keys.contains(key) && !known.contains(key)) {
                unrecorded.add(key); // so that a later delete of its version finds the entry
            }
        }
        if (!unrecorded.isEmpty()) {
            first.add(new RowsWrite.AddKeys(row.rowKey(), Map.of(index.index().name(), unrecorded), 0));
        }
        long highest = VersionRecompute.highestTimestamp(writes);
        if (highest != Long.MIN_VALUE) {
            // later diffs of this row's versions recompute it (docs/design.md section 6.3)
            first.add(new RowsWrite.RecordRecompute(row.rowKey(), highest));
        }
        return new Rewrite(first, writes, List.of());
    }

    /** The keys of the upserts of indexes that keep one entry per row which the record lacks, recorded at timestamp 0. */
    private static List<RowsWrite> unrecorded(RowHistory.Versions row, RowRecord record, List<TablePlan.IndexWrite> writes) {
        Map<String, Set<List<ByteBuffer>>> keys = new LinkedHashMap<>();
        for (TablePlan.IndexWrite w : writes) {
            String name = w.index().index().name();
            if (w instanceof TablePlan.Upsert && !w.index().perVersion() && (record == null || !record.keys(name).contains(w.key()))) {
                keys.computeIfAbsent(name, k -> new LinkedHashSet<>()).add(w.key());
            }
        }
        return keys.isEmpty() ? List.of() : List.of(new RowsWrite.AddKeys(row.rowKey(), keys, 0));
    }

    /** The keys of the per-version upserts among {@code writes}, recorded in {@code _vkeys} at their version's TS, as the trigger does. */
    private static List<RowsWrite> versionKeys(RowHistory.Versions row, List<TablePlan.IndexWrite> writes) {
        Map<Long, Map<String, Set<List<ByteBuffer>>>> byTime = new TreeMap<>();
        for (TablePlan.IndexWrite w : writes) {
            if (w instanceof TablePlan.Upsert && w.index().perVersion()) {
                byTime.computeIfAbsent(w.timestamp(), t -> new LinkedHashMap<>()).computeIfAbsent(w.index().index().name(),
                        k -> new LinkedHashSet<>()).add(w.key());
            }
        }
        List<RowsWrite> out = new ArrayList<>(byTime.size());
        byTime.forEach((t, keys) -> out.add(new RowsWrite.AddVersionKeys(row.rowKey(), keys, t)));
        return out;
    }
}
