package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.IndexPlan;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The check's bucket storage (docs/design.md section 9.2) on the driver: a table's bucket tables,
 * scanned at the read level in pages of {@code pageSize} rows, and the project keyspace's bucket
 * states, read and written at {@code LOCAL_QUORUM} as the sealer and the repairs do (section 9.4).
 */
final class DriverBuckets implements BucketStores {
    private static final ConsistencyLevel STATES = ConsistencyLevel.LOCAL_QUORUM;
    private final Catalog.Indexed table;
    private final ConsistencyLevel read;
    private final int pageSize;

    DriverBuckets(Catalog.Indexed table, ConsistencyLevel read, int pageSize) {
        this.table = table;
        this.read = read;
        this.pageSize = pageSize;
    }

    @Override
    public Map<String, BucketsTable.State> states(IndexPlan index) {
        return table.buckets().all(table.definition.keyspace(), table.definition.table(), index.index().name(), STATES);
    }

    @Override
    public boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException {
        return table.bucketTables.get(index).scan(start, end, pageSize, read, consumer, stop);
    }

    @Override
    public void changed(IndexPlan index, Collection<String> labels) {
        table.buckets().changed(table.definition.keyspace(), table.definition.table(), index.index().name(), labels, Instant.now(), STATES);
    }
}
