package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.check.EntryScans;
import io.cassandragsi.check.Observed;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.check.ScanStores;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.maintain.RowRecord;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * The jobs' storage (docs/design.md section 9) on the driver: the table classes of this package,
 * whose statements are prepared once per catalog load, at the read level, in pages of {@code
 * pageSize} rows.
 */
final class DriverScans implements ScanStores {
    private final Catalog.Indexed table;
    private final ConsistencyLevel read;
    private final int pageSize;

    DriverScans(Catalog.Indexed table, ConsistencyLevel read, int pageSize) {
        this.table = table;
        this.read = read;
        this.pageSize = pageSize;
    }

    @Override
    public io.cassandragsi.maintain.BucketChanges buckets() {
        return table.bucketChanges(ConsistencyLevel.LOCAL_QUORUM);
    }

    @Override
    public RowScans<RowHistory.Versions> versions() {
        BaseTable base = table.base;
        return new RowScans<>() {
            @Override
            public boolean scan(long start, long end, RowConsumer<RowHistory.Versions> consumer, BooleanSupplier stop)
                    throws InterruptedException {
                return base.scan(start, end, pageSize, read, consumer, stop);
            }

            @Override
            public CompletableFuture<RowHistory.Versions> row(List<ByteBuffer> rowKey) {
                return base.versionsAsync(rowKey, read).thenApply(vs -> new RowHistory.Versions(rowKey, vs));
            }
        };
    }

    @Override
    public RowScans<RowHistory.Current> current() {
        UnversionedRows rows = table.rows;
        return new RowScans<>() {
            @Override
            public boolean scan(long start, long end, RowConsumer<RowHistory.Current> consumer, BooleanSupplier stop)
                    throws InterruptedException {
                return rows.scan(start, end, pageSize, read, consumer, stop);
            }

            @Override
            public CompletableFuture<RowHistory.Current> row(List<ByteBuffer> rowKey) {
                return rows.rowAsync(rowKey, read).thenApply(RowHistory.Current::new);
            }
        };
    }

    @Override
    public EntryScans entries() {
        return new EntryScans() {
            @Override
            public boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop)
                    throws InterruptedException {
                return table.indexTables.get(index).scan(start, end, pageSize, read, consumer, stop);
            }

            @Override
            public CompletableFuture<Observed> entry(IndexPlan index, List<ByteBuffer> key) {
                return table.indexTables.get(index).entryAsync(key, read);
            }
        };
    }

    @Override
    public CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey) {
        return table.records.recordAsync(rowKey, read).toCompletableFuture();
    }
}
