package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * What the trigger writes into the twins ({@link MemoryStores}) for one client statement, written
 * again from docs/design.md sections 5.2 to 5.4, as thin as {@code VersionedUpdates} and {@code
 * UnversionedUpdates} are: the base mutation with its rows-table record (one mutation: the same
 * partition key), each index entry (a mutation each), and the marker (null when none is queued).
 * Every mutation is made now and lands when run, so a test lands a batch mutation by mutation in
 * any order, or holds the base back ("not visible yet"). What to write is the pure core's ({@link
 * TablePlan#derive}).
 */
public final class MemoryTrigger {
    /** docs/design.md section 5.2: a write more than a second after its tid is taken for a rewrite. */
    public static final long REWRITE_AFTER_MICROS = 1_000_000L;
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final MemoryStores stores;
    private final TablePlan plan;
    private final LongSupplier nowMillis;
    private final int partitionSize;
    private final int[] rowKeyAttributes;
    private final List<String> names;
    private long ids;

    /**
     * One statement's logged batch: the base write, the rows-table record (in atomic indexing one
     * mutation with the base write: the same partition key; in eventual indexing sent later with the
     * entries, docs/design.md section 7.11), the entries, its marker (null: none), and for a version
     * written with a TTL the marker due at its expiry (at {@code expiryDue}, epoch milliseconds).
     */
    public record Batch(Runnable write, Runnable record, List<Runnable> entries, Marker marker, Marker expiry, long expiryDue) {
        /** The base mutation as atomic indexing writes it: the base write with the rows-table record. */
        public Runnable base() {
            return () -> {
                write.run();
                record.run();
            };
        }

        /** Lands the whole batch: the base mutation, then every entry. */
        public void land() {
            base().run();
            entries.forEach(Runnable::run);
        }

        /** The marker as the one group a worker repairs. */
        public MarkerGroup group() {
            return MarkerGroup.coalesce(List.of(marker)).get(0);
        }
    }

    private static final Runnable NOTHING = () -> {};

    public MemoryTrigger(MemoryStores stores, LongSupplier nowMillis) {
        this.stores = stores;
        this.plan = stores.plan;
        this.nowMillis = nowMillis;
        this.partitionSize = plan.table().partitionKey().size();
        this.rowKeyAttributes = RowsLayout.rowKeyAttributes(plan.table());
        this.names = new ArrayList<>(plan.table().attributes().keySet());
    }

    /** A fresh marker id: a timeuuid of the moment {@code atMillis}, as the trigger and the maintainer take them. */
    public UUID newId(long atMillis) {
        return Tids.fromTicks(atMillis * 10_000L + (ids % 10_000), ++ids);
    }

    /** A marker of a row ({@code tidMin} null: of the whole partition of {@code rowKey}), with an id of now. */
    public Marker marker(List<ByteBuffer> rowKey, UUID tidMin, UUID tidMax, int flags) {
        return marker(rowKey, tidMin, tidMax, flags, nowMillis.getAsLong());
    }

    private Marker marker(List<ByteBuffer> rowKey, UUID tidMin, UUID tidMax, int flags, long atMillis) {
        List<ByteBuffer> pk = rowKey.subList(0, partitionSize);
        ByteBuffer pkBytes = partitionSize == 1 ? pk.get(0).duplicate() : Composite.encode(pk);
        ByteBuffer ck = tidMin == null ? ByteBuffer.allocate(0) : Composite.encode(rowKey.subList(partitionSize, rowKey.size()));
        return new Marker(newId(atMillis), plan.table().keyspace(), plan.table().table(), pkBytes, ck, tidMin, tidMax, flags);
    }

    private List<ByteBuffer> rowKey(VersionRow v) {
        List<ByteBuffer> out = new ArrayList<>();
        for (int a : rowKeyAttributes) {
            out.add(v.get(a));
        }
        return out;
    }

    // ----- versioned tables (docs/design.md section 5.2)

