package io.cassandragsi.trigger;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.Tids;
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
import io.cassandragsi.tables.BaseTableCql;
import io.cassandragsi.tables.CollectionBytes;
import io.cassandragsi.tables.IndexTableCql;
import io.cassandragsi.tables.RowsTableCql;
import io.cassandragsi.tables.Selected;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.utils.FBUtilities;

/**
 * The repair core's storage (docs/design.md section 6) on Cassandra's internals, for the in-node
 * maintainer: reads through {@link NodeCql} at the read level, writes as mutations through {@code
 * StorageProxy} at the write level ({@link NodeWrites}), never local-only (the index partition may
 * live on another node). Its reads are bounded: it does plain diffs and reconciles only ({@link
 * #recomputes} false), and the repair service the rest. Blocking: the maintainer's threads only.
 */
final class NodeStores implements Stores {
    private final CompiledTable table;
    private final Levels levels;
    private final BaseTableCql base;
    private final RowsTableCql rows;
    private final Map<IndexPlan, IndexTableCql> indexes = new HashMap<>();

    /** The consistency levels of the maintainer's reads, conditional reads and writes. */
    record Levels(ConsistencyLevel read, ConsistencyLevel serial, ConsistencyLevel write) {
        ConsistencyLevel of(ReadLevel level) {
            return level == ReadLevel.SERIAL ? serial : read;
        }
    }

    NodeStores(CompiledTable table, Levels levels) {
        this.table = table;
        this.levels = levels;
        this.base = new BaseTableCql(table.plan.table(), table.plan);
        this.rows = new RowsTableCql(table.plan.table());
        for (IndexPlan p : table.plan.indexes()) {
            indexes.put(p, new IndexTableCql(table.plan.table(), p));
        }
    }

    @Override
    public boolean recomputes() {
        return false;
    }

    private static ByteBuffer[] bind(List<ByteBuffer> key, UUID... tids) {
        ByteBuffer[] out = new ByteBuffer[key.size() + tids.length];
        for (int i = 0; i < key.size(); i++) {
            out[i] = key.get(i).duplicate();
        }
        for (int i = 0; i < tids.length; i++) {
            out[key.size() + i] = Tids.bytes(tids[i]);
        }
        return out;
    }

