package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Reconciles one row of an unversioned table for the maintainers ({@link UnversionedTable};
 * docs/design.md section 6; a check judges rows by the pure {@link RowReconcile} alone): reads the index entries of every key the row has had and of the key
 * it has now, asks the pure {@link RowReconcile} what to write, and records in the rows table any
 * key the row lacks there before its entry is written, so that a later repair always finds it.
 * Writing the entries is the caller's.
 */
public final class Reconcile {
    private Reconcile() {}

    /**
     * What one index needs for a row: the writes, the entries as read, and whether the key the row
     * has now was recorded first (at once) by this reconcile.
     */
    public record IndexResult(IndexPlan index, List<ByteBuffer> current, List<TablePlan.IndexWrite> writes,
            Map<List<ByteBuffer>, RowReconcile.EntryState> entries, boolean recorded) {}

    /**
     * @param indexes the indexes to reconcile (each of {@code plan})
     * @param now where the key the row has now is recorded first
     * @param shownUpTo the newest write of the row the rows table showed before the row was read
     *     (microseconds): entries of later writes are left to those writes' markers ({@link
     *     RowReconcile#reconcile})
     * @param landingFrom projections written at or after this (microseconds) may be of a write still
     *     landing: not deleted ({@link Long#MAX_VALUE}: none)
     */
    public static List<IndexResult> row(TablePlan plan, EntryReads entries, Collection<IndexPlan> indexes, RowRecord record, CurrentRow row,
            long stopHint, long shownUpTo, long landingFrom, Writes.Now now) {
        Map<String, List<List<ByteBuffer>>> newKeys = new LinkedHashMap<>();
        long newest = 0;
        List<CompletableFuture<IndexResult>> perIndex = new ArrayList<>();
        for (IndexPlan index : indexes) {
            String name = index.index().name();
            List<ByteBuffer> current = plan.entryKey(index, row.cells());
            Set<List<ByteBuffer>> keys = new LinkedHashSet<>(record.keys(name));
            long keyWritten = Long.MIN_VALUE;
            if (current != null) {
                for (int a : index.keyAttributes()) {
                    if (a >= 0) {
                        keyWritten = Math.max(keyWritten, row.cells().cells()[a].writetime());
                    }
                }
            }
            // recorded again when its element is older than its newest key cell: another maintainer's reconcile may be
            // forgetting that element (RowReconcile.settled, at its own write time) while this one writes the entry
            boolean recorded = current != null
                    && (!keys.contains(current) || record.keyTimes(name).getOrDefault(current, Long.MIN_VALUE) < keyWritten);
            if (recorded) {
                newKeys.put(name, List.of(current));
                newest = Math.max(newest, keyWritten);
            }
            Set<List<ByteBuffer>> read = new LinkedHashSet<>(keys);
            if (current != null) {
                read.add(current);
            }
            // the candidates are the recorded keys alone: whether the current one is among them tells whether its entry
            // may have been written, and expired (RowReconcile.tidAt)
            perIndex.add(entries.entryStates(index, read).thenApply(found -> new IndexResult(index, current,
                    RowReconcile.reconcile(plan, index, row.cells(), keys, found, stopHint, shownUpTo, landingFrom), found, recorded)));
        }
        if (!newKeys.isEmpty()) {
            // above _w: the rows table may have forgotten the key at a write time up to that (RowReconcile.settled)
            long at = record.written() == Long.MIN_VALUE ? newest : Math.max(newest, record.written() + 1);
            now.write(List.of(new RowsWrite.AddKeys(row.rowKey(), newKeys, at)));
        }
        List<IndexResult> out = new ArrayList<>(perIndex.size());
        for (CompletableFuture<IndexResult> f : perIndex) {
            out.add(f.join());
        }
        return out;
    }
}
