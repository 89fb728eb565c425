package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Writes to one index table, every one at the TS of the version it is for (DESIGN.md section 3),
 * so they are idempotent and commute with the trigger's writes; and the selects that reads page
 * through, one per shape of query.
 */
public final class IndexTable {
    private final CqlSession session;
    private final IndexPlan plan;
    private final PreparedStatement upsert;
    private final PreparedStatement markDeleted;
    private final int keySize;
    private final int projSize;
    private final String table;
    /** Every column, in the order upserts bind and selects return them. */
    private final List<String> columns;
    private final Map<Shape, CompletableFuture<PreparedStatement>> selects = new ConcurrentHashMap<>();

    /**
     * The shape of a read: how many range attributes the path fixes, and the operators ({@code >},
     * {@code >=}, {@code <}, {@code <=} or null) of the bounds on the next one.
     */
    public record Shape(int fixedRanges, String lowerOp, String upperOp) {}

    public IndexTable(CqlSession session, TableDef def, IndexPlan plan) {
        this.session = session;
        this.plan = plan;
        Index index = plan.index();
        this.table = Cql.qualified(def.keyspace(), index.tableName());
        List<String> columns = new ArrayList<>();
        for (Column c : index.keyColumns()) {
            columns.add(c.cqlName());
        }
        for (Column c : index.proj()) {
            columns.add(c.cqlName());
        }
        if (!index.perVersion()) {
            columns.add(Cql.quote(Index.TID_COLUMN));
            columns.add(Cql.quote(Index.DELETED_COLUMN));
        }
        this.columns = List.copyOf(columns);
        this.keySize = index.keyColumns().size();
        this.projSize = index.proj().size();
        this.upsert = session.prepare("INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ") USING TIMESTAMP ?");
        this.markDeleted = index.perVersion() ? null : session.prepare("UPDATE " + table + " USING TIMESTAMP ? SET "
                + Cql.quote(Index.DELETED_COLUMN) + " = ? WHERE "
                + index.keyColumns().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND ")));
    }

    public IndexPlan plan() {
        return plan;
    }

    /**
     * The select of a read of this shape, prepared once, asynchronously (reads never block on it).
     * Binds the partition key (the constant {@code _index} column first when the index has no hash
     * attributes), the fixed range values, then the lower and upper bound. Selects the entry key,
     * the projections, then {@code _tid} and {@code _deleted} unless the index is per version. A
     * failed preparation is forgotten, so that the next read prepares again.
     */
    public CompletableFuture<PreparedStatement> select(Shape shape) {
        CompletableFuture<PreparedStatement> ps = selects.computeIfAbsent(shape, this::prepareSelect);
        if (ps.isCompletedExceptionally()) {
            selects.remove(shape, ps);
        }
        return ps;
    }

    private CompletableFuture<PreparedStatement> prepareSelect(Shape shape) {
        Index index = plan.index();
        List<String> where = new ArrayList<>();
        for (Column c : index.partitionColumns()) {
            where.add(c.cqlName() + " = ?");
        }
        for (int i = 0; i < shape.fixedRanges(); i++) {
            where.add(index.range().get(i).cqlName() + " = ?");
        }
        if (shape.fixedRanges() < index.range().size()) {
            String col = index.range().get(shape.fixedRanges()).cqlName();
            if (shape.lowerOp() != null) {
                where.add(col + " " + shape.lowerOp() + " ?");
            }
            if (shape.upperOp() != null) {
                where.add(col + " " + shape.upperOp() + " ?");
            }
        }
        return session.prepareAsync("SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE " + String.join(" AND ", where))
                .toCompletableFuture();
    }

    /**
     * The writes as statements, one per index partition: a partition's several writes (an entry and
     * its {@code _deleted}, entries of neighbouring versions) go as one UNLOGGED batch, a single
     * mutation on the replica with no batchlog; each write keeps its own TS.
     */
    public List<Statement<?>> statementsByPartition(List<TablePlan.IndexWrite> writes, ConsistencyLevel cl) {
        Map<List<ByteBuffer>, List<BatchableStatement<?>>> byPartition = new LinkedHashMap<>();
        int ps = plan.partitionSize();
        for (TablePlan.IndexWrite w : writes) {
            byPartition.computeIfAbsent(w.key().subList(0, ps), k -> new ArrayList<>()).add(statement(w, cl));
        }
        List<Statement<?>> out = new ArrayList<>(byPartition.size());
        for (List<BatchableStatement<?>> group : byPartition.values()) {
            out.add(group.size() == 1 ? group.get(0)
                    : BatchStatement.newInstance(BatchType.UNLOGGED, group).setConsistencyLevel(cl).setIdempotent(true));
        }
        return out;
    }

    BoundStatement statement(TablePlan.IndexWrite write, ConsistencyLevel cl) {
        if (write instanceof TablePlan.Upsert u) {
            BoundStatementBuilder b = upsert.boundStatementBuilder();
            int i = 0;
            for (ByteBuffer k : u.key()) {
                b.setBytesUnsafe(i++, k.duplicate());
            }
            TablePlan.Entry e = u.entry();
            for (int p = 0; p < projSize; p++, i++) {
                if (e.projKnown()[p]) {
                    b.setBytesUnsafe(i, e.proj()[p] == null ? null : e.proj()[p].duplicate());
                } // else: left unset, the cell is not touched
            }
            if (!plan.perVersion()) {
                b.setBytesUnsafe(i++, u.tid().duplicate());
                b.setToNull(i++);
            }
            b.setLong(i, u.timestamp());
            return b.setConsistencyLevel(cl).setIdempotence(true).build();
        }
        TablePlan.MarkDeleted m = (TablePlan.MarkDeleted) write;
        BoundStatementBuilder b = markDeleted.boundStatementBuilder().setLong(0, m.timestamp())
                .setBytesUnsafe(1, m.deletedAt().duplicate());
        int i = 2;
        for (ByteBuffer k : m.key()) {
            b.setBytesUnsafe(i++, k.duplicate());
        }
        if (i - 2 != keySize) {
            throw new IllegalStateException("key size mismatch for " + plan.tableName());
        }
        return b.setConsistencyLevel(cl).setIdempotence(true).build();
    }
}
