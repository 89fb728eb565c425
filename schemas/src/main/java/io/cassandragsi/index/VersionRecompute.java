package io.cassandragsi.index;

import io.cassandragsi.index.RowReconcile.EntryState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The repair of a versioned row after versions went away (a row, range or partition delete, an
 * expired version), as a pure function: from the versions that remain, the entry keys the row
 * has had (the rows table) and the entries as the index holds them, with their cells' write
 * timestamps, the writes that make every entry say what the remaining versions say.
 *
 * <p>The sibling diff writes each cell at the TS of the version it is for, so that the latest
 * version wins whatever the order. A version that goes away cannot be undone that way: the cells
 * it wrote carry its TS, and an older version's values would lose to them. So a recompute writes
 * each correction just above the cell it corrects: at {@code max(TS(value), writetime + 1)} (the
 * timestamp rule for deletes and expiries, README). The writes depend on what was read, so the
 * repair service runs one recompute of a row at a time (its markers share a shard), reading the
 * entries before the versions: a diff that lands in between was made from versions it also sees.
 *
 * <p>An entry whose key no remaining version has gets {@code _deleted} one tick after its {@code
 * _tid}; the entry of the newest remaining version matches again ({@code _deleted} not later than
 * {@code _tid}); every other entry gets the exact next version that does not match. Projections
 * follow the entry's version; a projection to clear gets a tombstone at its cell's own timestamp
 * (a tombstone wins the tie).
 */
public final class VersionRecompute {
    private VersionRecompute() {}

