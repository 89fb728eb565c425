package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An in-memory index table that follows Cassandra's last-write-wins rules for regular cells
 * (Cells.reconcile in Cassandra 5.0): the higher timestamp wins; at equal timestamps a tombstone
 * beats a live cell, and between live cells the greater value (unsigned bytes) wins. Lets the
 * randomized histories run for many seeds without a node.
 */
public final class LwwIndexModel {
    /** One cell: value (null for a tombstone) and write timestamp. */
    public record Cell(ByteBuffer value, long timestamp) {
        static Cell reconcile(Cell a, Cell b) {
            if (a == null) {
                return b;
            }
            if (a.timestamp != b.timestamp) {
                return a.timestamp > b.timestamp ? a : b;
            }
            if ((a.value == null) != (b.value == null)) {
                return a.value == null ? a : b;
            }
            if (a.value == null) {
                return a;
            }
            return compareUnsigned(a.value, b.value) >= 0 ? a : b;
        }

        private static int compareUnsigned(ByteBuffer x, ByteBuffer y) {
            return java.util.Arrays.compareUnsigned(bytes(x), bytes(y));
        }

        private static byte[] bytes(ByteBuffer b) {
            byte[] out = new byte[b.remaining()];
            b.duplicate().get(out);
            return out;
        }
    }

    /** The two version columns of one entry. */
    public static final class Entry {
        public Cell tid;
        public Cell deleted;
    }

    private final Map<IndexPlan, Map<List<ByteBuffer>, Entry>> tables = new HashMap<>();

    public void apply(TablePlan.IndexWrite write) {
        Entry e = tables.computeIfAbsent(write.index(), k -> new HashMap<>()).computeIfAbsent(write.key(), k -> new Entry());
        if (write instanceof TablePlan.Upsert u) {
            e.tid = Cell.reconcile(e.tid, new Cell(u.tid(), u.timestamp()));
        } else {
            TablePlan.MarkDeleted m = (TablePlan.MarkDeleted) write;
            e.deleted = Cell.reconcile(e.deleted, new Cell(m.deletedAt(), m.timestamp()));
        }
    }

    public Map<List<ByteBuffer>, Entry> entries(IndexPlan index) {
        return tables.getOrDefault(index, Map.of());
    }
}
