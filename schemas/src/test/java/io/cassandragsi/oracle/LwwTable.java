package io.cassandragsi.oracle;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * What one Cassandra 5.0 table holds after a sequence of writes: the one last-write-wins model of
 * the project's tests (the in-memory twins of the repair service, the randomized histories, the
 * integration tests' oracle of unversioned tables). Written from Cassandra's semantics as read in
 * the 5.0.6 source, it shares no code with the project (see {@code OracleIndependenceTest}).
 *
 * <ul>
 *   <li><b>Cells</b> are reconciled per cell by {@link #reconcile} ({@code Cells.resolveRegular}):
 *       the higher timestamp wins; on equal timestamps a tombstone or an expiring cell beats a live
 *       non-expiring one, a tombstone beats an expiring cell, between two expiring cells (or two
 *       tombstones) the greater local deletion time wins, then (two expiring cells) the lower TTL,
 *       then the greater value, compared as unsigned bytes.
 *   <li><b>TTL</b>: an expiring cell written when the clock reads {@code now} (whole seconds) has
 *       the local deletion time {@code now + ttl} and is live while the clock is below it. An
 *       expired cell keeps shadowing what it won against: its value does not come back. A tombstone's
 *       local deletion time is the second it was written.
 *   <li><b>Deletions</b> (row, clustering range, partition; and a collection's own deletion) shadow
 *       every cell, element and row marker of what they cover written at or below their timestamp.
 *   <li><b>Rows</b>: an {@code INSERT} writes a row marker (the primary key's liveness), reconciled
 *       like a cell with an empty value; a row exists while its marker or any of its cells lives.
 *   <li><b>Sets</b> (non-frozen): one cell per element, keyed by the element, with an empty value;
 *       overwriting the set deletes the collection at {@code timestamp - 1} then adds the elements
 *       at {@code timestamp}, as Cassandra does. Elements are kept in unsigned byte order (the order
 *       of {@code set<blob>}, {@code set<text>} and {@code set<ascii>}).
 *   <li><b>Reads</b> report what CQL would: the live value, {@code WRITETIME} (the cell's timestamp)
 *       and {@code TTL} (seconds left, {@code localDeletionTime - now}; null when the cell does not
 *       expire).
 * </ul>
 *
 * <p>Keys: a row is named by a partition key and a clustering key, any objects with value
 * equality (a {@code ByteBuffer}, a {@code List}, a {@code String}); the clustering key is null in a
 * table without clustering columns. Clustering ranges compare clustering keys with the comparator
 * given to the constructor. Not thread-safe.
 *
 * <p>Not modelled: compaction, which turns an expired cell into a tombstone written at the same
 * timestamp (so an expiring cell written later at that very timestamp can win before compaction
 * and lose after it; Cassandra's own comment calls this invisible to users), counters, lists, maps
 * and static columns.
 */
public final class LwwTable {
    /** Cassandra's {@code Cell.NO_DELETION_TIME}: a live cell that does not expire. */
    public static final long NO_DELETION_TIME = Long.MAX_VALUE;

    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0).asReadOnlyBuffer();

    /**
     * One cell as Cassandra stores it: {@code value} null for a tombstone, {@code ttl} 0 when it
     * does not expire, {@code localDeletionTime} in seconds ({@link #NO_DELETION_TIME} for a live
     * cell that does not expire; the expiry for an expiring one; the delete's own second for a
     * tombstone).
     */
    public record Cell(ByteBuffer value, long timestamp, int ttl, long localDeletionTime) {
        public Cell {
            value = value == null ? null : value.asReadOnlyBuffer();
            if (ttl < 0 || (ttl > 0 && value == null)) {
                throw new IllegalArgumentException("a tombstone does not expire, and a TTL is not negative: " + ttl);
            }
        }

        public static Cell live(ByteBuffer value, long timestamp) {
            return new Cell(Objects.requireNonNull(value), timestamp, 0, NO_DELETION_TIME);
        }

        /** A cell written with {@code USING TTL ttl} when the clock read {@code nowInSec}. */
        public static Cell expiring(ByteBuffer value, long timestamp, int ttl, long nowInSec) {
            if (ttl <= 0) {
                throw new IllegalArgumentException("an expiring cell needs a positive TTL, not " + ttl);
            }
            return new Cell(Objects.requireNonNull(value), timestamp, ttl, nowInSec + ttl);
        }

        /** A cell as a write makes it: expiring when {@code ttl > 0}, else live. */
        public static Cell written(ByteBuffer value, long timestamp, int ttl, long nowInSec) {
            return ttl > 0 ? expiring(value, timestamp, ttl, nowInSec) : live(value, timestamp);
        }

        public static Cell tombstone(long timestamp, long nowInSec) {
            return new Cell(null, timestamp, 0, nowInSec);
        }

        public boolean isTombstone() {
            return value == null;
        }

        public boolean isExpiring() {
            return ttl > 0;
        }

        /** {@code AbstractCell.isLive}: not a tombstone, and not expired at {@code nowInSec}. */
        public boolean isLive(long nowInSec) {
            return localDeletionTime == NO_DELETION_TIME || (isExpiring() && nowInSec < localDeletionTime);
        }

        @Override
        public String toString() {
            String v = value == null ? "tombstone" : hex(value);
            return v + "@" + timestamp + (isExpiring() ? " ttl " + ttl + " until " + localDeletionTime
                    : value == null ? " at " + localDeletionTime : "");
        }
    }

    /**
     * Cassandra's reconciliation of two versions of one cell ({@code Cells.reconcile}, regular
     * cells: {@code resolveRegular} in 5.0.6). Commutative: the result does not depend on the order
     * of the arguments. Either argument may be null (nothing written yet).
     */
    public static Cell reconcile(Cell left, Cell right) {
        if (left == null || right == null) {
            return left == null ? right : left;
        }
        if (left.timestamp() != right.timestamp()) {
            return left.timestamp() > right.timestamp() ? left : right;
        }
        boolean leftDeadOrExpiring = left.localDeletionTime() != NO_DELETION_TIME;
        boolean rightDeadOrExpiring = right.localDeletionTime() != NO_DELETION_TIME;
        if (leftDeadOrExpiring || rightDeadOrExpiring) {
            // a tombstone, or an expiring cell (a tombstone to be), beats a live cell of the same timestamp
            if (leftDeadOrExpiring != rightDeadOrExpiring) {
                return leftDeadOrExpiring ? left : right;
            }
            // between a tombstone and an expiring cell, the tombstone
            if (left.isTombstone() != right.isTombstone()) {
                return left.isTombstone() ? left : right;
            }
            // two expiring cells or two tombstones: the later local deletion time
            if (left.localDeletionTime() != right.localDeletionTime()) {
                return left.localDeletionTime() > right.localDeletionTime() ? left : right;
            }
            // two expiring cells that expire at the same second: the lower TTL (the more recent write)
            if (!left.isTombstone() && left.ttl() != right.ttl()) {
                return left.ttl() < right.ttl() ? left : right;
            }
        }
        return compareUnsigned(valueOf(left), valueOf(right)) >= 0 ? left : right;
    }

    private static ByteBuffer valueOf(Cell c) {
        return c.value() == null ? EMPTY : c.value();
    }

    /** Lexicographic order of the bytes, each unsigned ({@code ByteBufferUtil.compareUnsigned}). */
    public static int compareUnsigned(ByteBuffer a, ByteBuffer b) {
        int n = Math.min(a.remaining(), b.remaining());
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(Byte.toUnsignedInt(a.get(a.position() + i)), Byte.toUnsignedInt(b.get(b.position() + i)));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.remaining(), b.remaining());
    }

    /**
     * A deletion ({@code DeletionTime}): it shadows everything written at or below {@code
     * markedForDeleteAt}; of two, the higher {@code markedForDeleteAt} wins, then the later local
     * deletion time.
     */
    public record Deletion(long markedForDeleteAt, long localDeletionTime) {
        public static final Deletion LIVE = new Deletion(Long.MIN_VALUE, Long.MAX_VALUE);

        public boolean deletes(long timestamp) {
            return timestamp <= markedForDeleteAt;
        }

        public boolean supersedes(Deletion other) {
            return markedForDeleteAt > other.markedForDeleteAt
                    || (markedForDeleteAt == other.markedForDeleteAt && localDeletionTime > other.localDeletionTime);
        }

        static Deletion merge(Deletion a, Deletion b) {
            return b.supersedes(a) ? b : a;
        }
    }

    /** A row's name: partition key and clustering key (null when the table has no clustering columns). */
    public record RowKey(Object partition, Object clustering) {}

    private record RangeDeletion(Object from, boolean fromInclusive, Object to, boolean toInclusive, Deletion deletion) {}

    private static final class Complex {
        Deletion deletion = Deletion.LIVE;
        final TreeMap<ByteBuffer, Cell> elements = new TreeMap<>(LwwTable::compareUnsigned);
    }

    private static final class Row {
        Cell marker;
        Deletion deletion = Deletion.LIVE;
        final Map<String, Cell> simple = new LinkedHashMap<>();
        final Map<String, Complex> complex = new LinkedHashMap<>();
    }

    private static final class Partition {
        Deletion deletion = Deletion.LIVE;
        final List<RangeDeletion> ranges = new ArrayList<>();
        final Map<Object, Row> rows = new LinkedHashMap<>();
    }

    private final LongSupplier nowMillis;
    private final Comparator<Object> clusteringOrder;
    private final Map<Object, Partition> partitions = new LinkedHashMap<>();

    /** A table whose clock is {@code nowMillis} (epoch milliseconds), with clustering keys in their natural order. */
    public LwwTable(LongSupplier nowMillis) {
        this(nowMillis, null);
    }

    /**
     * @param nowMillis the clock (epoch milliseconds) that writes take their local deletion times
     *     from and reads judge expiry by, in whole seconds as Cassandra does
     * @param clusteringOrder the order of clustering keys for range deletions (null: natural order)
     */
    @SuppressWarnings("unchecked")
    public LwwTable(LongSupplier nowMillis, Comparator<?> clusteringOrder) {
        this.nowMillis = nowMillis;
        this.clusteringOrder = clusteringOrder == null ? (a, b) -> ((Comparable<Object>) a).compareTo(b) : (Comparator<Object>) clusteringOrder;
    }

    /** The clock in whole seconds, as Cassandra's {@code nowInSec}. */
    public long nowInSec() {
        return Math.floorDiv(nowMillis.getAsLong(), 1000L);
    }

    private Row row(Object partition, Object clustering) {
        return partitions.computeIfAbsent(partition, p -> new Partition()).rows.computeIfAbsent(clustering, c -> new Row());
    }

    // ----- writes

    /** The row marker an {@code INSERT} writes ({@code ttl} 0: none). */
    public void insertMarker(Object partition, Object clustering, long timestamp, int ttl) {
        Row r = row(partition, clustering);
        r.marker = reconcile(r.marker, Cell.written(EMPTY, timestamp, ttl, nowInSec()));
    }

    /** Merges a row marker made by the caller (its own TTL and expiry). */
    public void mergeMarker(Object partition, Object clustering, Cell marker) {
        Row r = row(partition, clustering);
        r.marker = reconcile(r.marker, marker);
    }

    /** A cell write ({@code SET column = value USING TIMESTAMP timestamp AND TTL ttl}); a null value writes a tombstone (TTL ignored, as Cassandra does). */
    public void write(Object partition, Object clustering, String column, ByteBuffer value, long timestamp, int ttl) {
        merge(partition, clustering, column, value == null ? Cell.tombstone(timestamp, nowInSec()) : Cell.written(value, timestamp, ttl, nowInSec()));
    }

    /** {@code DELETE column ... USING TIMESTAMP timestamp} of a simple column: a tombstone. */
    public void deleteColumn(Object partition, Object clustering, String column, long timestamp) {
        write(partition, clustering, column, null, timestamp, 0);
    }

    /** Merges a cell made by the caller (any timestamp, TTL and local deletion time) into a simple column. */
    public void merge(Object partition, Object clustering, String column, Cell cell) {
        row(partition, clustering).simple.merge(column, cell, LwwTable::reconcile);
    }

    private Complex complex(Object partition, Object clustering, String column) {
        return row(partition, clustering).complex.computeIfAbsent(column, c -> new Complex());
    }

    /** {@code SET column = column + {element}}: one element cell with an empty value. */
    public void addElement(Object partition, Object clustering, String column, ByteBuffer element, long timestamp, int ttl) {
        mergeElement(partition, clustering, column, element, Cell.written(EMPTY, timestamp, ttl, nowInSec()));
    }

    /** {@code SET column = column - {element}}: an element tombstone. */
    public void removeElement(Object partition, Object clustering, String column, ByteBuffer element, long timestamp) {
        mergeElement(partition, clustering, column, element, Cell.tombstone(timestamp, nowInSec()));
    }

    /** Merges an element cell made by the caller. */
    public void mergeElement(Object partition, Object clustering, String column, ByteBuffer element, Cell cell) {
        complex(partition, clustering, column).elements.merge(element.asReadOnlyBuffer(), cell, LwwTable::reconcile);
    }

    /** {@code DELETE column ...} of a collection: the collection's own deletion at {@code timestamp}. */
    public void deleteCollection(Object partition, Object clustering, String column, long timestamp) {
        Complex c = complex(partition, clustering, column);
        c.deletion = Deletion.merge(c.deletion, new Deletion(timestamp, nowInSec()));
    }

    /** {@code SET column = {elements}} (or an {@code INSERT} of the set): the collection deleted at {@code timestamp - 1}, then the elements. */
    public void setCollection(Object partition, Object clustering, String column, Collection<ByteBuffer> elements, long timestamp, int ttl) {
        Complex c = complex(partition, clustering, column);
        c.deletion = Deletion.merge(c.deletion, new Deletion(timestamp - 1, nowInSec()));
        for (ByteBuffer e : elements) {
            addElement(partition, clustering, column, e, timestamp, ttl);
        }
    }

    /** {@code DELETE FROM ... WHERE <the whole primary key> USING TIMESTAMP timestamp}. */
    public void deleteRow(Object partition, Object clustering, long timestamp) {
        Row r = row(partition, clustering);
        r.deletion = Deletion.merge(r.deletion, new Deletion(timestamp, nowInSec()));
    }

    /**
     * A range deletion of clustering keys between {@code from} and {@code to} (either null:
     * unbounded on that side) in one partition.
     */
    public void deleteRange(Object partition, Object from, boolean fromInclusive, Object to, boolean toInclusive, long timestamp) {
        partitions.computeIfAbsent(partition, p -> new Partition()).ranges
                .add(new RangeDeletion(from, fromInclusive, to, toInclusive, new Deletion(timestamp, nowInSec())));
    }

    /** {@code DELETE FROM ... WHERE <the partition key> USING TIMESTAMP timestamp}. */
    public void deletePartition(Object partition, long timestamp) {
        Partition p = partitions.computeIfAbsent(partition, x -> new Partition());
        p.deletion = Deletion.merge(p.deletion, new Deletion(timestamp, nowInSec()));
    }

    // ----- reads

    private boolean covers(RangeDeletion d, Object clustering) {
        if (clustering == null) {
            return true;
        }
        if (d.from() != null) {
            int c = clusteringOrder.compare(clustering, d.from());
            if (c < 0 || (c == 0 && !d.fromInclusive())) {
                return false;
            }
        }
        if (d.to() != null) {
            int c = clusteringOrder.compare(clustering, d.to());
            return c < 0 || (c == 0 && d.toInclusive());
        }
        return true;
    }

    /** The deletion that applies to a row: the strongest of its partition's, the ranges' covering it and its own. */
    public Deletion deletion(Object partition, Object clustering) {
        Partition p = partitions.get(partition);
        if (p == null) {
            return Deletion.LIVE;
        }
        Deletion d = p.deletion;
        for (RangeDeletion r : p.ranges) {
            if (covers(r, clustering)) {
                d = Deletion.merge(d, r.deletion());
            }
        }
        Row row = p.rows.get(clustering);
        return row == null ? d : Deletion.merge(d, row.deletion);
    }

    private Row existing(Object partition, Object clustering) {
        Partition p = partitions.get(partition);
        return p == null ? null : p.rows.get(clustering);
    }

    /** The cell that won for a simple column, deletions and expiry aside (null: never written). */
    public Cell cell(Object partition, Object clustering, String column) {
        Row r = existing(partition, clustering);
        return r == null ? null : r.simple.get(column);
    }

    /** Every simple column's winning cell of a row, deletions and expiry aside. */
    public Map<String, Cell> cells(Object partition, Object clustering) {
        Row r = existing(partition, clustering);
        return r == null ? Map.of() : Collections.unmodifiableMap(r.simple);
    }

    /** The row marker that won, deletions and expiry aside (null: no {@code INSERT}). */
    public Cell marker(Object partition, Object clustering) {
        Row r = existing(partition, clustering);
        return r == null ? null : r.marker;
    }

    /** The cell a read sees now: the winner when it is live and no deletion shadows it, else null. */
    public Cell liveCell(Object partition, Object clustering, String column) {
        Cell c = cell(partition, clustering, column);
        return c != null && c.isLive(nowInSec()) && !deletion(partition, clustering).deletes(c.timestamp()) ? c : null;
    }

    /** The column's value as a read returns it now, or null. */
    public ByteBuffer value(Object partition, Object clustering, String column) {
        Cell c = liveCell(partition, clustering, column);
        return c == null ? null : c.value();
    }

    /** {@code WRITETIME(column)}: the live cell's timestamp, or null. */
    public Long writetime(Object partition, Object clustering, String column) {
        Cell c = liveCell(partition, clustering, column);
        return c == null ? null : c.timestamp();
    }

    /** {@code TTL(column)}: the seconds the live cell has left, or null when there is none or it does not expire. */
    public Integer ttl(Object partition, Object clustering, String column) {
        return ttlOf(liveCell(partition, clustering, column), nowInSec());
    }

    /** What {@code TTL()} reports for a cell at {@code nowInSec}: {@code localDeletionTime - nowInSec}, or null. */
    public static Integer ttlOf(Cell c, long nowInSec) {
        if (c == null || !c.isExpiring() || c.localDeletionTime() - nowInSec < 0) {
            return null;
        }
        return (int) (c.localDeletionTime() - nowInSec);
    }

    /** The live elements of a set now, in element order, each with its cell ({@code WRITETIME} and {@code TTL} per element). */
    public NavigableMap<ByteBuffer, Cell> elements(Object partition, Object clustering, String column) {
        TreeMap<ByteBuffer, Cell> out = new TreeMap<>(LwwTable::compareUnsigned);
        Row r = existing(partition, clustering);
        Complex c = r == null ? null : r.complex.get(column);
        if (c == null) {
            return out;
        }
        Deletion d = Deletion.merge(deletion(partition, clustering), c.deletion);
        long now = nowInSec();
        c.elements.forEach((element, cell) -> {
            if (cell.isLive(now) && !d.deletes(cell.timestamp())) {
                out.put(element, cell);
            }
        });
        return out;
    }

    /** Whether a read finds the row now: its marker or one of its cells (or elements) lives. */
    public boolean exists(Object partition, Object clustering) {
        Row r = existing(partition, clustering);
        if (r == null) {
            return false;
        }
        Deletion d = deletion(partition, clustering);
        long now = nowInSec();
        if (r.marker != null && r.marker.isLive(now) && !d.deletes(r.marker.timestamp())) {
            return true;
        }
        for (Cell c : r.simple.values()) {
            if (c.isLive(now) && !d.deletes(c.timestamp())) {
                return true;
            }
        }
        for (String column : r.complex.keySet()) {
            if (!elements(partition, clustering, column).isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Every row ever written to (whether it exists now or not), partition by partition, in the order first written. */
    public List<RowKey> rows() {
        List<RowKey> out = new ArrayList<>();
        partitions.forEach((p, part) -> part.rows.keySet().forEach(c -> out.add(new RowKey(p, c))));
        return out;
    }

    /** The rows that exist now. */
    public List<RowKey> liveRows() {
        List<RowKey> out = new ArrayList<>();
        for (RowKey k : rows()) {
            if (exists(k.partition(), k.clustering())) {
                out.add(k);
            }
        }
        return out;
    }

    /** The clustering keys of a partition's rows ever written to. */
    public List<Object> clusterings(Object partition) {
        Partition p = partitions.get(partition);
        return p == null ? List.of() : new ArrayList<>(p.rows.keySet());
    }

    /** Every expiring cell, marker and element, deletions aside: for callers that must stay clear of expiries. */
    public List<Cell> expiringCells() {
        List<Cell> out = new ArrayList<>();
        for (Partition p : partitions.values()) {
            for (Row r : p.rows.values()) {
                if (r.marker != null && r.marker.isExpiring()) {
                    out.add(r.marker);
                }
                r.simple.values().stream().filter(Cell::isExpiring).forEach(out::add);
                r.complex.values().forEach(c -> c.elements.values().stream().filter(Cell::isExpiring).forEach(out::add));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        partitions.forEach((p, part) -> {
            out.append(render(p)).append(part.deletion == Deletion.LIVE ? "" : " deleted " + part.deletion).append('\n');
            part.ranges.forEach(r -> out.append("  range ").append(r).append('\n'));
            part.rows.forEach((c, r) -> {
                out.append("  ").append(render(c)).append(": marker ").append(r.marker)
                        .append(r.deletion == Deletion.LIVE ? "" : " deleted " + r.deletion).append(' ').append(r.simple);
                r.complex.forEach((col, cx) -> {
                    out.append(' ').append(col).append('{');
                    cx.elements.forEach((e, cell) -> out.append(hex(e)).append('=').append(cell).append(' '));
                    out.append('}').append(cx.deletion == Deletion.LIVE ? "" : " deleted " + cx.deletion);
                });
                out.append('\n');
            });
        });
        return out.toString();
    }

    private static String render(Object key) {
        if (key instanceof ByteBuffer b) {
            return hex(b);
        }
        if (key instanceof List<?> l) {
            List<String> out = new ArrayList<>();
            l.forEach(x -> out.add(render(x)));
            return out.toString();
        }
        return String.valueOf(key);
    }

    static String hex(ByteBuffer b) {
        StringBuilder s = new StringBuilder("0x");
        for (int i = b.position(); i < b.limit(); i++) {
            s.append(String.format("%02x", b.get(i)));
        }
        return s.toString();
    }
}
