package io.cassandragsi.it;

import io.cassandragsi.oracle.LwwTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The oracle for unversioned tables: what a Cassandra 5.0 table holds after a sequence of writes,
 * in the tests' one last-write-wins model ({@link LwwTable}, schemas test-jar, sharing no code with
 * the project): per cell the later timestamp wins, and on a tie Cassandra 5.0.6's rule decides (a
 * tombstone or an expiring cell beats a plain live one, a tombstone beats an expiring one, then the
 * later expiry, the lower TTL, the greater serialized value). A row, range or partition deletion
 * at timestamp D shadows every cell of the rows it covers written at D or before. An expiring cell
 * is dead from its expiry on, counted in whole seconds from the second it was written (this
 * process's clock when {@link #write} is called, taken for the node's).
 *
 * <p>Rows are keyed by their primary-key values (partition key first); a clustering range
 * deletion covers clustering values {@code lo <= c < hi} of one partition. Values are Strings
 * (text) or Integers (int), serialized as Cassandra does, so ties compare what Cassandra compares.
 */
final class LwwRows {
    /** Reads as of a given moment; writes at the wall clock. */
    private long readAt = -1;
    private final LwwTable table = new LwwTable(() -> readAt >= 0 ? readAt : System.currentTimeMillis());
    private final Map<String, Class<?>> types = new HashMap<>();

    private static Object partition(List<Object> row) {
        return row.get(0);
    }

    private static Object clustering(List<Object> row) {
        return row.size() > 1 ? row.get(1) : null;
    }

    private static ByteBuffer serialize(Object value) {
        if (value instanceof Integer i) {
            return ByteBuffer.allocate(4).putInt(0, i);
        }
        return ByteBuffer.wrap(value.toString().getBytes(StandardCharsets.UTF_8));
    }

    private Object deserialize(String column, ByteBuffer b) {
        if (b == null) {
            return null;
        }
        if (types.get(column) == Integer.class) {
            return b.getInt(b.position());
        }
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    /**
     * A cell write at client timestamp {@code ts}, expiring {@code ttl} seconds after now (0: never);
     * value null: a tombstone, as written by {@code SET col = null} or {@code DELETE col}.
     */
    void write(List<Object> row, String column, Object value, long ts, int ttl) {
        if (value != null) {
            types.putIfAbsent(column, value.getClass());
        }
        table.write(partition(row), clustering(row), column, value == null ? null : serialize(value), ts, ttl);
    }

    void deleteRow(List<Object> row, long ts) {
        table.deleteRow(partition(row), clustering(row), ts);
    }

    void deleteRange(Object partition, int lo, int hi, long ts) {
        table.deleteRange(partition, lo, true, hi, false, ts);
    }

    void deletePartition(Object partition, long ts) {
        table.deletePartition(partition, ts);
    }

    /** Every row key ever written. */
    List<List<Object>> rowKeys() {
        List<List<Object>> out = new ArrayList<>();
        for (LwwTable.RowKey k : table.rows()) {
            out.add(k.clustering() == null ? List.of(k.partition()) : List.of(k.partition(), k.clustering()));
        }
        return out;
    }

    /** The live value of a cell at {@code nowMillis}, or null. */
    Object live(List<Object> row, String column, long nowMillis) {
        readAt = nowMillis;
        try {
            return deserialize(column, table.value(partition(row), clustering(row), column));
        } finally {
            readAt = -1;
        }
    }

    /** True when some cell of {@code columns} in {@code row} expires within {@code marginMillis} of {@code nowMillis}. */
    boolean expiresNear(List<Object> row, List<String> columns, long nowMillis, long marginMillis) {
        for (String col : columns) {
            LwwTable.Cell c = table.cell(partition(row), clustering(row), col);
            if (c != null && c.isExpiring() && Math.abs(c.localDeletionTime() * 1000 - nowMillis) <= marginMillis) {
                return true;
            }
        }
        return false;
    }

    /** Latest expiry of any cell before {@code before}, epoch millis (0 if none). */
    long lastExpiry(long before) {
        long last = 0;
        for (LwwTable.Cell c : table.expiringCells()) {
            long at = c.localDeletionTime() * 1000;
            if (at < before) {
                last = Math.max(last, at);
            }
        }
        return last;
    }

    @Override
    public String toString() {
        return table.toString();
    }
}
