package io.cassandragsi.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The oracle for unversioned tables: an in-test model of what a Cassandra 5.0 table holds after a
 * sequence of writes, written from Cassandra's documented semantics and sharing no code with the
 * project. Per cell, last write wins by timestamp; at equal timestamps a tombstone or an expiring
 * cell beats a plain live one, a tombstone beats an expiring one, and between two live values the
 * greater serialized value wins (values here are ASCII text or non-negative ints, whose natural
 * order is their serialized order). A row, range or partition deletion at timestamp D shadows
 * every cell of the rows it covers written at D or before. An expiring cell is dead from its
 * expiry on.
 *
 * <p>Rows are keyed by their primary-key values (partition key first); a clustering range
 * deletion covers clustering values {@code lo <= c < hi} of one partition.
 */
final class LwwRows {
    /** One cell: {@code value} null for a tombstone; {@code expiresAt} epoch millis, or 0 when not expiring. */
    record Cell(Object value, long ts, long expiresAt) {
        boolean tombstone() {
            return value == null;
        }

        boolean expiring() {
            return expiresAt != 0;
        }
    }

    private record Deletion(Object partition, Integer lo, Integer hi, long markedAt) {
        boolean covers(List<Object> row) {
            if (!partition.equals(row.get(0))) {
                return false;
            }
            if (lo == null) {
                return true;
            }
            int c = (Integer) row.get(1);
            return c >= lo && c < hi;
        }
    }

    private final Map<List<Object>, Map<String, Cell>> rows = new LinkedHashMap<>();
    private final Map<List<Object>, Long> rowDeletions = new LinkedHashMap<>();
    private final List<Deletion> deletions = new ArrayList<>();

    /** True when {@code a} wins over {@code b} under Cassandra's reconciliation. */
    static boolean wins(Cell a, Cell b) {
        if (a.ts != b.ts) {
            return a.ts > b.ts;
        }
        boolean aDeadOrExpiring = a.tombstone() || a.expiring();
        boolean bDeadOrExpiring = b.tombstone() || b.expiring();
        if (aDeadOrExpiring != bDeadOrExpiring) {
            return aDeadOrExpiring;
        }
        if (a.tombstone() != b.tombstone()) {
            return a.tombstone();
        }
        if (a.tombstone()) {
            return false; // equal
        }
        if (a.expiring() && a.expiresAt != b.expiresAt) {
            return a.expiresAt > b.expiresAt;
        }
        return compare(a.value, b.value) > 0;
    }

    private static int compare(Object x, Object y) {
        if (x instanceof Integer i && y instanceof Integer j) {
            return Integer.compare(i, j);
        }
        byte[] a = x.toString().getBytes(StandardCharsets.UTF_8);
        byte[] b = y.toString().getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.compareUnsigned(a, b);
    }

    /** A cell write (value null: a tombstone, as written by {@code SET col = null} or {@code DELETE col}). */
    void write(List<Object> row, String column, Object value, long ts, long expiresAt) {
        Cell c = new Cell(value, ts, value == null ? 0 : expiresAt);
        rows.computeIfAbsent(row, r -> new LinkedHashMap<>()).merge(column, c, (old, now) -> wins(now, old) ? now : old);
    }

    void deleteRow(List<Object> row, long ts) {
        rowDeletions.merge(row, ts, Math::max);
    }

    void deleteRange(Object partition, int lo, int hi, long ts) {
        deletions.add(new Deletion(partition, lo, hi, ts));
    }

    void deletePartition(Object partition, long ts) {
        deletions.add(new Deletion(partition, null, null, ts));
    }

    /** Every row key ever written. */
    List<List<Object>> rowKeys() {
        return new ArrayList<>(rows.keySet());
    }

    /** The newest deletion timestamp covering {@code row}, or Long.MIN_VALUE. */
    private long deletedAt(List<Object> row) {
        long at = rowDeletions.getOrDefault(row, Long.MIN_VALUE);
        for (Deletion d : deletions) {
            if (d.covers(row)) {
                at = Math.max(at, d.markedAt);
            }
        }
        return at;
    }

    /** The live value of a cell at {@code nowMillis}, or null. */
    Object live(List<Object> row, String column, long nowMillis) {
        Cell c = cell(row, column);
        if (c == null || c.tombstone() || c.ts <= deletedAt(row)) {
            return null;
        }
        if (c.expiring() && c.expiresAt <= nowMillis) {
            return null;
        }
        return c.value;
    }

    /** The winning cell of a column (ignoring deletions), or null. */
    Cell cell(List<Object> row, String column) {
        Map<String, Cell> cells = rows.get(row);
        return cells == null ? null : cells.get(column);
    }

    /** True when some cell of {@code columns} in {@code row} expires within {@code marginMillis} of {@code nowMillis}. */
    boolean expiresNear(List<Object> row, List<String> columns, long nowMillis, long marginMillis) {
        for (String col : columns) {
            Cell c = cell(row, col);
            if (c != null && c.expiring() && Math.abs(c.expiresAt - nowMillis) <= marginMillis) {
                return true;
            }
        }
        return false;
    }

    /** Latest expiry of any cell, epoch millis (0 if none). */
    long lastExpiry(long before) {
        long last = 0;
        for (Map<String, Cell> cells : rows.values()) {
            for (Cell c : cells.values()) {
                if (c.expiring() && c.expiresAt < before) {
                    last = Math.max(last, c.expiresAt);
                }
            }
        }
        return last;
    }

    @Override
    public String toString() {
        return Objects.toString(rows);
    }
}
