package io.cassandragsi.maintain;

import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An unversioned table (rows overwritten in place, the version of a write is its write
 * timestamp): a marker makes its row (or every row of a partition the rows table knows, for a
 * range or partition delete) reconciled with what the base holds now (docs/design.md section 6).
 * A row write counts as visible once the rows table shows it or a later write of the row.
 */
public final class UnversionedTable implements TableKind {
    private final TablePlan plan;
    private final CurrentReads current;
    private final RecordReads records;
    private final EntryReads entries;
    private final Writes.Now now;
    private final RepairCounters counters;
    /** False on storage whose reads are bounded (the in-node maintainer): anything but a plain repair is handed off. */
    private final boolean recomputes;
    private final String name;

    UnversionedTable(TablePlan plan, CurrentReads current, RecordReads records, EntryReads entries, Writes.Now now, boolean recomputes, RepairCounters counters) {
        this.plan = plan;
        this.current = current;
        this.records = records;
        this.entries = entries;
        this.now = now;
        this.recomputes = recomputes;
        this.counters = counters;
        this.name = plan.table().qualifiedName();
    }

    @Override
    public TablePlan plan() {
        return plan;
    }

    /** Unversioned rows are read alone (their reconcile reads the row's cells and entries, not a neighbourhood). */
    @Override
    public Map<MarkerGroup, Prefetched> prefetch(List<MarkerGroup> groups) {
        return Map.of();
    }

    @Override
    public Outcome repair(MarkerGroup g, Prefetched pre, Writes.Sink sink) {
        List<ByteBuffer> pk = plan.table().partitionKey().size() == 1 ? List.of(g.pk()) : Composite.decode(g.pk());
        ReadLevel level = g.baseReadLevel();
        if (!recomputes && (g.wholePartition() || g.cas())) {
            return Outcome.HANDOFF;
        }
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        List<RowsWrite> forget = new ArrayList<>();
        Outcome outcome;
        if (g.wholePartition()) {
            PartitionRecords recorded = records.partition(pk);
            Map<List<ByteBuffer>, CurrentRow> rows = new LinkedHashMap<>();
            for (CurrentRow r : current.partition(pk, level)) {
                rows.put(r.rowKey(), r);
            }
            for (RowRecord record : recorded.rows()) {
                CurrentRow row = rows.remove(record.rowKey());
                reconcileRow(record, row == null ? current.absent(record.rowKey()) : row, recorded.partitionWritten(), Long.MAX_VALUE, Long.MAX_VALUE,
                        writes, forget);
            }
            for (CurrentRow row : rows.values()) {
                reconcileRow(RowRecord.none(row.rowKey()), row, recorded.partitionWritten(), Long.MAX_VALUE, Long.MAX_VALUE, writes, forget);
            }
            outcome = Outcome.AGAIN;
        } else {
            List<ByteBuffer> rowKey = new ArrayList<>(pk);
            rowKey.addAll(Composite.decode(g.ck()));
            long marked = WriteTimestamps.of(g.tidMax()) / 10;
            RowRecord record = records.record(rowKey).join();
            if (!g.cas() && (record == null || record.written() < marked)) {
                return Outcome.RETRY; // the write is not visible yet (its batch is in flight)
            }
            if (record == null) {
                record = RowRecord.none(rowKey);
            }
            // AGAIN when the rows table shows a write later than the group's oldest: an earlier write may still be
            // landing its entry (a coalesced group's older writes too); and when a reconcile of the row running at the
            // same time may miss this one's writes, or this one a write still landing (docs/design.md section 6.6)
            long oldest = WriteTimestamps.of(g.tidMin()) / 10;
            boolean mayLand = record.written() > oldest || tied(g, record, marked);
            // the first pass over writes that may still be landing deletes none of their projections: their entries may
            // have landed before their base cells (docs/design.md section 4.3); the pass a second later does
            long landingFrom = mayLand && !g.unseenGone() ? oldest : Long.MAX_VALUE;
            // the hint is this write's own timestamp, not the newest seen: an entry marked later than
            // needed would hide, until the next repair, a write that makes it match again
            boolean racing = reconcileRow(record, current.row(rowKey, level), marked, landingFrom, oldest, writes, forget);
            outcome = g.cas() || mayLand || racing ? Outcome.AGAIN : Outcome.DONE;
        }
        sink.write(writes, forget);
        counters.written(name, writes);
        counters.diffs.increment();
        return outcome;
    }