    /** A write of version {@code v} (the attributes it carries) at client timestamp {@code w}: an {@code INSERT} or an {@code UPDATE}. */
    public Batch write(VersionRow v, boolean insert, long w, int ttl) {
        long nowSec = Math.floorDiv(nowMillis.getAsLong(), 1000L);
        List<ByteBuffer> rowKey = rowKey(v);
        ByteBuffer tidBytes = v.get(plan.tidAttribute());
        UUID tid = Tids.uuid(tidBytes);
        long ts = WriteTimestamps.of(tid);
        TablePlan.Derivation d = plan.derive(v);
        Runnable baseWrite = stores.base.write(v, insert, w, ttl);
        Runnable record = () -> {
            for (TablePlan.Entry e : d.entries()) {
                stores.records.recordKey(rowKey, e.index().index().name(), e.key(), ts, e.index().perVersion());
            }
            if (d.keysKnown()) {
                stores.records.recordNewest(rowKey, w, ts);
            }
        };
        // each entry at the version's TS, expiring with the version (CompiledTable.entryMutation)
        List<Runnable> entries = new ArrayList<>();
        for (TablePlan.Entry e : d.entries()) {
            entries.add(() -> {
                boolean expiring = ttl > 0 && (insert || !e.index().perVersion());
                stores.entries.mergeMarker(e.index(), e.key(), expiring ? Cell.expiring(EMPTY, ts, ttl, nowSec) : Cell.live(EMPTY, ts));
                for (int i = 0; i < e.proj().length; i++) {
                    if (e.projKnown()[i]) {
                        ByteBuffer p = e.proj()[i];
                        stores.entries.merge(e.index(), e.key(), MemoryEntries.proj(e.index(), i),
                                p == null ? Cell.tombstone(ts, nowSec) : Cell.written(p, ts, ttl, nowSec));
                    }
                }
                if (!e.index().perVersion()) {
                    stores.entries.merge(e.index(), e.key(), Index.TID_COLUMN,
                            expiring ? Cell.expiring(tidBytes, ts, ttl, nowSec) : Cell.live(tidBytes, ts));
                }
            });
        }
        int flags = 0;
        if (ttl > 0 || w - ts / 10 > REWRITE_AFTER_MICROS) {
            flags |= QueueLayout.FLAG_DELETE;
        }
        if (!d.complete()) {
            flags |= QueueLayout.FLAG_PARTIAL;
            if (carriesEverProjection(v)) {
                flags |= QueueLayout.FLAG_DELETE; // its projections tie with the stored ones at the version's TS
            }
        }
        Marker marker = plan.hasEverIndex() || flags != 0 ? marker(rowKey, tid, tid, flags) : null;
        long due = (nowSec + ttl) * 1000 + 1000;
        Marker expiry = ttl > 0 ? marker(rowKey, tid, tid, QueueLayout.FLAG_DELETE, due) : null;
        return new Batch(baseWrite, record, entries, marker, expiry, due);
    }

    private boolean carriesEverProjection(VersionRow v) {
        return plan.indexes().stream().filter(p -> !p.perVersion()).flatMapToInt(p -> Arrays.stream(p.projAttributes())).anyMatch(v::has);
    }

    /** A delete of one version: queued for a recompute of its row. */
    public Batch deleteVersion(List<ByteBuffer> rowKey, UUID tid, long ts) {
        return new Batch(stores.base.deleteVersion(rowKey, tid, ts), NOTHING, List.of(), marker(rowKey, tid, tid, QueueLayout.FLAG_DELETE), null, 0);
    }

    /** A range delete of a row's versions: the whole partition queued. */
    public Batch deleteRange(List<ByteBuffer> rowKey, UUID from, UUID to, long ts) {
        return new Batch(stores.base.deleteRange(rowKey, from, to, ts), NOTHING, List.of(), marker(rowKey, null, null, QueueLayout.FLAG_DELETE), null,
                0);
    }

    /** A partition delete (either kind of table): the whole partition queued; an unversioned table's rows table records it. */
    public Batch deletePartition(List<ByteBuffer> partitionKey, long ts) {
        Runnable delete = stores.base != null ? stores.base.deletePartition(partitionKey, ts) : stores.current.deletePartition(partitionKey, ts);
        Runnable record = stores.base != null ? NOTHING : () -> stores.records.recordPartitionWrite(partitionKey, ts);
        return new Batch(delete, record, List.of(), marker(partitionKey, null, null, QueueLayout.FLAG_DELETE), null, 0);
    }

    // ----- unversioned tables (docs/design.md section 5.3)

