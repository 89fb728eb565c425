package io.cassandragsi.maintain;

import io.cassandragsi.index.Tids;

import java.util.UUID;

import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The in-memory twin of a base table's rows table ({@link RecordReads}, docs/design.md sections 3.3
 * and 4.5) on the one last-write-wins model ({@link LwwTable}): a row is named by the partition key
 * values and the clustering values before the tid (both {@code List<ByteBuffer>}); {@code _pw}
 * lives in the partition's static row. Elements of {@code _keys} and {@code _vkeys} are {@link
 * RowsLayout#element}s with their own write times; {@code _w}, {@code _whi}, {@code _wlo} and
 * {@code _pw} are bigint cells. A record reads as {@code RowsTableCql} decodes it: the keys and
 * their write times per index, {@code _w}, and {@code rewrittenAt} (the write time of {@code _whi}
 * when {@code _whi} and {@code _wlo} name different writes).
 *
 * <p>Written two ways: by the trigger, in the base write's own mutation ({@link #recordKey},
 * {@link #recordNewest}, {@link #recordWritten}, {@link #recordPartitionWrite}, applied when
 * called: a test puts them in the mutation it lands), and by the repair core ({@link #apply}), as
 * the service's statements and the node's mutations write each {@link RowsWrite}.
 */
public final class MemoryRecords implements RecordReads {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** The clustering of a partition's static row. */
    private static final Object STATIC = "static";

    private final TableDef def;
    private final int partitionSize;
    private final int rowKeySize;
    private final boolean hasClustering;
    private final boolean versionKeys;
    private final boolean newestWrites;
    private final LongSupplier nowMillis;
    /** The rows table: partition key values, clustering values before the tid. */
    public final LwwTable table;

    public MemoryRecords(TableDef def, LongSupplier nowMillis) {
        this.def = def;
        this.partitionSize = def.partitionKey().size();
        this.rowKeySize = RowsLayout.rowKey(def).size();
        this.hasClustering = !def.clusteringPrefix().isEmpty();
        this.versionKeys = RowsLayout.hasVersionKeys(def);
        this.newestWrites = RowsLayout.hasNewestWrites(def);
        this.nowMillis = nowMillis;
        this.table = new LwwTable(nowMillis);
    }

    private List<ByteBuffer> partitionOf(List<ByteBuffer> rowKey) {
        return List.copyOf(rowKey.subList(0, partitionSize));
    }

    private List<ByteBuffer> clustering(List<ByteBuffer> rowKey) {
        if (rowKey.size() != rowKeySize) {
            throw new IllegalArgumentException("a row key of " + def.qualifiedName() + " has " + rowKeySize + " values, not " + rowKey.size());
        }
        return List.copyOf(rowKey.subList(partitionSize, rowKeySize));
    }

    private static ByteBuffer bigint(long v) {
        return ByteBuffer.allocate(8).putLong(0, v);
    }

    private long nowInSec() {
        return Math.floorDiv(nowMillis.getAsLong(), 1000L);
    }

    // ----- the trigger's writes (docs/design.md sections 5.2 and 5.3)

    /** A {@code _keys} element (or {@code _vkeys}, {@code perVersion}) written at {@code ts}. */
    public void recordKey(List<ByteBuffer> rowKey, String index, List<ByteBuffer> key, long ts, boolean perVersion) {
        String column = perVersion ? RowsLayout.VERSION_KEYS : RowsLayout.KEYS;
        table.mergeElement(partitionOf(rowKey), clustering(rowKey), column, RowsLayout.element(index, key), Cell.live(EMPTY, ts));
    }

    /** A versioned write that carried every indexed key attribute: {@code _whi = w}, {@code _wlo = newestLo(w)} at its version's TS. */
    public void recordNewest(List<ByteBuffer> rowKey, long w, long ts) {
        table.merge(partitionOf(rowKey), clustering(rowKey), RowsLayout.NEWEST_HI, Cell.live(bigint(w), ts));
        table.merge(partitionOf(rowKey), clustering(rowKey), RowsLayout.NEWEST_LO, Cell.live(bigint(RowsLayout.newestLo(w)), ts));
    }

    /** An unversioned write of the row at {@code w}: {@code _w = w} at {@code w}. */
    public void recordWritten(List<ByteBuffer> rowKey, long w) {
        table.merge(partitionOf(rowKey), clustering(rowKey), RowsLayout.WRITTEN, Cell.live(bigint(w), w));
    }

    /** An unversioned write of the row at {@code w} whose marker is {@code id}: {@code _w = w} and {@code _wid = id} at {@code w}. */
    public void recordWritten(List<ByteBuffer> rowKey, long w, UUID id) {
        recordWritten(rowKey, w);
        table.merge(partitionOf(rowKey), clustering(rowKey), RowsLayout.WRITE_ID, Cell.live(Tids.bytes(id), w));
    }

    /**
     * A range or partition delete at {@code ts}: {@code _pw} of the partition, or {@code _w} of its
     * one row when the table has no clustering columns.
     */
    public void recordPartitionWrite(List<ByteBuffer> partitionKey, long ts) {
        if (hasClustering) {
            table.merge(List.copyOf(partitionKey), STATIC, RowsLayout.PARTITION_WRITTEN, Cell.live(bigint(ts), ts));
        } else {
            recordWritten(partitionKey, ts);
        }
    }

    // ----- the repair core's writes

    /** One write of the repair core, at the timestamps it names. */
    public void apply(RowsWrite w) {
        List<ByteBuffer> pk = partitionOf(w.rowKey());
        List<ByteBuffer> ck = clustering(w.rowKey());
        if (w instanceof RowsWrite.AddKeys a) {
            add(pk, ck, RowsLayout.KEYS, a.keys(), a.at());
        } else if (w instanceof RowsWrite.ForgetKeys f) {
            forget(pk, ck, RowsLayout.KEYS, f.keys());
        } else if (w instanceof RowsWrite.AddVersionKeys a) {
            if (versionKeys) {
                add(pk, ck, RowsLayout.VERSION_KEYS, a.keys(), a.at());
            }
        } else if (w instanceof RowsWrite.ForgetVersionKeys f) {
            if (versionKeys) {
                forget(pk, ck, RowsLayout.VERSION_KEYS, f.keys());
            }
        } else {
            RowsWrite.RecordRecompute r = (RowsWrite.RecordRecompute) w;
            table.merge(pk, ck, RowsLayout.WRITTEN, Cell.live(bigint(r.ts()), r.ts()));
        }
    }

    private void add(List<ByteBuffer> pk, List<ByteBuffer> ck, String column, Map<String, ? extends Collection<List<ByteBuffer>>> keys, long at) {
        keys.forEach((index, list) -> list.forEach(k -> table.mergeElement(pk, ck, column, RowsLayout.element(index, k), Cell.live(EMPTY, at))));
    }

    /** Each element deleted at the write time it was read with: the tombstone shadows that write only. */
    private void forget(List<ByteBuffer> pk, List<ByteBuffer> ck, String column, Map<String, Map<List<ByteBuffer>, Long>> keys) {
        keys.forEach((index, times) -> times.forEach((k, t) -> table.mergeElement(pk, ck, column, RowsLayout.element(index, k),
                Cell.tombstone(t, nowInSec()))));
    }

    // ----- reads

    @Override
    public CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey) {
        return CompletableFuture.completedFuture(read(partitionOf(rowKey), clustering(rowKey), true));
    }

    /** By the row key's one value; requires a row key of one partition-key column, and up to 50 keys (as {@code IN ? LIMIT ?}). */
    @Override
    public CompletableFuture<Map<ByteBuffer, RowRecord>> records(List<ByteBuffer> keys) {
        if (rowKeySize != 1 || keys.size() > VersionedTable.ROWS_PER_READ) {
            throw new IllegalArgumentException("records reads up to " + VersionedTable.ROWS_PER_READ + " rows keyed by one partition-key"
                    + " column: not " + keys.size() + " rows of " + def.qualifiedName());
        }
        Map<ByteBuffer, RowRecord> out = new LinkedHashMap<>();
        for (ByteBuffer k : new LinkedHashSet<>(keys)) {
            RowRecord r = read(List.of(k), List.of(), false);
            if (r != null) {
                out.put(k, r);
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    @SuppressWarnings("unchecked")
    public PartitionRecords partition(List<ByteBuffer> partitionKey) {
        List<ByteBuffer> pk = List.copyOf(partitionKey);
        List<RowRecord> rows = new ArrayList<>();
        for (Object c : table.clusterings(pk)) {
            if (c != STATIC) {
                RowRecord r = read(pk, (List<ByteBuffer>) c, true);
                if (r != null) {
                    rows.add(r);
                }
            }
        }
        Cell pw = hasClustering ? table.liveCell(pk, STATIC, RowsLayout.PARTITION_WRITTEN) : null;
        return new PartitionRecords(rows, pw == null ? Long.MIN_VALUE : pw.value().getLong(0));
    }

    /** The record of one row (null when the rows table has no such row), with its per-version keys when asked. */
    private RowRecord read(List<ByteBuffer> pk, List<ByteBuffer> ck, boolean withVersionKeys) {
        if (!table.exists(pk, ck)) {
            return null;
        }
        List<ByteBuffer> rowKey = new ArrayList<>(pk);
        rowKey.addAll(ck);
        Map<String, Map<List<ByteBuffer>, Long>> times = elements(table.elements(pk, ck, RowsLayout.KEYS));
        Map<String, Set<List<ByteBuffer>>> keys = new LinkedHashMap<>();
        times.forEach((index, t) -> keys.put(index, new LinkedHashSet<>(t.keySet())));
        Map<String, Map<List<ByteBuffer>, Long>> byVersion = withVersionKeys && versionKeys
                ? elements(table.elements(pk, ck, RowsLayout.VERSION_KEYS))
                : Map.of();
        Cell w = table.liveCell(pk, ck, RowsLayout.WRITTEN);
        long rewrittenAt = Long.MIN_VALUE;
        if (newestWrites) {
            Cell hi = table.liveCell(pk, ck, RowsLayout.NEWEST_HI);
            Cell lo = table.liveCell(pk, ck, RowsLayout.NEWEST_LO);
            if (hi != null && lo != null && hi.value().getLong(0) != RowsLayout.newestLo(lo.value().getLong(0))) {
                rewrittenAt = hi.timestamp();
            }
        }
        Cell id = table.liveCell(pk, ck, RowsLayout.WRITE_ID);
        return new RowRecord(rowKey, keys, w == null ? Long.MIN_VALUE : w.value().getLong(0), times, byVersion, rewrittenAt,
                id == null ? null : Tids.uuid(id.value()));
    }

    /** Set elements as entry keys per index name, each with its write time. */
    private static Map<String, Map<List<ByteBuffer>, Long>> elements(Map<ByteBuffer, Cell> cells) {
        Map<String, Map<List<ByteBuffer>, Long>> out = new LinkedHashMap<>();
        cells.forEach((element, cell) -> {
            List<ByteBuffer> parts = Composite.decode(element);
            String index = StandardCharsets.UTF_8.decode(parts.get(0).duplicate()).toString();
            out.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(Composite.decode(parts.get(1)), cell.timestamp());
        });
        return out;
    }
}
