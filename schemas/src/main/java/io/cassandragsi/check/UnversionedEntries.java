package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The jobs' rule for an unversioned table (docs/design.md sections 3.1, 4.3 and 9): a row is its
 * cells now. It has one entry per index, at the key its live cells give; that entry's {@code _tid}
 * is {@code tid(w)} of its newest key cell (the tick {@code 10·w}), or, when the entry was marked
 * at or after that tick and matches again, the tick after its {@code _deleted}; it has no later
 * {@code _deleted}, and its projections are the row's live projected values. Every other entry of
 * the row must not match. Derived here from the cells, not by a dry run of the repair core's
 * reconcile ({@link RowReconcile}), which only writes what a rebuild or a fix sends.
 */
public final class UnversionedEntries extends Judged<RowHistory.Current> implements EntryRule<RowHistory.Current> {

    UnversionedEntries(TablePlan plan) {
        super(plan);
    }

    @Override
    public RowScans<RowHistory.Current> rows(ScanStores stores) {
        return stores.current();
    }

    /** The newest write time (microseconds) of the row's live cells at {@code attributes} that are not of its primary key. */
    private static long newest(RowReconcile.BaseRow cells, int[] attributes) {
        long newest = Long.MIN_VALUE;
        for (int a : attributes) {
            if (a >= 0 && cells.cells()[a].value() != null) {
                newest = Math.max(newest, cells.cells()[a].writetime()); // Long.MIN_VALUE for a primary-key attribute
            }
        }
        return newest;
    }

    @Override
    public Map<List<ByteBuffer>, Expected> expected(IndexPlan index, RowHistory.Current row) {
        RowReconcile.BaseRow cells = row.row().cells();
        List<ByteBuffer> key = plan.entryKey(index, cells);
        long newest = newest(cells, index.keyAttributes());
        if (key == null || newest == Long.MIN_VALUE) {
            return Map.of();
        }
        int[] projAttrs = index.projAttributes();
        ByteBuffer[] proj = new ByteBuffer[projAttrs.length];
        for (int i = 0; i < projAttrs.length; i++) {
            proj[i] = cells.cells()[projAttrs[i]].value();
        }
        return Map.of(key, new Expected(Tids.minAtTicks(RowReconcile.ticksOfMicros(newest)), null, Arrays.asList(proj)));
    }

    @Override
    public int tooLarge(IndexPlan index, RowHistory.Current row) {
        return plan.keyTooLarge(index, row.row().cells()) ? 1 : 0;
    }

    @Override
    long newestTimestamp(RowHistory.Current row) {
        RowReconcile.BaseCell[] cells = row.row().cells().cells();
        long newest = Long.MIN_VALUE;
        for (RowReconcile.BaseCell c : cells) {
            if (c.value() != null && c.writetime() != Long.MIN_VALUE) {
                newest = Math.max(newest, RowReconcile.ticksOfMicros(c.writetime()));
            }
        }
        return newest;
    }

    /** The tick of the newest key cell; or, for an entry marked at or after it that matches again, the tick after the mark (section 4.3). */
    @Override
    boolean tidAsExpected(Expected expected, Observed observed) {
        if (observed.tid() == null) {
            return false;
        }
        long want = WriteTimestamps.of(expected.tid());
        long tid = WriteTimestamps.of(observed.tid());
        if (tid == want) {
            return true;
        }
        UUID mark = observed.deleted();
        return mark != null && WriteTimestamps.of(mark) >= want && tid == WriteTimestamps.of(mark) + 1;
    }

    /** An unversioned entry has no {@code _deleted} to expect: any other is wrong. */
    @Override
    boolean laterNonMatching(IndexPlan index, List<ByteBuffer> key, UUID exact, UUID observed, RowHistory.Current row) {
        return false;
    }

    @Override
    public boolean rebuildReadsEntries() {
        return true;
    }

    /**
     * The entry each index's current key should be, with the repair core's mirrored timestamps and
     * TTLs ({@link RowReconcile#reconcile} of that key alone: {@code _tid} after a mark it must
     * pass, projections the base no longer has deleted at their own timestamps), and the key
     * recorded first where the rows table lacks it, above its {@code _w} (section 4.5). No marks:
     * entries the row no longer explains are {@code check --fix}'s.
     */
    @Override
    public Rewrite rebuild(RowHistory.Current row, RowRecord record, Collection<IndexPlan> indexes,
            Map<IndexPlan, Map<List<ByteBuffer>, Observed>> entries) {
        Rewrite out = Rewrite.NONE;
        for (IndexPlan index : indexes) {
            out = out.plus(write(index, row, record, entries.getOrDefault(index, Map.of())));
        }
        return out;
    }

    @Override
    public Rewrite fix(IndexPlan index, RowHistory.Current row, RowRecord record, Map<List<ByteBuffer>, Observed> entries,
            Set<List<ByteBuffer>> keys, long nowTs) {
        List<ByteBuffer> current = plan.entryKey(index, row.row().cells());
        return current != null && keys.contains(current) ? write(index, row, record, entries) : Rewrite.NONE;
    }

    private Rewrite write(IndexPlan index, RowHistory.Current row, RowRecord record, Map<List<ByteBuffer>, Observed> entries) {
        RowReconcile.BaseRow cells = row.row().cells();
        List<ByteBuffer> key = plan.entryKey(index, cells);
        long newest = newest(cells, index.keyAttributes());
        if (key == null || newest == Long.MIN_VALUE) {
            return Rewrite.NONE;
        }
        Map<List<ByteBuffer>, RowReconcile.EntryState> states = new LinkedHashMap<>();
        Observed seen = entries.get(key);
        if (seen != null) {
            states.put(key, seen.state());
        }
        List<TablePlan.IndexWrite> writes = RowReconcile.reconcile(plan, index, cells, List.of(), states, Long.MIN_VALUE, Long.MAX_VALUE);
        List<RowsWrite> first = new ArrayList<>();
        String name = index.index().name();
        if (record == null || !record.keys(name).contains(key)) {
            // above _w: the rows table may have forgotten the key at a write time up to that (RowReconcile.settled)
            long at = record == null || record.written() == Long.MIN_VALUE ? newest : Math.max(newest, record.written() + 1);
            first.add(new RowsWrite.AddKeys(row.rowKey(), Map.of(name, List.of(key)), at));
        }
        return new Rewrite(first, writes, List.of());
    }
}