    /**
     * Whether the rows table's newest write is at the group's timestamp but may be another write's
     * (docs/design.md section 6.6): {@code _wid} names a write outside the group, or the group holds
     * several writes at that one timestamp. Two writes of a row at one client timestamp tie, and
     * the group's own may still be landing: the reconcile saw the row without it, and its pass a
     * second later sees it. A rows table without {@code _wid} tells nothing: taken for the group's.
     */
    private static boolean tied(MarkerGroup g, RowRecord record, long marked) {
        if (record.written() != marked || record.writtenBy() == null) {
            return false;
        }
        // the group's own write set _w only when every marker of the group is that write's (a marker read twice included)
        for (java.util.UUID id : g.markerIds()) {
            if (!id.equals(record.writtenBy())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Adds the writes that reconcile one row to {@code writes}, and to {@code forget} the
     * rows-table updates that drop the keys nothing will look for again ({@link
     * RowReconcile#settled}): those updates do not depend on this reconcile's writes. Returns
     * whether it may race another reconcile of the row ({@link #racing}). {@code stopHint} is the
     * group's newest write (microseconds) and {@code ownFrom} its oldest: the keys recorded between
     * them are the group's own ({@link Long#MAX_VALUE}: a whole partition's group, none);
     * projections written at or after {@code landingFrom} are kept ({@link RowReconcile#reconcile}).
     */
    private boolean reconcileRow(RowRecord record, CurrentRow row, long stopHint, long landingFrom, long ownFrom, List<TablePlan.IndexWrite> writes,
            List<RowsWrite> forget) {
        Map<String, Map<List<ByteBuffer>, Long>> settled = new LinkedHashMap<>();
        boolean racing = false;
        // the row's newest write the rows table shows (a range or partition delete's, a conditional write's hint
        // included), read before the row: what the base showed, and what a settled key must be older than
        long newestWrite = Math.max(record.written(), stopHint);
        for (Reconcile.IndexResult r : Reconcile.row(plan, entries, plan.indexes(), record, row, stopHint, newestWrite, landingFrom, now)) {
            writes.addAll(r.writes());
            String index = r.index().index().name();
            Map<List<ByteBuffer>, Long> times = record.keyTimes(index);
            List<List<ByteBuffer>> forgotten = RowReconcile.settled(plan, r.index(), row.cells(), times, r.entries(), newestWrite);
            for (List<ByteBuffer> key : forgotten) {
                settled.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(key, times.get(key));
            }
            racing |= racing(r, times, forgotten, ownFrom, stopHint);
        }
        if (!settled.isEmpty()) {
            forget.add(new RowsWrite.ForgetKeys(row.rowKey(), settled));
            counters.forgotten.add(settled.values().stream().mapToInt(Map::size).sum());
        }
        return racing;
    }

    /**
     * Whether a reconcile of the same row running at the same time (in node mode the node reconciles
     * the plain writes and the service the others) may have read the row before this one's writes
     * land, or this one may have read an entry before a write lands it, so that one of them misses
     * a mark (docs/design.md section 6.6): this reconcile records the key the row has now (one that
     * read the rows table before does not look at that key), or makes its marked entry match again
     * (one that read it before leaves it marked); or a recorded key, not the row's now nor
     * forgotten, has no entry as read (a trigger's or another reconcile's write may still be
     * landing it); or a key the group's own writes recorded ({@code ownFrom} to {@code ownTo},
     * microseconds), not the row's now, whose entry shows no {@code _tid} of that write (its entry,
     * written by the trigger in the same batch, may land after this read: an entry marked long ago
     * reads as present, without a {@code _tid}); or the key the row has now is the group's own and
     * its entry shows no {@code _tid} of that write while a projection was left unwritten (the base
     * has no live cell for it, and the trigger's entry, landing after this read, may carry a value
     * the base lost at the same timestamp: an expired cell wins that tie, and only a pass that sees
     * the entry can delete its value at that timestamp). Plain writes whose entries have landed do
     * none of these.
     */
    private static boolean racing(Reconcile.IndexResult r, Map<List<ByteBuffer>, Long> recorded, List<List<ByteBuffer>> forgotten, long ownFrom,
            long ownTo) {
        RowReconcile.EntryState now = r.current() == null ? null : r.entries().get(r.current());
        if (r.recorded() || (now != null && !now.matches())) {
            return true;
        }
        Long currentAt = r.current() == null ? null : recorded.get(r.current());
        if (currentAt != null && currentAt >= ownFrom && currentAt <= ownTo && !shows(now, currentAt) && leftUnwritten(r)) {
            return true;
        }
        for (Map.Entry<List<ByteBuffer>, Long> k : recorded.entrySet()) {
            List<ByteBuffer> key = k.getKey();
            if (key.equals(r.current()) || forgotten.contains(key)) {
                continue;
            }
            RowReconcile.EntryState e = r.entries().get(key);
            if (e == null) {
                return true;
            }
            long at = k.getValue();
            boolean own = at >= ownFrom && at <= ownTo;
            if (own && !shows(e, at)) {
                return true;
            }
        }
        return false;
    }

    /** Whether entry {@code e} as read shows a {@code _tid} of the write at {@code at} (microseconds) or later. */
    private static boolean shows(RowReconcile.EntryState e, long at) {
        return e != null && e.tid() != null && RowReconcile.ticksOfMicros(at) <= WriteTimestamps.ofSerialized(e.tid());
    }

    /** Whether the reconcile of the row's current key left a projection unwritten (neither the base's value nor a delete). */
    private static boolean leftUnwritten(Reconcile.IndexResult r) {
        for (TablePlan.IndexWrite w : r.writes()) {
            if (w instanceof TablePlan.Reconciled c && c.key().equals(r.current())) {
                for (TablePlan.ProjCell p : c.proj()) {
                    if (p == null) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
