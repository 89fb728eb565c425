package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.oracle.LwwTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's index tables in the one last-write-wins model ({@link LwwTable}): each entry a row
 * keyed by its entry key, with {@code _tid}, {@code _deleted} and one column per projection. The
 * writes the pure core returns are applied as the repair service's statements make them
 * ({@code IndexTable}), at their own timestamps: an upsert is an {@code INSERT} (row marker,
 * {@code _tid}, the projections the write carried); a mark an {@code UPDATE} of {@code
 * _deleted}; a reconciled entry one {@code UPDATE} per cell with its TTL, a projection to clear a
 * {@code DELETE} of that cell; a removed per-version entry a row delete. Reads give what the
 * service's reads give ({@link #entryState}, {@link #exists}).
 */
final class IndexModel {
    static final String TID = "_tid";
    static final String DELETED = "_deleted";

    private final Map<IndexPlan, LwwTable> tables = new LinkedHashMap<>();
    private final java.util.function.LongSupplier clock;

    IndexModel(List<IndexPlan> indexes, java.util.function.LongSupplier nowMillis) {
        this.clock = nowMillis;
        for (IndexPlan p : indexes) {
            tables.put(p, new LwwTable(nowMillis));
        }
    }

    LwwTable table(IndexPlan index) {
        return tables.get(index);
    }

    static String proj(int i) {
        return "proj" + i;
    }

    /** Applies one write of the repair service (or a rebuild) at its own timestamp; TTLs count from now. */
    void apply(TablePlan.IndexWrite write) {
        LwwTable t = tables.get(write.index());
        List<ByteBuffer> key = write.key();
        if (write instanceof TablePlan.Upsert u) {
            t.insertMarker(key, null, u.timestamp(), 0);
            TablePlan.Entry e = u.entry();
            for (int i = 0; i < e.proj().length; i++) {
                if (e.projKnown()[i]) {
                    t.write(key, null, proj(i), e.proj()[i], u.timestamp(), 0);
                }
            }
            if (!write.index().perVersion()) {
                t.write(key, null, TID, u.tid(), u.timestamp(), 0);
            }
        } else if (write instanceof TablePlan.MarkDeleted m) {
            t.write(key, null, DELETED, m.deletedAt(), m.timestamp(), 0);
        } else if (write instanceof TablePlan.Removed r) {
            t.deleteRow(key, null, r.timestamp());
        } else {
            TablePlan.Reconciled r = (TablePlan.Reconciled) write;
            if (r.tid() != null) {
                t.write(key, null, TID, r.tid(), r.timestamp(), r.ttl());
            }
            for (int i = 0; i < r.proj().length; i++) {
                TablePlan.ProjCell c = r.proj()[i];
                if (c != null) {
                    t.write(key, null, proj(i), c.value(), c.timestamp(), c.value() == null ? 0 : c.ttl());
                }
            }
        }
    }

    /** Merges a cell the caller made (the trigger's, with the base cell's exact expiry). */
    void merge(IndexPlan index, List<ByteBuffer> key, String column, LwwTable.Cell cell) {
        tables.get(index).merge(key, null, column, cell);
    }

    /** Merges a row marker the caller made. */
    void mergeMarker(IndexPlan index, List<ByteBuffer> key, LwwTable.Cell cell) {
        tables.get(index).mergeMarker(key, null, cell);
    }

    /** The entry as {@code IndexTable.entryStateAsync} reads it: null when the index has no row for the key. */
    RowReconcile.EntryState entryState(IndexPlan index, List<ByteBuffer> key) {
        LwwTable t = tables.get(index);
        if (!t.exists(key, null)) {
            return null;
        }
        int n = index.projAttributes().length;
        ByteBuffer[] proj = new ByteBuffer[n];
        long[] ts = new long[n];
        for (int i = 0; i < n; i++) {
            LwwTable.Cell c = t.liveCell(key, null, proj(i));
            proj[i] = c == null ? null : c.value();
            ts[i] = c == null ? Long.MIN_VALUE : c.timestamp();
        }
        LwwTable.Cell tid = t.liveCell(key, null, TID);
        LwwTable.Cell deleted = t.liveCell(key, null, DELETED);
        return new RowReconcile.EntryState(tid == null ? null : tid.value(), deleted == null ? null : deleted.value(), proj, ts,
                tid == null ? Long.MIN_VALUE : tid.timestamp(), deleted == null ? Long.MIN_VALUE : deleted.timestamp());
    }

    /** The entries of {@code keys} that have a row. */
    Map<List<ByteBuffer>, RowReconcile.EntryState> entryStates(IndexPlan index, Iterable<List<ByteBuffer>> keys) {
        Map<List<ByteBuffer>, RowReconcile.EntryState> out = new LinkedHashMap<>();
        for (List<ByteBuffer> k : keys) {
            RowReconcile.EntryState e = entryState(index, k);
            if (e != null) {
                out.put(k, e);
            }
        }
        return out;
    }

    /** An entry as a read finds it now: its live {@code _tid}, {@code _deleted} and projections (each null when absent). */
    record Read(java.util.UUID tid, java.util.UUID deleted, List<ByteBuffer> proj) {}

    Read read(IndexPlan index, List<ByteBuffer> key) {
        LwwTable t = tables.get(index);
        ByteBuffer tid = t.value(key, null, TID);
        ByteBuffer deleted = t.value(key, null, DELETED);
        List<ByteBuffer> proj = new ArrayList<>();
        for (int i = 0; i < index.projAttributes().length; i++) {
            proj.add(t.value(key, null, proj(i)));
        }
        return new Read(tid == null ? null : io.cassandragsi.index.Tids.uuid(tid), deleted == null ? null : io.cassandragsi.index.Tids.uuid(deleted),
                java.util.Collections.unmodifiableList(proj));
    }

    /** Whether the index has a row for the key (a read of the entry finds it). */
    boolean exists(IndexPlan index, List<ByteBuffer> key) {
        return tables.get(index).exists(key, null);
    }

    /** Every entry key ever written to the index. */
    @SuppressWarnings("unchecked")
    List<List<ByteBuffer>> keys(IndexPlan index) {
        List<List<ByteBuffer>> out = new ArrayList<>();
        for (LwwTable.RowKey k : tables.get(index).rows()) {
            out.add((List<ByteBuffer>) k.partition());
        }
        return out;
    }

    long nowMillis() {
        return clock.getAsLong();
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        tables.forEach((p, t) -> out.append(p.index().name()).append(":\n").append(t));
        return out.toString();
    }
}
