package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.maintain.CurrentReads;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.EntryReads;
import io.cassandragsi.maintain.PartitionRecords;
import io.cassandragsi.maintain.ReadLevel;
import io.cassandragsi.maintain.RecordReads;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.maintain.Stores;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.maintain.VersionReads;
import io.cassandragsi.maintain.Writes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The repair core's storage (docs/design.md section 6) on the DataStax driver: the table classes
 * of this package at the service's consistency levels. The in-node maintainer has its own adapter
 * on Cassandra's internals; the decisions above both are the same code.
 */
final class DriverStores implements Stores {
    private final CqlSession session;
    private final Catalog.Indexed table;
    private final Levels levels;

    DriverStores(CqlSession session, Catalog.Indexed table, Levels levels) {
        this.session = session;
        this.table = table;
        this.levels = levels;
    }

    private static ConsistencyLevel of(Levels levels, ReadLevel level) {
        return level == ReadLevel.SERIAL ? levels.serial() : levels.read();
    }

    @Override
    public VersionReads versions() {
        BaseTable base = table.base;
        return new VersionReads() {
            @Override
            public List<Version> neighbourhood(List<ByteBuffer> rowKey, UUID min, UUID max, ReadLevel level) {
                return base.neighbourhood(rowKey, min, max, of(levels, level));
            }

            @Override
            public boolean readsManyNewest() {
                return base.readsManyNewest();
            }

            @Override
            public CompletableFuture<Map<ByteBuffer, List<Version>>> newest(List<ByteBuffer> partitionKeys, int perPartition) {
                return base.newestAsync(partitionKeys, perPartition, levels.read());
            }

            @Override
            public List<Version> versions(List<ByteBuffer> rowKey, ReadLevel level) {
                return base.versionsAsync(rowKey, of(levels, level)).join();
            }

            @Override
            public List<List<Version>> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
                return base.partition(partitionKey, of(levels, level));
            }

            @Override
            public List<ByteBuffer> rowKey(Version v) {
                return base.rowKey(v);
            }
        };
    }

    @Override
    public CurrentReads current() {
        UnversionedRows rows = table.rows;
        return new CurrentReads() {
            @Override
            public CurrentRow row(List<ByteBuffer> rowKey, ReadLevel level) {
                return rows.row(rowKey, of(levels, level));
            }

            @Override
            public List<CurrentRow> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
                return rows.partition(partitionKey, of(levels, level));
            }

            @Override
            public CurrentRow absent(List<ByteBuffer> rowKey) {
                return rows.absent(rowKey);
            }
        };
    }

    @Override
    public RecordReads records() {
        RowsTable records = table.records;
        return new RecordReads() {
            @Override
            public CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey) {
                return records.recordAsync(rowKey, levels.read()).toCompletableFuture();
            }

            @Override
            public CompletableFuture<Map<ByteBuffer, RowRecord>> records(List<ByteBuffer> keys) {
                return records.recordsAsync(keys, levels.read()).toCompletableFuture();
            }

            @Override
            public PartitionRecords partition(List<ByteBuffer> partitionKey) {
                return records.records(partitionKey, levels.read());
            }
        };
    }

    @Override
    public EntryReads entries() {
        return new EntryReads() {
            @Override
            public CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>> entryStates(IndexPlan index, Collection<List<ByteBuffer>> keys) {
                return table.indexTables.get(index).entryStatesAsync(keys, levels.read());
            }

            @Override
            public CompletableFuture<Set<List<ByteBuffer>>> absent(IndexPlan index, Collection<List<ByteBuffer>> keys) {
                return table.indexTables.get(index).absentAsync(keys, levels.read());
            }
        };
    }

    @Override
    public io.cassandragsi.maintain.BucketChanges buckets() {
        return table.bucketChanges(levels.write());
    }

    @Override
    public Writes.Now now() {
        return rows -> {
            List<CompletableFuture<?>> sent = new ArrayList<>();
            for (Statement<?> s : statements(rows)) {
                sent.add(session.executeAsync(s).toCompletableFuture());
            }
            sent.forEach(CompletableFuture::join);
        };
    }

    private List<Statement<?>> statements(List<RowsWrite> rows) {
        return table.rowsStatements(rows, levels.write());
    }
}
