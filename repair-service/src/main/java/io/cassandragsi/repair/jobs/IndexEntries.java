package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.IndexLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * What {@code check} reads from and deletes in one index table: an entry by its full key, every
 * entry in a token range of the index partitions (with the write time of each regular cell), and
 * the deletion of an orphan at a chosen timestamp. (Writes of entries stay with {@code
 * store.IndexTable}; these statements belong there too once it grows reads.)
 */
final class IndexEntries {
    /** Receives one index row. */
    @FunctionalInterface
    interface EntryConsumer {
        void accept(List<ByteBuffer> key, EntryCheck.Actual actual) throws InterruptedException;
    }

    private final CqlSession session;
    private final IndexPlan plan;
    private final PreparedStatement point;
    private final PreparedStatement scan;
    private final PreparedStatement delete;
    private final int keySize;
    private final int projSize;
    private final int regular;
    /** {@code _tid} and {@code _deleted} in a selected row; -1 for a per-version index. */
    private final int tidColumn;
    private final int deletedColumn;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final int pageSize;

    IndexEntries(CqlSession session, TableDef def, IndexPlan plan, ConsistencyLevel read, ConsistencyLevel write, int pageSize) {
        this.session = session;
        this.plan = plan;
        this.read = read;
        this.write = write;
        this.pageSize = pageSize;
        Index index = plan.index();
        String table = Cql.qualified(def.keyspace(), index.tableName());
        IndexLayout layout = IndexLayout.of(index);
        List<String> values = layout.regularColumns().stream().map(Column::cqlName).toList();
        this.keySize = layout.keySize();
        this.projSize = layout.projSize();
        this.regular = values.size();
        this.tidColumn = layout.tidColumn();
        this.deletedColumn = layout.deletedColumn();
        List<String> selected = new ArrayList<>(values);
        for (String v : values) {
            selected.add("writetime(" + v + ")");
        }
        String keyColumns = layout.keyColumns().stream().map(Column::cqlName).collect(Collectors.joining(", "));
        String whereKey = layout.keyColumns().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        String token = "token(" + index.partitionColumns().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        String columns = selected.isEmpty() ? "" : ", " + String.join(", ", selected);
        // the layout's order, each regular column's write time after it; the key columns come first
        // in both reads: a point read selects them too, so that a table without regular columns (an
        // index on the tid without projections) still returns a row
        this.point = session.prepare("SELECT " + keyColumns + columns + " FROM " + table + " WHERE " + whereKey);
        this.scan = session.prepare("SELECT " + keyColumns + columns + " FROM " + table + " WHERE " + token + " > ? AND " + token + " <= ?");
        this.delete = session.prepare("DELETE FROM " + table + " USING TIMESTAMP ? WHERE " + whereKey);
    }

    IndexPlan plan() {
        return plan;
    }

    private EntryCheck.Actual actual(Row r) {
        int o = keySize;
        ByteBuffer[] proj = new ByteBuffer[projSize];
        for (int i = 0; i < projSize; i++) {
            proj[i] = r.getBytesUnsafe(o + i);
        }
        java.util.UUID tid = null;
        java.util.UUID deleted = null;
        if (tidColumn >= 0) {
            tid = r.getUuid(tidColumn);
            deleted = r.getUuid(deletedColumn);
        }
        long max = Long.MIN_VALUE;
        for (int i = 0; i < regular; i++) {
            int col = o + regular + i;
            if (!r.isNull(col)) {
                max = Math.max(max, r.getLong(col));
            }
        }
        return new EntryCheck.Actual(tid, deleted, Arrays.asList(proj), max);
    }

    private List<ByteBuffer> key(Row r) {
        ByteBuffer[] key = new ByteBuffer[keySize];
        for (int i = 0; i < keySize; i++) {
            key[i] = r.getBytesUnsafe(i);
        }
        return Arrays.asList(key);
    }

    /** The entry with this key, or null (completes with null) when the index has no row for it. */
    CompletionStage<EntryCheck.Actual> read(List<ByteBuffer> key) {
        BoundStatementBuilder b = point.boundStatementBuilder();
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(i, key.get(i).duplicate());
        }
        return session.executeAsync(b.setConsistencyLevel(read).setIdempotence(true).build()).thenApply((AsyncResultSet rs) -> {
            Row r = rs.one();
            return r == null ? null : actual(r);
        });
    }

    /** Streams every entry whose index partition lies in {@code range}; false when stopped early. */
    boolean scan(TokenRange range, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException {
        for (Row r : session.execute(scan.bind(range.start(), range.end()).setConsistencyLevel(read).setPageSize(pageSize)
                .setIdempotent(true))) {
            if (stop.getAsBoolean()) {
                return false;
            }
            consumer.accept(key(r), actual(r));
        }
        return true;
    }

    /** The delete of an orphan's row with a tombstone at {@code timestamp}. */
    Statement<?> delete(List<ByteBuffer> key, long timestamp) {
        BoundStatementBuilder b = delete.boundStatementBuilder().setLong(0, timestamp);
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(i + 1, key.get(i).duplicate());
        }
        return b.setConsistencyLevel(write).setIdempotence(true).build();
    }
}