    /**
     * Whether the sibling diff of the marked versions (TS in {@code [markedMin, markedMax]}) could be
     * wrong, so that the row must be recomputed instead. The diff writes at the versions' own TS, and
     * two things can make those writes lose or fall short:
     * <ul>
     *   <li>a recompute of the row wrote cells at or above a marked version's TS ({@code
     *       recomputedAt}: a deleted version written again, an old tid with a key a recompute marked
     *       gone);
     *   <li>a marked version was rewritten with another entry key: the rows table holds a key whose
     *       write time is that version's TS (the trigger writes each key at the TS of the version that
     *       has it) but the version, as it reads now, does not have it. Its old entry still says it
     *       matches at that version, and no diff marks it;
     *   <li>a marked version was written twice with every indexed attribute, at different timestamps ({@code rewrittenAt}
     *       is its TS: the rows table's newest-write cells differ): its projections tie at its TS,
     *       and Cassandra kept the greater value, not the later one.
     * </ul>
     *
     * @param ascending the versions read, ascending, with {@code ts} their TS
     * @param keyTimes per index name, each recorded entry key and its write time
     * @param rewrittenAt the TS of the row's newest version if it was written more than once with every indexed attribute, else Long.MIN_VALUE
     */
    public static boolean needsRecompute(TablePlan plan, List<? extends VersionRow> ascending, long[] ts, long markedMin, long markedMax,
            Map<String, Map<List<ByteBuffer>, Long>> keyTimes, long recomputedAt, long rewrittenAt) {
        if (recomputedAt >= markedMin || (rewrittenAt >= markedMin && rewrittenAt <= markedMax)) {
            return true;
        }
        for (IndexPlan index : plan.indexes()) {
            if (index.perVersion()) {
                continue;
            }
            for (Map.Entry<List<ByteBuffer>, Long> k : keyTimes.getOrDefault(index.index().name(), Map.of()).entrySet()) {
                long t = k.getValue();
                if (t < markedMin || t > markedMax) {
                    continue;
                }
                boolean versionAtT = false;
                boolean hasKey = false;
                for (int i = 0; i < ascending.size(); i++) {
                    if (ts[i] == t) {
                        versionAtT = true;
                        hasKey |= k.getKey().equals(plan.entryKey(index, ascending.get(i)));
                    }
                }
                if (versionAtT && !hasKey) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The highest timestamp among the writes to indexes that keep one entry per row (Long.MIN_VALUE: none). */
    public static long highestTimestamp(List<TablePlan.IndexWrite> writes) {
        long out = Long.MIN_VALUE;
        for (TablePlan.IndexWrite w : writes) {
            if (w.index().perVersion()) {
                continue;
            }
            out = Math.max(out, w.timestamp());
            if (w instanceof TablePlan.Reconciled r && r.proj() != null) {
                for (TablePlan.ProjCell c : r.proj()) {
                    if (c != null) {
                        out = Math.max(out, c.timestamp());
                    }
                }
            }
        }
        return out;
    }

    /**
     * The writes that make the entries of {@code keys} (every key the row has had) say what the
     * remaining versions {@code ascending} say, given the {@code entries} as read (class comment).
     * {@code floor} is the least timestamp for a cell of an entry that reads as absent
     * ({@code _tid} or a projection): an expired cell still shadows every lower timestamp, and its
     * write time cannot be read (for an expiry, one tick after the expired version's TS).
     *
     * <p>{@code unseenGone} false: an entry whose {@code _tid} names no version of {@code ascending}
     * is left as it is. Its version may be in flight: a trigger's batch applies its mutations one
     * by one, so the entry can be read before the base row, and a correction written above its
     * cells would hide that version once it lands. True (a later pass): that version went away.
     */
    public static List<TablePlan.IndexWrite> recompute(TablePlan plan, IndexPlan index, List<? extends VersionRow> ascending,
            Collection<List<ByteBuffer>> keys, Map<List<ByteBuffer>, EntryState> entries, long floor, boolean unseenGone) {
        if (index.perVersion()) {
            throw new IllegalArgumentException("index " + index.index().name() + " keeps an entry per version: nothing to recompute");
        }
        List<List<ByteBuffer>> versionKeys = new ArrayList<>(ascending.size());
        Set<ByteBuffer> tids = new HashSet<>();
        for (VersionRow v : ascending) {
            versionKeys.add(plan.entryKey(index, v));
            tids.add(v.get(plan.tidAttribute()));
        }
        List<TablePlan.IndexWrite> out = new ArrayList<>();
        for (List<ByteBuffer> key : keys) {
            EntryState e = entries.get(key);
            if (!unseenGone && e != null && e.tid() != null && !tids.contains(e.tid())) {
                continue; // written by a version not visible yet, or gone: the next pass tells
            }
            int last = versionKeys.lastIndexOf(key);
            if (last < 0) {
                if (e != null && e.matches()) {
                    long mark = ticks(e.tid()) + 1;
                    out.add(new TablePlan.MarkDeleted(index, key, tid(mark), Math.max(mark, e.deletedTimestamp() + 1)));
                }
                continue;
            }
            VersionRow v = ascending.get(last);
            ByteBuffer vTid = v.get(plan.tidAttribute());
            long vTs = WriteTimestamps.ofSerialized(vTid);
            ByteBuffer tidWrite = e == null || !vTid.equals(e.tid()) ? vTid : null;
            // an entry that reads as absent may hold expired cells, which shadow lower timestamps unseen
            long tidTs = e == null ? Math.max(vTs, floor) : Math.max(vTs, e.tid() == null ? floor : e.tidTimestamp() + 1);
            int[] projAttrs = index.projAttributes();
            TablePlan.ProjCell[] proj = new TablePlan.ProjCell[projAttrs.length];
            boolean projChanged = false;
            for (int i = 0; i < projAttrs.length; i++) {
                ByteBuffer want = v.get(projAttrs[i]);
                ByteBuffer have = e == null ? null : e.proj()[i];
                if (Objects.equals(want, have)) {
                    continue;
                }
                projChanged = true;
                proj[i] = want == null ? new TablePlan.ProjCell(null, e.projTimestamp()[i], 0)
                        : new TablePlan.ProjCell(want, e == null ? Math.max(vTs, floor) : Math.max(vTs, have == null ? floor : e.projTimestamp()[i] + 1), 0);
            }
            if (tidWrite != null || projChanged) {
                out.add(new TablePlan.Reconciled(index, key, tidWrite, tidTs, 0, proj));
            }
            VersionRow next = last + 1 < ascending.size() ? ascending.get(last + 1) : null;
            long deletedTs = e == null ? Long.MIN_VALUE : e.deletedTimestamp();
            if (next != null) {
                ByteBuffer nextTid = next.get(plan.tidAttribute());
                if (e == null || !nextTid.equals(e.deleted())) {
                    out.add(new TablePlan.MarkDeleted(index, key, nextTid, Math.max(WriteTimestamps.ofSerialized(nextTid), deletedTs + 1)));
                }
            } else if (e != null && e.deleted() != null && Tids.compare(Tids.uuid(e.deleted()), Tids.uuid(vTid)) > 0) {
                // the newest remaining version: a mark not later than _tid makes the entry match again
                out.add(new TablePlan.MarkDeleted(index, key, vTid, Math.max(vTs, deletedTs + 1)));
            }
        }
        return out;
    }

    /**
     * The recorded entry keys of an index that keeps one entry per version (its key holds the tid)
     * that no remaining version has: their versions went away (or were rewritten with another key).
     */
    public static List<List<ByteBuffer>> gone(TablePlan plan, IndexPlan index, List<? extends VersionRow> ascending,
            Map<List<ByteBuffer>, Long> recorded) {
        Set<List<ByteBuffer>> remaining = new java.util.HashSet<>();
        for (VersionRow v : ascending) {
            List<ByteBuffer> key = plan.entryKey(index, v);
            if (key != null) {
                remaining.add(key);
            }
        }
        List<List<ByteBuffer>> out = new ArrayList<>();
        for (List<ByteBuffer> key : recorded.keySet()) {
            if (!remaining.contains(key)) {
                out.add(key);
            }
        }
        return out;
    }

    /**
     * What a recompute writes to an index that keeps one entry per version. Such entries have no
     * {@code _deleted}: a row delete is the only way to make one stop matching, and it shadows every
     * write at or below its timestamp. So every recompute writes at one timestamp {@code at} above
     * everything that may have written those entries before: above each version's TS (the trigger),
     * above the recorded keys' write times, and above {@code recomputedAt} (the highest timestamp an
     * earlier recompute of the row wrote at, the rows table's {@code _w}, which the caller raises to
     * {@link PerVersion#highest} before writing).
     * <ul>
     *   <li>the entry of a recorded key that no remaining version has ({@link #gone}) is deleted,
     *       and the key recorded again at {@code at}, above its version's TS (the trigger records it
     *       at that TS): the mark of a pass that deleted its entry. An entry that reads as absent
     *       may still be landing (the trigger's batch applies the rows table's mutation first), so
     *       the key is forgotten, at the write time it was read with, only once it carries that
     *       mark and its entry reads as absent ({@code absent}: a later pass, the one a second
     *       later); its entry is deleted again then, above anything of it still landing. Never in
     *       the pass that first deletes its entry: were that delete lost, nothing would find the
     *       entry again;
     *   <li>a remaining version whose TS is not above {@code recomputedAt} may have had its entry
     *       deleted by an earlier recompute (it went away and came back; its own writes at its TS
     *       lose to that delete): its entry is written again. A version written again after its entry
     *       was deleted has a TS not above {@code _w}, so its marker makes the service recompute the
     *       row ({@link #needsRecompute});
     *   <li>a remaining version whose entry reads as absent ({@code absent}) is written again: it may
     *       have expired with the TTL of one write of the version while a later write of the version has
     *       none (both wrote at its TS, and Cassandra keeps the expiring cell on that tie), and the
     *       expired cell shadows every write at its TS (docs/design.md section 4.6);
     *   <li>a remaining version's key that the rows table does not record is recorded at {@code at}.
     * </ul>
     *
     * @param ascending the versions that remain, ascending
     * @param recorded each recorded entry key of this index (the rows table's {@code _vkeys}) and its write time
     * @param absent the keys whose entries read as absent before this recompute: gone keys, and keys of remaining versions
     * @param recomputedAt the highest timestamp an earlier recompute wrote at (Long.MIN_VALUE: none)
     * @param unseenGone false: a gone key whose write time is no remaining version's TS is left
     *     alone (its version may be in flight, see {@link #recompute}); true: its version went away
     */
    public static PerVersion perVersion(TablePlan plan, IndexPlan index, List<? extends VersionRow> ascending,
            Map<List<ByteBuffer>, Long> recorded, Set<List<ByteBuffer>> absent, long recomputedAt, boolean unseenGone) {
        if (!index.perVersion()) {
            throw new IllegalArgumentException("index " + index.index().name() + " keeps one entry per row: recompute it with recompute()");
        }
        long at = recomputedAt == Long.MIN_VALUE ? Long.MIN_VALUE : recomputedAt + 1;
        long highest = Long.MIN_VALUE;
        Set<Long> versionTimes = new HashSet<>();
        for (VersionRow v : ascending) {
            versionTimes.add(WriteTimestamps.ofSerialized(v.get(plan.tidAttribute())));
        }
        List<List<ByteBuffer>> delete = new ArrayList<>();
        Map<List<ByteBuffer>, Long> unrecord = new java.util.LinkedHashMap<>();
        List<List<ByteBuffer>> record = new ArrayList<>();
        for (List<ByteBuffer> key : gone(plan, index, ascending, recorded)) {
            long written = recorded.get(key);
            if (!unseenGone && !versionTimes.contains(written)) {
                continue; // not rewritten by a version shown: gone, or in flight (its rows-table key read before its base row)
            }
            delete.add(key); // again when forgotten: above any write of the entry still landing, were the earlier delete lost
            at = Math.max(at, written + 1);
            if (written > versionTs(plan, index, key) && absent.contains(key)) {
                unrecord.put(key, written); // an earlier pass deleted its entry (and recorded it above its version's TS)
                highest = Math.max(highest, written); // a version written again at that TS must be recomputed
            } else {
                record.add(key); // at `at`: the mark of a pass that deleted its entry; an absent entry may still be landing
            }
        }
        List<VersionRow> again = new ArrayList<>();
        for (VersionRow v : ascending) {
            List<ByteBuffer> key = plan.entryKey(index, v);
            if (key == null) {
                continue;
            }
            long ts = WriteTimestamps.ofSerialized(v.get(plan.tidAttribute()));
            if ((recomputedAt != Long.MIN_VALUE && ts <= recomputedAt) || absent.contains(key)) {
                // an entry deleted by an earlier recompute, or one that reads as absent though its version remains: it
                // expired with the TTL of one write of the version while a later write of it has none (both wrote at
                // its TS, and the expiring cell wins that tie), so only a write above its TS brings it back
                again.add(v);
            }
            if (!recorded.containsKey(key)) {
                record.add(key); // its key was forgotten when it went away, or it predates the rows table's _vkeys
            }
            at = Math.max(at, ts + 1);
        }
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        if (delete.isEmpty() && again.isEmpty() && record.isEmpty()) {
            return new PerVersion(index, writes, unrecord, List.of(), Long.MIN_VALUE, highest);
        }
        for (List<ByteBuffer> key : delete) {
            writes.add(new TablePlan.Removed(index, key, at));
        }
        for (VersionRow v : again) {
            ByteBuffer tid = v.get(plan.tidAttribute());
            for (TablePlan.Entry e : plan.derive(v).entries()) {
                if (e.index() == index) {
                    writes.add(new TablePlan.Upsert(e, tid, at));
                }
            }
        }
        return new PerVersion(index, writes, unrecord, record, at, Math.max(highest, at));
    }

    /**
     * A per-version recompute: the index writes, all at {@code at} (Long.MIN_VALUE: none); the
     * recorded keys to forget, each at the write time it was read with; the keys to record, at
     * {@code at}; and the highest timestamp to raise the rows table's {@code _w} to first
     * (Long.MIN_VALUE: none).
     */
    public record PerVersion(IndexPlan index, List<TablePlan.IndexWrite> writes, Map<List<ByteBuffer>, Long> unrecord,
            List<List<ByteBuffer>> record, long at, long highest) {}

    /** The TS of the version whose entry of a per-version index has {@code key} (the key holds the version's tid). */
    private static long versionTs(TablePlan plan, IndexPlan index, List<ByteBuffer> key) {
        int[] attributes = index.keyAttributes();
        for (int i = 0; i < attributes.length; i++) {
            if (attributes[i] == plan.tidAttribute()) {
                return WriteTimestamps.ofSerialized(key.get(i));
            }
        }
        throw new IllegalArgumentException("index " + index.index().name() + " has no tid in its key");
    }

    private static long ticks(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    private static ByteBuffer tid(long ticks) {
        return Tids.bytes(Tids.minAtTicks(ticks));
    }
}
