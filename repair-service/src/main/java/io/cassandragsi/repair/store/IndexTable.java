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
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.check.EntryScans;
import io.cassandragsi.check.Observed;
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
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Writes to one index table, every one at the TS of the version it is for (docs/design.md section 4),
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
    /** Every column, in the order upserts bind and selects return them ({@link #layout}). */
    private final IndexColumns layout;
    private final List<String> columns;
    private final Map<Shape, CompletableFuture<PreparedStatement>> selects = new ConcurrentHashMap<>();
    /** An entry's state, and writes of single cells at their own TS and TTL (null for a per-version index). */
    private final PreparedStatement entryState;
    private final PreparedStatement setTid;
    private final PreparedStatement[] setProj;
    private final PreparedStatement[] deleteProj;
    /** Deletes an entry row (a per-version index's entry whose version went away, an orphan {@code check --fix} removes). */
    private final PreparedStatement remove;
    /** The jobs' reads of entries with their cells' write times: one by key, and a token range of index partitions. */
    private final PreparedStatement observed;
    private final PreparedStatement observedScan;
    /** Whether an entry row exists (a per-version index; null for any other index). */
    private final PreparedStatement exists;
    private final io.cassandragsi.tables.IndexTableCql entryCql;

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
        this.layout = IndexColumns.of(index);
        List<String> columns = layout.cqlNames();
        this.columns = List.copyOf(columns);
        this.keySize = layout.keySize();
        this.projSize = layout.projSize();
        this.upsert = session.prepare("INSERT INTO " + table + " (" + String.join(", ", columns) + ") VALUES ("
                + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ") USING TIMESTAMP ?");
        String whereKey = " WHERE " + index.keyColumns().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.markDeleted = index.perVersion() ? null : session.prepare("UPDATE " + table + " USING TIMESTAMP ? SET "
                + Cql.quote(Index.DELETED_COLUMN) + " = ?" + whereKey);
        io.cassandragsi.tables.IndexTableCql cql = new io.cassandragsi.tables.IndexTableCql(def, plan);
        this.entryCql = cql;
        this.remove = session.prepare(cql.remove());
        this.observed = session.prepare(cql.observed());
        this.observedScan = session.prepare(cql.observedScan());
        this.exists = index.perVersion() ? session.prepare(cql.exists()) : null;
        if (index.perVersion()) {
            this.entryState = null;
            this.setTid = null;
            this.setProj = null;
            this.deleteProj = null;
        } else {
            this.entryState = session.prepare(cql.entryState());
            this.setTid = session.prepare("UPDATE " + table + " USING TIMESTAMP ? AND TTL ? SET " + Cql.quote(Index.TID_COLUMN) + " = ?" + whereKey);
            this.setProj = index.proj().stream()
                    .map(c -> session.prepare("UPDATE " + table + " USING TIMESTAMP ? AND TTL ? SET " + c.cqlName() + " = ?" + whereKey))
                    .toArray(PreparedStatement[]::new);
            this.deleteProj = index.proj().stream()
                    .map(c -> session.prepare("DELETE " + c.cqlName() + " FROM " + table + " USING TIMESTAMP ?" + whereKey))
                    .toArray(PreparedStatement[]::new);
        }
    }

    /** An entry as the index holds it, with its cells' write timestamps, or null when it has no row (not for per-version indexes). */
    public CompletableFuture<io.cassandragsi.index.RowReconcile.EntryState> entryStateAsync(List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = entryState.boundStatementBuilder();
        bindKey(b, 0, key);
        return session.executeAsync(b.setConsistencyLevel(cl).setIdempotence(true).build()).toCompletableFuture().thenApply(rs -> {
            Row r = rs.one();
            return r == null ? null : entryCql.entryState(r::getBytesUnsafe);
        });
    }

    /** The entries of {@code keys} that the index has a row for, read side by side. */
    public CompletableFuture<Map<List<ByteBuffer>, io.cassandragsi.index.RowReconcile.EntryState>> entryStatesAsync(
            java.util.Collection<List<ByteBuffer>> keys, ConsistencyLevel cl) {
        Map<List<ByteBuffer>, io.cassandragsi.index.RowReconcile.EntryState> found = new ConcurrentHashMap<>();
        CompletableFuture<?>[] reads = keys.stream().map(key -> entryStateAsync(key, cl).thenAccept(e -> {
            if (e != null) {
                found.put(key, e);
            }
        })).toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(reads).thenApply(x -> found);
    }

    /** The keys among {@code keys} that have no entry row (a per-version index). */
    public CompletableFuture<java.util.Set<List<ByteBuffer>>> absentAsync(java.util.Collection<List<ByteBuffer>> keys, ConsistencyLevel cl) {
        java.util.Set<List<ByteBuffer>> absent = ConcurrentHashMap.newKeySet();
        CompletableFuture<?>[] reads = keys.stream().map(key -> {
            BoundStatementBuilder b = exists.boundStatementBuilder();
            bindKey(b, 0, key);
            return session.executeAsync(b.setConsistencyLevel(cl).setIdempotence(true).build()).toCompletableFuture().thenAccept(rs -> {
                if (rs.one() == null) {
                    absent.add(key);
                }
            });
        }).toArray(CompletableFuture<?>[]::new);
        return CompletableFuture.allOf(reads).thenApply(x -> absent);
    }

    /** An entry with its cells' write times, as the jobs judge it, or null when the index has no row for it. */
    public CompletableFuture<Observed> entryAsync(List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = observed.boundStatementBuilder();
        bindKey(b, 0, key);
        return session.executeAsync(b.setConsistencyLevel(cl).setIdempotence(true).build()).toCompletableFuture().thenApply(rs -> {
            Row r = rs.one();
            return r == null ? null : entryCql.observed(r::getBytesUnsafe);
        });
    }

    /** Streams every entry whose index partition token lies in (start, end]; false when {@code stop} said so first. */
    public boolean scan(long start, long end, int pageSize, ConsistencyLevel cl, EntryScans.EntryConsumer consumer, BooleanSupplier stop)
            throws InterruptedException {
        for (Row r : session.execute(observedScan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            if (stop.getAsBoolean()) {
                return false;
            }
            consumer.accept(entryCql.key(r::getBytesUnsafe), entryCql.observed(r::getBytesUnsafe));
        }
        return true;
    }

    private static int bindKey(BoundStatementBuilder b, int from, List<ByteBuffer> key) {
        int i = from;
        for (ByteBuffer k : key) {
            b.setBytesUnsafe(i++, k.duplicate());
        }
        return i;
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

    /**
     * The select of a read of this shape, bound in the order {@link #select} states: {@code fixed}
     * holds the hash values then the fixed range values; {@code lower} and {@code upper} (null when
     * the shape has none) bound the next range attribute.
     */
    public CompletableFuture<BoundStatementBuilder> selectBound(Shape shape, List<ByteBuffer> fixed, ByteBuffer lower, ByteBuffer upper) {
        return select(shape).thenApply(ps -> {
            BoundStatementBuilder b = ps.boundStatementBuilder();
            bind(b, 0, plan, fixed, lower, upper);
            return b;
        });
    }

    /** The layout of this table's columns, which read selects return. */
    public IndexColumns layout() {
        return layout;
    }

    private CompletableFuture<PreparedStatement> prepareSelect(Shape shape) {
        return session.prepareAsync("SELECT " + String.join(", ", columns) + " FROM " + table + " WHERE "
                + String.join(" AND ", where(plan.index(), shape))).toCompletableFuture();
    }

    /**
     * The restrictions of a read's select of this shape, in the order {@link #bind} binds them: the
     * index's partition key, the fixed range values, then the bounds on the next range attribute.
     * A bucket table's select puts its label before them ({@link BucketTable}).
     */
    static List<String> where(Index index, Shape shape) {
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
        return where;
    }

    /** Binds what {@link #where} restricts from {@code from} on: the constant partition (an index without hash attributes), {@code fixed}, the bounds. */
    static void bind(BoundStatementBuilder b, int from, IndexPlan plan, List<ByteBuffer> fixed, ByteBuffer lower, ByteBuffer upper) {
        int i = from;
        if (plan.index().hasConstantPartition()) {
            b.setBytesUnsafe(i++, plan.constantPartition());
        }
        for (ByteBuffer v : fixed) {
            b.setBytesUnsafe(i++, v);
        }
        if (lower != null) {
            b.setBytesUnsafe(i++, lower);
        }
        if (upper != null) {
            b.setBytesUnsafe(i++, upper);
        }
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
            byPartition.computeIfAbsent(w.key().subList(0, ps), k -> new ArrayList<>()).addAll(statements(w, cl));
        }
        return perPartition(byPartition.values(), cl);
    }

    /** One statement per partition: its writes alone, or as an UNLOGGED batch (a single mutation on the replica, no batchlog). */
    static List<Statement<?>> perPartition(java.util.Collection<List<BatchableStatement<?>>> partitions, ConsistencyLevel cl) {
        List<Statement<?>> out = new ArrayList<>(partitions.size());
        for (List<BatchableStatement<?>> group : partitions) {
            out.add(group.size() == 1 ? group.get(0)
                    : BatchStatement.newInstance(BatchType.UNLOGGED, group).setConsistencyLevel(cl).setIdempotent(true));
        }
        return out;
    }

    /** The statements of one write: one, except for an unversioned entry (a statement per cell, each at its own TS). */
    private List<BoundStatement> statements(TablePlan.IndexWrite write, ConsistencyLevel cl) {
        if (!(write instanceof TablePlan.Reconciled r)) {
            return List.of(statement(write, cl));
        }
        List<BoundStatement> out = new ArrayList<>();
        if (r.tid() != null) {
            BoundStatementBuilder b = setTid.boundStatementBuilder().setLong(0, r.timestamp()).setInt(1, r.ttl())
                    .setBytesUnsafe(2, r.tid().duplicate());
            bindKey(b, 3, r.key());
            out.add(b.setConsistencyLevel(cl).setIdempotence(true).build());
        }
        for (int i = 0; i < r.proj().length; i++) {
            TablePlan.ProjCell c = r.proj()[i];
            if (c == null) {
                continue;
            }
            BoundStatementBuilder p;
            if (c.value() == null) {
                p = deleteProj[i].boundStatementBuilder().setLong(0, c.timestamp());
                bindKey(p, 1, r.key());
            } else {
                p = setProj[i].boundStatementBuilder().setLong(0, c.timestamp()).setInt(1, c.ttl()).setBytesUnsafe(2, c.value().duplicate());
                bindKey(p, 3, r.key());
            }
            out.add(p.setConsistencyLevel(cl).setIdempotence(true).build());
        }
        return out;
    }

    BoundStatement statement(TablePlan.IndexWrite write, ConsistencyLevel cl) {
        if (write instanceof TablePlan.Upsert u) {
            BoundStatementBuilder b = upsert.boundStatementBuilder();
            TablePlan.Entry e = u.entry();
            int i = layout.bindUpsert(b, 0, u.key(), e.proj(), e.projKnown(), u.tid());
            b.setLong(i, u.timestamp());
            return b.setConsistencyLevel(cl).setIdempotence(true).build();
        }
        BoundStatementBuilder b;
        int first;
        if (write instanceof TablePlan.Removed r) {
            b = remove.boundStatementBuilder().setLong(0, r.timestamp());
            first = 1;
        } else {
            TablePlan.MarkDeleted m = (TablePlan.MarkDeleted) write;
            b = markDeleted.boundStatementBuilder().setLong(0, m.timestamp()).setBytesUnsafe(1, m.deletedAt().duplicate());
            first = 2;
        }
        int i = first;
        for (ByteBuffer k : write.key()) {
            b.setBytesUnsafe(i++, k.duplicate());
        }
        if (i - first != keySize) {
            throw new IllegalStateException("key size mismatch for " + plan.tableName());
        }
        return b.setConsistencyLevel(cl).setIdempotence(true).build();
    }
}