    @Override
    public VersionReads versions() {
        return new VersionReads() {
            @Override
            public List<Version> neighbourhood(List<ByteBuffer> rowKey, UUID min, UUID max, ReadLevel level) {
                ConsistencyLevel cl = levels.of(level);
                List<Version> out = new ArrayList<>();
                NodeCql.select(base.versionBefore(), cl, bind(rowKey, min)).forEach(r -> out.add(base.version(r)));
                NodeCql.select(base.versionsBetween(), cl, bind(rowKey, min, max)).forEach(r -> out.add(base.version(r)));
                NodeCql.select(base.versionAfter(), cl, bind(rowKey, max)).forEach(r -> out.add(base.version(r)));
                out.sort(Version.ASCENDING);
                return out;
            }

            @Override
            public boolean readsManyNewest() {
                return base.newestIn() != null;
            }

            @Override
            public CompletableFuture<Map<ByteBuffer, List<Version>>> newest(List<ByteBuffer> partitionKeys, int perPartition) {
                List<Selected> found = NodeCql.select(base.newestIn(), levels.read(), CollectionBytes.of(partitionKeys),
                        NodeCql.integer(perPartition), NodeCql.integer(partitionKeys.size() * perPartition));
                Map<ByteBuffer, List<Version>> out = new HashMap<>();
                int pk = base.partitionKeyAttribute();
                for (Selected r : found) {
                    Version v = base.newest(r);
                    out.computeIfAbsent(v.values()[pk], k -> new ArrayList<>(perPartition)).add(v);
                }
                return CompletableFuture.completedFuture(out);
            }

            @Override
            public List<Version> versions(List<ByteBuffer> rowKey, ReadLevel level) {
                throw new UnsupportedOperationException("the in-node maintainer hands recomputes to the repair service");
            }

            @Override
            public List<List<Version>> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
                throw new UnsupportedOperationException("the in-node maintainer hands recomputes to the repair service");
            }

            @Override
            public List<ByteBuffer> rowKey(Version v) {
                return base.rowKey(v);
            }
        };
    }

    @Override
    public CurrentReads current() {
        return new CurrentReads() {
            @Override
            public CurrentRow row(List<ByteBuffer> rowKey, ReadLevel level) {
                List<Selected> found = NodeCql.select(base.currentRow(), levels.of(level), bind(rowKey));
                return found.isEmpty() ? base.absent(rowKey) : base.current(found.get(0));
            }

            @Override
            public List<CurrentRow> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
                throw new UnsupportedOperationException("the in-node maintainer hands partition reconciles to the repair service");
            }

            @Override
            public CurrentRow absent(List<ByteBuffer> rowKey) {
                return base.absent(rowKey);
            }
        };
    }

    @Override
    public RecordReads records() {
        return new RecordReads() {
            @Override
            public CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey) {
                List<Selected> found = NodeCql.select(rows.row(), levels.read(), bind(rowKey));
                return CompletableFuture.completedFuture(found.isEmpty() ? null : rows.row(found.get(0)));
            }

            @Override
            public CompletableFuture<Map<ByteBuffer, RowRecord>> records(List<ByteBuffer> keys) {
                Map<ByteBuffer, RowRecord> out = new HashMap<>();
                for (Selected r : NodeCql.select(rows.rowsIn(), levels.read(), CollectionBytes.of(keys), NodeCql.integer(keys.size()))) {
                    RowRecord record = rows.record(r);
                    if (record != null) {
                        out.put(record.rowKey().get(0), record);
                    }
                }
                return CompletableFuture.completedFuture(out);
            }

            @Override
            public PartitionRecords partition(List<ByteBuffer> partitionKey) {
                throw new UnsupportedOperationException("the in-node maintainer hands partition repairs to the repair service");
            }
        };
    }

    @Override
    public EntryReads entries() {
        return new EntryReads() {
            @Override
            public CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>> entryStates(IndexPlan index, Collection<List<ByteBuffer>> keys) {
                IndexTableCql cql = indexes.get(index);
                Map<List<ByteBuffer>, RowReconcile.EntryState> out = new LinkedHashMap<>();
                for (List<ByteBuffer> key : keys) {
                    List<Selected> found = NodeCql.select(cql.entryState(), levels.read(), bind(key));
                    if (!found.isEmpty()) {
                        out.put(key, cql.entryState(found.get(0)));
                    }
                }
                return CompletableFuture.completedFuture(out);
            }

            @Override
            public CompletableFuture<Set<List<ByteBuffer>>> absent(IndexPlan index, Collection<List<ByteBuffer>> keys) {
                IndexTableCql cql = indexes.get(index);
                Set<List<ByteBuffer>> out = new HashSet<>();
                for (List<ByteBuffer> key : keys) {
                    if (NodeCql.select(cql.exists(), levels.read(), bind(key)).isEmpty()) {
                        out.add(key);
                    }
                }
                return CompletableFuture.completedFuture(out);
            }
        };
    }

    @Override
    public io.cassandragsi.maintain.BucketChanges buckets() {
        // the repair core hands such a group off on this storage (recomputes() is false): docs/design.md section 9.4
        return io.cassandragsi.maintain.BucketChanges.of(change -> {
            throw new IllegalStateException("the in-node maintainer hands changes to ended buckets to the repair service");
        });
    }

    @Override
    public Writes.Now now() {
        return writes -> {
            long nowInSec = FBUtilities.nowInSeconds();
            List<Mutation> mutations = new ArrayList<>(writes.size());
            for (RowsWrite w : writes) {
                mutations.add(RowsMutations.of(table, w, nowInSec));
            }
            NodeWrites.send(mutations, levels.write());
        };
    }
}