    /** A statement writing {@code values} (by attribute name; null: a tombstone) of a row at {@code w}: an {@code INSERT} or an {@code UPDATE}. */
    public Batch write(List<ByteBuffer> rowKey, Map<String, ByteBuffer> values, boolean insert, long w, int ttl) {
        long nowSec = Math.floorDiv(nowMillis.getAsLong(), 1000L);
        Map<String, Cell> cells = stores.current.cells(values, w, ttl);
        ByteBuffer[] carried = new ByteBuffer[names.size()];
        boolean[] has = new boolean[names.size()];
        for (int i = 0; i < rowKeyAttributes.length; i++) {
            carried[rowKeyAttributes[i]] = rowKey.get(i);
            has[rowKeyAttributes[i]] = true;
        }
        cells.forEach((c, cell) -> {
            carried[names.indexOf(c)] = cell.value();
            has[names.indexOf(c)] = true;
        });
        TablePlan.Derivation d = plan.derive(new Version(carried, -1, bits(has)));
        Runnable baseWrite = stores.current.write(rowKey, cells, insert ? Cell.written(EMPTY, w, ttl, nowSec) : null);
        int flags = ttl > 0 ? QueueLayout.FLAG_DELETE : 0;
        if (!d.complete() || d.entries().size() < plan.indexes().size()) {
            flags |= QueueLayout.FLAG_PARTIAL;
        }
        UUID version = Tids.uuid(RowReconcile.tidOfMicros(w));
        Marker marker = marker(rowKey, version, version, flags);
        Runnable record = () -> {
            for (TablePlan.Entry e : d.entries()) {
                stores.records.recordKey(rowKey, e.index().index().name(), e.key(), w, false);
            }
            stores.records.recordWritten(rowKey, w, marker.id());
        };
        List<Runnable> entries = new ArrayList<>();
        for (TablePlan.Entry e : d.entries()) {
            entries.add(() -> mirror(e, cells));
        }
        return new Batch(baseWrite, record, entries, marker, null, 0);
    }

    private static BitSet bits(boolean[] has) {
        BitSet out = new BitSet(has.length);
        for (int i = 0; i < has.length; i++) {
            out.set(i, has[i]);
        }
        return out;
    }

    /** The trigger's entry: every cell mirrors the base cell it comes from (CompiledTable.unversionedEntryMutation). */
    private void mirror(TablePlan.Entry e, Map<String, Cell> cells) {
        IndexPlan p = e.index();
        Cell first = null;
        long newest = Long.MIN_VALUE;
        for (int a : p.keyAttributes()) {
            Cell c = a < 0 ? null : cells.get(names.get(a));
            if (c == null) {
                continue; // a primary-key attribute
            }
            newest = Math.max(newest, c.timestamp());
            if (c.isExpiring() && (first == null || c.localDeletionTime() < first.localDeletionTime())) {
                first = c;
            }
        }
        long ts = RowReconcile.ticksOfMicros(newest);
        ByteBuffer tid = RowReconcile.tidOfMicros(newest);
        stores.entries.merge(p, e.key(), Index.TID_COLUMN, first == null ? Cell.live(tid, ts) : new Cell(tid, ts, first.ttl(), first.localDeletionTime()));
        int[] proj = p.projAttributes();
        for (int i = 0; i < proj.length; i++) {
            Cell c = cells.get(names.get(proj[i]));
            if (c != null) {
                stores.entries.merge(p, e.key(), MemoryEntries.proj(p, i),
                        new Cell(c.value(), RowReconcile.ticksOfMicros(c.timestamp()), c.ttl(), c.localDeletionTime()));
            }
        }
    }

    /** {@code DELETE FROM ... WHERE <primary key>} of an unversioned row (a partition delete when the table has no clustering columns). */
    public Batch deleteRow(List<ByteBuffer> rowKey, long ts) {
        if (rowKey.size() == partitionSize) {
            return deletePartition(rowKey, ts);
        }
        Runnable delete = stores.current.deleteRow(rowKey, ts);
        UUID version = Tids.uuid(RowReconcile.tidOfMicros(ts));
        Marker marker = marker(rowKey, version, version, QueueLayout.FLAG_DELETE);
        return new Batch(delete, () -> stores.records.recordWritten(rowKey, ts, marker.id()), List.of(), marker, null, 0);
    }
}
