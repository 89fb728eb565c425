package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverExecutionProfile;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.schema.BucketLayout;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.Order;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The select of a window read over several buckets of one index (docs/design.md section 8.2): the
 * bucket partitions of the window's labels ({@code "_bucket" IN ?}) merged by Cassandra in
 * clustering order ({@code ORDER BY}), {@code PER PARTITION LIMIT ?}, unpaged (Cassandra orders
 * an {@code IN} only unpaged). It returns a bucket select's columns, then {@code _bucket}.
 *
 * <p>A fetch after the first resumes behind the clustering key K of the last complete row with
 * one multi-column slice, {@code (c1, ..., cm) > K} ({@code <} when the clustering order is
 * descending); Cassandra allows no single-column restriction on clustering columns beside it, so
 * the read's fixed range values and its bound on the far side are a second slice from the same
 * first column. Tuple slices compare values in their natural order, so only an index whose
 * clustering columns share one order can be merged ({@link #order}).
 */
public final class MergedSelect {
    private record Key(IndexTable.Shape shape, boolean resumed) {}

    private final CqlSession session;
    private final IndexPlan plan;
    private final String select;
    private final DriverExecutionProfile unpaged;
    private final Map<Key, CompletableFuture<PreparedStatement>> prepared = new ConcurrentHashMap<>();

    MergedSelect(CqlSession session, IndexPlan plan, String table, List<String> columns) {
        this.session = session;
        this.plan = plan;
        this.select = "SELECT " + String.join(", ", columns) + ", " + Cql.quote(BucketLayout.LABEL_COLUMN) + " FROM " + table;
        // page size 0: the driver sends no page size, and Cassandra answers in one page
        this.unpaged = session.getContext().getConfig().getDefaultProfile().withInt(DefaultDriverOption.REQUEST_PAGE_SIZE, 0);
    }

    /** The one order of the index's clustering columns, or null when they have none or mix orders: such an index is not merged. */
    public static Order order(Index index) {
        List<Column> clustering = index.clusteringColumns();
        if (clustering.isEmpty()) {
            return null;
        }
        Order order = clustering.get(0).order();
        return clustering.stream().allMatch(c -> c.order() == order) ? order : null;
    }

    /**
     * The select bound: {@code labels}, the partition key and restrictions of {@code shape}
     * ({@code fixed}: hash values then fixed range values; {@code lower}, {@code upper}: the
     * bounds on the next range attribute), behind clustering key {@code resume} when not null, at
     * most {@code perPartition} entries of each bucket.
     */
    public CompletableFuture<BoundStatementBuilder> bind(IndexTable.Shape shape, List<String> labels, List<ByteBuffer> fixed, ByteBuffer lower,
            ByteBuffer upper, List<ByteBuffer> resume, int perPartition) {
        Key key = new Key(shape, resume != null);
        CompletableFuture<PreparedStatement> ps = prepared.computeIfAbsent(key, this::prepare);
        if (ps.isCompletedExceptionally()) {
            prepared.remove(key, ps);
        }
        return ps.thenApply(p -> {
            BoundStatementBuilder b = p.boundStatementBuilder().setList(0, labels, String.class);
            if (resume == null) {
                IndexTable.bind(b, 1, plan, fixed, lower, upper);
            } else {
                int i = 1;
                if (plan.index().hasConstantPartition()) {
                    b.setBytesUnsafe(i++, plan.constantPartition());
                }
                int hashValues = fixed.size() - shape.fixedRanges();
                for (ByteBuffer v : fixed.subList(0, hashValues)) {
                    b.setBytesUnsafe(i++, v);
                }
                for (ByteBuffer v : resume) {
                    b.setBytesUnsafe(i++, v.duplicate());
                }
                if (farBound(shape) != null || shape.fixedRanges() > 0) {
                    for (ByteBuffer v : fixed.subList(hashValues, fixed.size())) {
                        b.setBytesUnsafe(i++, v);
                    }
                    ByteBuffer far = order(plan.index()) == Order.DESC ? lower : upper;
                    if (farBound(shape) != null) {
                        b.setBytesUnsafe(i++, far);
                    }
                }
            }
            return b.setInt(p.getVariableDefinitions().size() - 1, perPartition).setExecutionProfile(unpaged);
        });
    }

    /** The operator of the read's bound on the side it reads towards (the upper one ascending), or null. */
    private String farBound(IndexTable.Shape shape) {
        return order(plan.index()) == Order.DESC ? shape.lowerOp() : shape.upperOp();
    }

    private CompletableFuture<PreparedStatement> prepare(Key key) {
        Index index = plan.index();
        Order order = order(index);
        if (order == null) {
            throw new IllegalStateException("index " + index.name() + " cannot be merged: its clustering columns mix orders or there are none");
        }
        List<String> where = new ArrayList<>();
        where.add(Cql.quote(BucketLayout.LABEL_COLUMN) + " IN ?");
        if (!key.resumed()) {
            where.addAll(IndexTable.where(index, key.shape()));
        } else {
            index.partitionColumns().forEach(c -> where.add(c.cqlName() + " = ?"));
            List<Column> clustering = index.clusteringColumns();
            where.add(tuple(clustering, clustering.size()) + (order == Order.DESC ? " < " : " > ") + markers(clustering.size()));
            int j = key.shape().fixedRanges();
            String far = farBound(key.shape());
            if (far != null) {
                where.add(tuple(clustering, j + 1) + " " + far + " " + markers(j + 1));
            } else if (j > 0) {
                where.add(tuple(clustering, j) + (order == Order.DESC ? " >= " : " <= ") + markers(j));
            }
        }
        String orderBy = index.clusteringColumns().stream().map(c -> c.cqlName() + " " + order.cql()).collect(Collectors.joining(", "));
        return session.prepareAsync(select + " WHERE " + String.join(" AND ", where) + " ORDER BY " + orderBy + " PER PARTITION LIMIT ?")
                .toCompletableFuture();
    }

    private static String tuple(List<Column> columns, int n) {
        return "(" + columns.subList(0, n).stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
    }

    private static String markers(int n) {
        return "(" + String.join(", ", java.util.Collections.nCopies(n, "?")) + ")";
    }
}
