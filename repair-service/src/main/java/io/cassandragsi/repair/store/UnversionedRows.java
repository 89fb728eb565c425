package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.schema.TableDef;
import io.cassandragsi.tables.BaseTableCql;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The current rows of an unversioned base table on the driver (docs/design.md section 6): each
 * row as Cassandra holds it now, with each indexed cell's write time and remaining TTL. The
 * statements and their decoding are {@link BaseTableCql}'s.
 */
public final class UnversionedRows {
    private final CqlSession session;
    private final TableDef def;
    private final BaseTableCql cql;
    private final PreparedStatement row;
    private final PreparedStatement partition;
    private final PreparedStatement scan;

    public UnversionedRows(CqlSession session, BaseTableCql cql) {
        this.session = session;
        this.cql = cql;
        this.def = cql.definition();
        this.row = session.prepare(cql.currentRow());
        this.partition = session.prepare(cql.currentPartition());
        this.scan = session.prepare(cql.currentScan());
    }

    private static BoundStatementBuilder bindKey(PreparedStatement ps, List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = ps.boundStatementBuilder();
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(i, key.get(i).duplicate());
        }
        return b.setConsistencyLevel(cl).setPageSize(1000).setIdempotence(true);
    }

    /** The base row now ({@code rowKey}: partition key then clustering values); every cell dead when the row is gone. */
    public CurrentRow row(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        if (rowKey.size() != cql.rowKeyAttributes().length) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs "
                    + cql.rowKeyAttributes().length);
        }
        Row r = session.execute(bindKey(row, rowKey, cl).build()).one();
        return r == null ? cql.absent(rowKey) : cql.current(r::getBytesUnsafe);
    }

    /** Every row of a base partition now. */
    public List<CurrentRow> partition(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        List<CurrentRow> out = new ArrayList<>();
        for (Row r : session.execute(bindKey(partition, partitionKey, cl).build())) {
            out.add(cql.current(r::getBytesUnsafe));
        }
        return out;
    }

    /** As {@link #row}, asynchronously. */
    public CompletableFuture<CurrentRow> rowAsync(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        return session.executeAsync(bindKey(row, rowKey, cl).build()).toCompletableFuture().thenApply(rs -> {
            Row r = rs.one();
            return r == null ? cql.absent(rowKey) : cql.current(r::getBytesUnsafe);
        });
    }

    /** Streams every base row whose partition token lies in (start, end]; false when {@code stop} said so first. */
    public boolean scan(long start, long end, int pageSize, ConsistencyLevel cl, RowScans.RowConsumer<RowHistory.Current> consumer,
            BooleanSupplier stop) throws InterruptedException {
        for (Row r : session.execute(scan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            if (stop.getAsBoolean()) {
                return false;
            }
            consumer.accept(new RowHistory.Current(cql.current(r::getBytesUnsafe)));
        }
        return true;
    }

    /** A row that is not in the base: its key attributes, every other cell dead. */
    public CurrentRow absent(List<ByteBuffer> rowKey) {
        return cql.absent(rowKey);
    }
}
