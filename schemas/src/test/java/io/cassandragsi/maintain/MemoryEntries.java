package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The in-memory twin of a table's index tables ({@link EntryReads}, docs/design.md sections 3.1,
 * 3.2 and 6.8) on the one last-write-wins model ({@link LwwTable}): per index, each entry a row
 * keyed by its entry key, with {@code _tid}, {@code _deleted} and one column per projected
 * attribute (its name). The repair core's writes are applied as the service's statements and the
 * node's mutations make them ({@link #apply}): an upsert is an {@code INSERT} (row marker, {@code
 * _tid}, the projections the write carried, a null one as a tombstone); a mark an {@code UPDATE} of
 * {@code _deleted}; a reconciled entry an {@code UPDATE} per cell with its own timestamp and TTL, a
 * projection to clear a {@code DELETE} of that cell; a removed per-version entry a row delete. The
 * trigger's cells, with a base cell's exact expiry, go in through {@link #merge} and {@link
 * #mergeMarker}. Reads give what the adapters' reads give: an entry exists while its row marker or
 * a cell lives; its state carries the write times of its live cells.
 */
public final class MemoryEntries implements EntryReads {
    private final Map<IndexPlan, LwwTable> tables = new LinkedHashMap<>();
    private final LongSupplier nowMillis;

    public MemoryEntries(List<IndexPlan> indexes, LongSupplier nowMillis) {
        this.nowMillis = nowMillis;
        for (IndexPlan p : indexes) {
            tables.put(p, new LwwTable(nowMillis));
        }
    }

    public LwwTable table(IndexPlan index) {
        LwwTable t = tables.get(index);
        if (t == null) {
            throw new IllegalArgumentException("no index table for " + index.index().name());
        }
        return t;
    }

    /** The column of projection {@code i}: the projected attribute's name. */
    public static String proj(IndexPlan index, int i) {
        Column c = index.index().proj().get(i);
        return c.name();
    }

    // ----- writes

    /** Applies one write of the repair core (or a job) at its own timestamp; TTLs count from now. */
    public void apply(TablePlan.IndexWrite write) {
        IndexPlan index = write.index();
        LwwTable t = table(index);
        List<ByteBuffer> key = write.key();
        if (write instanceof TablePlan.Upsert u) {
            t.insertMarker(key, null, u.timestamp(), 0);
            TablePlan.Entry e = u.entry();
            for (int i = 0; i < e.proj().length; i++) {
                if (e.projKnown()[i]) {
                    t.write(key, null, proj(index, i), e.proj()[i], u.timestamp(), 0);
                }
            }
            if (!index.perVersion()) {
                t.write(key, null, Index.TID_COLUMN, u.tid(), u.timestamp(), 0);
            }
        } else if (write instanceof TablePlan.MarkDeleted m) {
            t.write(key, null, Index.DELETED_COLUMN, m.deletedAt(), m.timestamp(), 0);
        } else if (write instanceof TablePlan.Removed r) {
            t.deleteRow(key, null, r.timestamp());
        } else {
            TablePlan.Reconciled r = (TablePlan.Reconciled) write;
            if (r.tid() != null) {
                t.write(key, null, Index.TID_COLUMN, r.tid(), r.timestamp(), r.ttl());
            }
            for (int i = 0; i < r.proj().length; i++) {
                TablePlan.ProjCell c = r.proj()[i];
                if (c != null) {
                    t.write(key, null, proj(index, i), c.value(), c.timestamp(), c.value() == null ? 0 : c.ttl());
                }
            }
        }
    }

    /** Merges a cell the trigger made ({@code column}: {@link Index#TID_COLUMN} or a projection's), with its own expiry. */
    public void merge(IndexPlan index, List<ByteBuffer> key, String column, LwwTable.Cell cell) {
        table(index).merge(key, null, column, cell);
    }

    /** Merges a row marker the trigger made. */
    public void mergeMarker(IndexPlan index, List<ByteBuffer> key, LwwTable.Cell cell) {
        table(index).mergeMarker(key, null, cell);
    }

    // ----- reads

    /** The entry as {@code IndexTableCql} decodes it: null when the index has no row for the key. */
    public RowReconcile.EntryState entryState(IndexPlan index, List<ByteBuffer> key) {
        LwwTable t = table(index);
        if (!t.exists(key, null)) {
            return null;
        }
        int n = index.projAttributes().length;
        ByteBuffer[] proj = new ByteBuffer[n];
        long[] ts = new long[n];
        for (int i = 0; i < n; i++) {
            LwwTable.Cell c = t.liveCell(key, null, proj(index, i));
            proj[i] = c == null ? null : c.value();
            ts[i] = c == null ? Long.MIN_VALUE : c.timestamp();
        }
        LwwTable.Cell tid = t.liveCell(key, null, Index.TID_COLUMN);
        LwwTable.Cell deleted = t.liveCell(key, null, Index.DELETED_COLUMN);
        // TTL(): the whole seconds left, as Cassandra computes it (localDeletionTime - nowInSec)
        int tidTtl = tid == null || !tid.isExpiring() ? 0 : (int) (tid.localDeletionTime() - Math.floorDiv(nowMillis.getAsLong(), 1000L));
        return new RowReconcile.EntryState(tid == null ? null : tid.value(), deleted == null ? null : deleted.value(), proj, ts,
                tid == null ? Long.MIN_VALUE : tid.timestamp(), deleted == null ? Long.MIN_VALUE : deleted.timestamp(), tidTtl);
    }

    /** Of an index that keeps one entry per row (a per-version index has no state to read: {@code IndexTableCql.entryState} is null). */
    @Override
    public CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>> entryStates(IndexPlan index, Collection<List<ByteBuffer>> keys) {
        if (index.perVersion()) {
            throw new IllegalArgumentException("index " + index.index().name() + " keeps an entry per version: it has no entry state");
        }
        Map<List<ByteBuffer>, RowReconcile.EntryState> out = new LinkedHashMap<>();
        for (List<ByteBuffer> k : keys) {
            RowReconcile.EntryState e = entryState(index, k);
            if (e != null) {
                out.put(k, e);
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public CompletableFuture<Set<List<ByteBuffer>>> absent(IndexPlan index, Collection<List<ByteBuffer>> keys) {
        Set<List<ByteBuffer>> out = new LinkedHashSet<>();
        for (List<ByteBuffer> k : keys) {
            if (!exists(index, k)) {
                out.add(k);
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    /** An entry as a read finds it now: its live {@code _tid}, {@code _deleted} and projections (each null when absent). */
    public record Read(UUID tid, UUID deleted, List<ByteBuffer> proj) {}

    public Read read(IndexPlan index, List<ByteBuffer> key) {
        LwwTable t = table(index);
        ByteBuffer tid = t.value(key, null, Index.TID_COLUMN);
        ByteBuffer deleted = t.value(key, null, Index.DELETED_COLUMN);
        List<ByteBuffer> proj = new ArrayList<>();
        for (int i = 0; i < index.projAttributes().length; i++) {
            proj.add(t.value(key, null, proj(index, i)));
        }
        return new Read(tid == null ? null : Tids.uuid(tid), deleted == null ? null : Tids.uuid(deleted), Collections.unmodifiableList(proj));
    }

    /** Whether the index has a row for the key (a read of the entry finds it). */
    public boolean exists(IndexPlan index, List<ByteBuffer> key) {
        return table(index).exists(key, null);
    }

    /** Every entry key ever written to the index, in the order first written. */
    @SuppressWarnings("unchecked")
    public List<List<ByteBuffer>> keys(IndexPlan index) {
        List<List<ByteBuffer>> out = new ArrayList<>();
        for (LwwTable.RowKey k : table(index).rows()) {
            out.add((List<ByteBuffer>) k.partition());
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        tables.forEach((p, t) -> out.append(p.index().name()).append(":\n").append(t));
        return out.toString();
    }
}
