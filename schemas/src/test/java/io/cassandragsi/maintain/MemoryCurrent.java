package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The in-memory twin of an unversioned base table ({@link CurrentReads}, docs/design.md section
 * 6.6) on the one last-write-wins model ({@link LwwTable}): a row is named by its partition key
 * values and its clustering values (both {@code List<ByteBuffer>}, the latter empty when the table
 * has none). A read gives what {@code SELECT ..., WRITETIME(c), TTL(c)} gives: of each regular
 * attribute some index keys on or projects, the live value, its write time and the whole seconds
 * its TTL has left (0: none); every other regular cell reads as dead. A row that does not exist
 * reads as {@link #absent}.
 *
 * <p>Writes are mutations made now (TTLs count from now) and landing when run, so that a test can
 * hold one back or land several in any order. One replica: the levels asked for are kept in
 * {@link #levels}. Clustering values compare as unsigned bytes.
 */
public final class MemoryCurrent implements CurrentReads {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final TableDef def;
    private final List<String> names;
    private final int[] rowKeyAttributes;
    private final int partitionSize;
    /** Regular attributes some index keys on or projects. */
    private final int[] indexed;
    private final LongSupplier nowMillis;
    /** The base table: partition key values, clustering values. */
    public final LwwTable table;
    /** Every read level asked for, in order. */
    public final List<ReadLevel> levels = new ArrayList<>();

    public MemoryCurrent(TablePlan plan, LongSupplier nowMillis) {
        this.def = plan.table();
        if (def.versioned()) {
            throw new IllegalArgumentException(def.qualifiedName() + " is versioned");
        }
        this.names = new ArrayList<>(def.attributes().keySet());
        this.rowKeyAttributes = RowsLayout.rowKeyAttributes(def);
        this.partitionSize = def.partitionKey().size();
        this.nowMillis = nowMillis;
        TreeSet<Integer> used = new TreeSet<>();
        for (IndexPlan p : plan.indexes()) {
            Arrays.stream(p.keyAttributes()).filter(a -> a >= 0 && !def.isPrimaryKey(names.get(a))).forEach(used::add);
            Arrays.stream(p.projAttributes()).forEach(used::add);
        }
        this.indexed = used.stream().mapToInt(Integer::intValue).toArray();
        this.table = new LwwTable(nowMillis, (Comparator<List<ByteBuffer>>) MemoryCurrent::compareClustering);
    }

    /** Clustering values as unsigned bytes; a shorter list is a prefix bound, equal to every clustering it begins. */
    private static int compareClustering(List<ByteBuffer> a, List<ByteBuffer> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = LwwTable.compareUnsigned(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private long nowInSec() {
        return Math.floorDiv(nowMillis.getAsLong(), 1000L);
    }

    private List<ByteBuffer> partition(List<ByteBuffer> rowKey) {
        return List.copyOf(rowKey.subList(0, partitionSize));
    }

    private List<ByteBuffer> clustering(List<ByteBuffer> rowKey) {
        return List.copyOf(rowKey.subList(partitionSize, rowKey.size()));
    }

    // ----- writes: mutations made now, landing when run

    /**
     * The cells a statement at client timestamp {@code w} writes (by attribute name; a null value is
     * a tombstone), with {@code ttl} (0: none), as the cells the base and the trigger share.
     */
    public Map<String, Cell> cells(Map<String, ByteBuffer> values, long w, int ttl) {
        long nowSec = nowInSec();
        Map<String, Cell> out = new LinkedHashMap<>();
        values.forEach((c, v) -> out.put(c, v == null ? Cell.tombstone(w, nowSec) : Cell.written(v, w, ttl, nowSec)));
        return out;
    }

    /** The base mutation of a statement's {@code cells}, with a row marker when {@code marker} is not null (an {@code INSERT}). */
    public Runnable write(List<ByteBuffer> rowKey, Map<String, Cell> cells, Cell marker) {
        List<ByteBuffer> pk = partition(rowKey);
        List<ByteBuffer> ck = clustering(rowKey);
        return () -> {
            if (marker != null) {
                table.mergeMarker(pk, ck, marker);
            }
            cells.forEach((column, cell) -> table.merge(pk, ck, column, cell));
        };
    }

    /** {@code INSERT} ({@code insert}) or {@code UPDATE} of {@code values} at {@code w} with {@code ttl}. */
    public Runnable write(List<ByteBuffer> rowKey, Map<String, ByteBuffer> values, boolean insert, long w, int ttl) {
        return write(rowKey, cells(values, w, ttl), insert ? Cell.written(EMPTY, w, ttl, nowInSec()) : null);
    }

    /** {@code DELETE FROM ... WHERE <primary key>}: a row delete (a partition delete when the table has no clustering columns). */
    public Runnable deleteRow(List<ByteBuffer> rowKey, long ts) {
        List<ByteBuffer> ck = clustering(rowKey);
        return ck.isEmpty() ? deletePartition(rowKey, ts) : () -> table.deleteRow(partition(rowKey), ck, ts);
    }

    /** {@code DELETE FROM ... WHERE <partition key>}. */
    public Runnable deletePartition(List<ByteBuffer> partitionKey, long ts) {
        List<ByteBuffer> pk = List.copyOf(partitionKey);
        return () -> table.deletePartition(pk, ts);
    }

    // ----- reads

    @Override
    public CurrentRow row(List<ByteBuffer> rowKey, ReadLevel level) {
        levels.add(level);
        return read(partition(rowKey), clustering(rowKey));
    }

    private CurrentRow read(List<ByteBuffer> pk, List<ByteBuffer> ck) {
        List<ByteBuffer> rowKey = new ArrayList<>(pk);
        rowKey.addAll(ck);
        if (!table.exists(pk, ck)) {
            return absent(rowKey);
        }
        RowReconcile.BaseCell[] cells = absent(rowKey).cells().cells();
        for (int a : indexed) {
            Cell c = table.liveCell(pk, ck, names.get(a));
            if (c != null) {
                Integer ttl = LwwTable.ttlOf(c, nowInSec());
                cells[a] = new RowReconcile.BaseCell(c.value(), c.timestamp(), ttl == null ? 0 : ttl);
            }
        }
        return new CurrentRow(rowKey, new RowReconcile.BaseRow(cells));
    }

    @Override
    @SuppressWarnings("unchecked")
    public List<CurrentRow> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
        levels.add(level);
        List<ByteBuffer> pk = List.copyOf(partitionKey);
        List<List<ByteBuffer>> clusterings = new ArrayList<>();
        table.clusterings(pk).forEach(c -> clusterings.add((List<ByteBuffer>) c));
        clusterings.sort(MemoryCurrent::compareClustering);
        List<CurrentRow> out = new ArrayList<>();
        for (List<ByteBuffer> ck : clusterings) {
            if (table.exists(pk, ck)) {
                out.add(read(pk, ck));
            }
        }
        return out;
    }

    @Override
    public CurrentRow absent(List<ByteBuffer> rowKey) {
        return CurrentRow.absent(rowKey, rowKeyAttributes, names.size());
    }

    /** The value a read of the row returns now for attribute {@code column}, or null. */
    public ByteBuffer value(List<ByteBuffer> rowKey, String column) {
        return table.value(partition(rowKey), clustering(rowKey), column);
    }

    /** The attributes of the definition, in order (a column's position is its attribute position). */
    public List<String> attributes() {
        return names;
    }
}
