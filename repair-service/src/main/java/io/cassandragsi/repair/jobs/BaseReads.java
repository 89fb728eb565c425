package io.cassandragsi.repair.jobs;

import io.cassandragsi.maintain.Version;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The base-table reads of the jobs: every version in a token range, grouped by versioned row, and
 * all versions of one row. (The statements belong with {@code store.BaseTable}, which owns the
 * table's other reads; they live here until that class grows a range scan.)
 */
final class BaseReads {
    /** Receives the complete versions of one row, ascending. */
    @FunctionalInterface
    interface RowConsumer {
        void accept(List<ByteBuffer> rowKey, List<Version> versions) throws InterruptedException;
    }

    private final CqlSession session;
    private final PreparedStatement scan;
    private final PreparedStatement row;
    private final int attributes;
    private final int tidAttribute;
    private final int[] rowKeyAttributes;
    private final ConsistencyLevel cl;
    private final int pageSize;

    BaseReads(CqlSession session, TableDef def, ConsistencyLevel cl, int pageSize) {
        this.session = session;
        this.cl = cl;
        this.pageSize = pageSize;
        List<String> names = new ArrayList<>(def.attributes().keySet());
        this.attributes = names.size();
        this.tidAttribute = names.indexOf(def.tid().name());
        List<Column> rowKey = RowsLayout.rowKey(def);
        this.rowKeyAttributes = RowsLayout.rowKeyAttributes(def);
        String columns = names.stream().map(Cql::quote).collect(Collectors.joining(", "));
        String table = Cql.qualified(def.keyspace(), def.table());
        String token = "token(" + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        this.scan = session.prepare("SELECT " + columns + " FROM " + table + " WHERE " + token + " > ? AND " + token + " <= ?");
        this.row = session.prepare("SELECT " + columns + " FROM " + table + " WHERE "
                + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND ")));
    }

    private Version version(Row r) {
        ByteBuffer[] values = new ByteBuffer[attributes];
        for (int i = 0; i < attributes; i++) {
            values[i] = r.getBytesUnsafe(i);
        }
        return new Version(values, tidAttribute);
    }

    List<ByteBuffer> rowKey(Version v) {
        ByteBuffer[] key = new ByteBuffer[rowKeyAttributes.length];
        for (int i = 0; i < key.length; i++) {
            key[i] = v.values()[rowKeyAttributes[i]];
        }
        return Arrays.asList(key);
    }

    /**
     * Streams every row whose partition lies in {@code range}, one versioned row at a time (its
     * versions arrive together: they share the partition and the clustering prefix). Returns
     * false when {@code stop} said so before the range was exhausted.
     */
    boolean scan(TokenRange range, RowConsumer consumer, BooleanSupplier stop) throws InterruptedException {
        List<Version> current = new ArrayList<>();
        List<ByteBuffer> currentKey = null;
        for (Row r : session.execute(scan.bind(range.start(), range.end()).setConsistencyLevel(cl).setPageSize(pageSize)
                .setIdempotent(true))) {
            Version v = version(r);
            List<ByteBuffer> key = rowKey(v);
            if (currentKey != null && !key.equals(currentKey)) {
                if (stop.getAsBoolean()) {
                    return false;
                }
                flush(consumer, currentKey, current);
                current = new ArrayList<>();
            }
            currentKey = key;
            current.add(v);
        }
        if (currentKey != null) {
            if (stop.getAsBoolean()) {
                return false;
            }
            flush(consumer, currentKey, current);
        }
        return true;
    }

    private static void flush(RowConsumer consumer, List<ByteBuffer> key, List<Version> versions) throws InterruptedException {
        versions.sort(Version.ASCENDING);
        consumer.accept(key, versions);
    }

    /** Every version of one row, ascending (all pages). */
    CompletionStage<List<Version>> row(List<ByteBuffer> rowKey) {
        BoundStatementBuilder b = row.boundStatementBuilder();
        for (int i = 0; i < rowKey.size(); i++) {
            b.setBytesUnsafe(i, rowKey.get(i).duplicate());
        }
        List<Version> out = new ArrayList<>();
        return session.executeAsync(b.setConsistencyLevel(cl).setPageSize(pageSize).setIdempotence(true).build())
                .thenCompose(rs -> collect(rs, out))
                .thenApply(v -> {
                    out.sort(Version.ASCENDING);
                    return out;
                });
    }

    private CompletionStage<List<Version>> collect(AsyncResultSet rs, List<Version> out) {
        for (Row r : rs.currentPage()) {
            out.add(version(r));
        }
        if (rs.hasMorePages()) {
            return rs.fetchNextPage().thenCompose(next -> collect(next, out));
        }
        return CompletableFuture.completedFuture(out);
    }
}
