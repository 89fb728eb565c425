package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.repair.store.BaseTable;
import io.cassandragsi.repair.store.BaseVersions;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.Catalog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * {@link ReadStores} on the driver, for one index of one table, at the reader's consistency level:
 * the index table's select paged by the driver ({@code store.IndexTable}), the buckets' merged
 * select ({@code store.MergedSelect}), the bucket states ({@code store.BucketsTable}, side by
 * side) and the base checks ({@code store.BaseTable.Checks}). Every call is asynchronous.
 */
final class DriverReadStores implements ReadStores {
    private final CqlSession session;
    private final ConsistencyLevel cl;
    private final Catalog.Indexed table;
    private final IndexPlan plan;

    DriverReadStores(CqlSession session, ConsistencyLevel cl, Catalog.Indexed table, IndexPlan plan) {
        this.session = session;
        this.cl = cl;
        this.table = table;
        this.plan = plan;
    }

    @Override
    public CompletableFuture<IndexPage> indexPage(Select s, byte[] pagingState, int size) {
        return table.indexTables.get(plan).selectBound(s.shape(), s.fixed(), s.lower(), s.upper())
                .thenCompose(b -> session.executeAsync(b.setConsistencyLevel(cl).setPagingState(pagingState == null ? null : ByteBuffer.wrap(pagingState))
                        .setPageSize(size).build()).toCompletableFuture())
                .thenApply(rs -> {
                    ByteBuffer next = rs.getExecutionInfo().getPagingState();
                    return new IndexPage(rows(rs), next == null ? null : bytes(next));
                });
    }

    @Override
    public CompletableFuture<List<IndexRow>> buckets(Select s, List<String> labels, List<ByteBuffer> behind, int perPartition) {
        return table.bucketTables.get(plan).merged().bind(s.shape(), labels, s.fixed(), s.lower(), s.upper(), behind, perPartition)
                .thenCompose(b -> session.executeAsync(b.setConsistencyLevel(cl).build()).toCompletableFuture())
                .thenApply(DriverReadStores::rows);
    }

    @Override
    public CompletableFuture<Map<String, BucketsTable.State>> bucketStates(List<String> labels) {
        String ks = table.definition.keyspace();
        Map<String, CompletableFuture<BucketsTable.State>> states = new LinkedHashMap<>();
        for (String label : labels) {
            try {
                states.put(label, table.buckets().state(ks, table.definition.table(), plan.index().name(), label, cl));
            } catch (RuntimeException e) {
                states.put(label, CompletableFuture.failedFuture(e));
            }
        }
        return CompletableFuture.allOf(states.values().toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            Map<String, BucketsTable.State> out = new HashMap<>();
            states.forEach((label, state) -> out.put(label, state.join()));
            return out;
        });
    }

    @Override
    public boolean hasBuckets() {
        return table.bucketTables.get(plan) != null && table.knowsBuckets();
    }

    @Override
    public BaseVersions base() {
        BaseTable.Checks checks = table.checks.get(plan);
        return new BaseVersions() {
            @Override
            public CompletableFuture<Version> currentAt(List<ByteBuffer> rowKey, UUID q) {
                return checks.currentAtAsync(rowKey, q, cl);
            }

            @Override
            public boolean readsManyCurrent() {
                return checks.readsManyCurrent();
            }

            @Override
            public CompletableFuture<List<Version>> currentAtAll(List<List<ByteBuffer>> rowKeys, UUID q) {
                return checks.currentAtAllAsync(rowKeys, q, cl);
            }

            @Override
            public CompletableFuture<List<Version>> window(List<ByteBuffer> rowKey, UUID from, UUID upTo) {
                return checks.windowAsync(rowKey, from, upTo, cl);
            }

            @Override
            public CompletableFuture<Version> version(List<ByteBuffer> rowKey, UUID tid) {
                return checks.versionAsync(rowKey, tid, cl);
            }
        };
    }

    /** The rows of the current page, each with every column selected. */
    private static List<IndexRow> rows(AsyncResultSet rs) {
        List<IndexRow> rows = new ArrayList<>(rs.remaining());
        for (Row r : rs.currentPage()) {
            ByteBuffer[] columns = new ByteBuffer[r.getColumnDefinitions().size()];
            for (int i = 0; i < columns.length; i++) {
                columns[i] = r.getBytesUnsafe(i);
            }
            rows.add(new IndexRow(columns));
        }
        return rows;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
