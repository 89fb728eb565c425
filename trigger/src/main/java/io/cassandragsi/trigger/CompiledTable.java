package io.cassandragsi.trigger;

import io.cassandragsi.index.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.marshal.CompositeType;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.NoSpamLogger;
import org.apache.cassandra.utils.TimeUUID;

/**
 * Everything the trigger needs for one base table, compiled once per schema version from the
 * index tables' comments (the definitions travel with Cassandra's schema): the pure
 * {@link TablePlan}, where each attribute comes from in an update, and the metadata of the index
 * and queue tables to build mutations for. This class only translates between Cassandra's types
 * and the plan; the decisions are the plan's.
 */
final class CompiledTable {
    /** Where an attribute's value is found in a base update. */
    private enum Source { PARTITION, CLUSTERING, REGULAR }

    final UUID schemaVersion;
    final KeyspaceMetadata keyspace;
    final TablePlan plan;
    private final Source[] sources;
    private final int[] positions;
    private final ColumnMetadata[] regular;
    private final int partitionColumns;
    private final int tidPosition;
    private final Target[] targets;
    private final Queue queue;

    /** An index table to write: its metadata and the columns an entry fills. */
    private record Target(TableMetadata table, ColumnMetadata[] proj, ColumnMetadata tid, ColumnMetadata deleted) {}

    /** The work-queue table and its settings. */
    private record Queue(TableMetadata table, QueueLayout.Settings settings, ColumnMetadata keyspaceName,
            ColumnMetadata tableName, ColumnMetadata pk, ColumnMetadata ck, ColumnMetadata tidMin,
            ColumnMetadata tidMax, ColumnMetadata flags) {}

    private CompiledTable(UUID schemaVersion, KeyspaceMetadata keyspace, TablePlan plan, TableMetadata base,
            Target[] targets, Queue queue) {
        this.schemaVersion = schemaVersion;
        this.keyspace = keyspace;
        this.plan = plan;
        this.targets = targets;
        this.queue = queue;
        if (plan == null) {
            sources = null;
            positions = null;
            regular = null;
            partitionColumns = 0;
            tidPosition = 0;
            return;
        }
        List<String> names = new ArrayList<>(plan.table().attributes().keySet());
        sources = new Source[names.size()];
        positions = new int[names.size()];
        regular = new ColumnMetadata[names.size()];
        for (int i = 0; i < names.size(); i++) {
            ColumnMetadata c = base.getColumn(ByteBufferUtil.bytes(names.get(i)));
            if (c.isPartitionKey()) {
                sources[i] = Source.PARTITION;
                positions[i] = c.position();
            } else if (c.isClusteringColumn()) {
                sources[i] = Source.CLUSTERING;
                positions[i] = c.position();
            } else {
                sources[i] = Source.REGULAR;
                regular[i] = c;
            }
        }
        partitionColumns = base.partitionKeyColumns().size();
        tidPosition = base.clusteringColumns().size() - 1;
    }

    boolean isCurrent(KeyspaceMetadata current) {
        return keyspace == current && schemaVersion.equals(Schema.instance.getVersion());
    }

    boolean indexes() {
        return plan != null && !plan.indexes().isEmpty();
    }

    /** Compiles the state for {@code base}; never throws for a definition problem (it logs and skips). */
    static CompiledTable compile(TableMetadata base, TriggerMetrics metrics) {
        UUID version = Schema.instance.getVersion();
        KeyspaceMetadata ksm = Schema.instance.getKeyspaceMetadata(base.keyspace);
        if (ksm == null) {
            return new CompiledTable(version, null, null, base, null, null);
        }
        TableDef chosen = null;
        List<Map.Entry<Index, TableMetadata>> found = new ArrayList<>();
        for (TableMetadata t : ksm.tables) {
            CqlGenerator.IndexComment comment;
            try {
                comment = CqlGenerator.parseIndexComment(t.params.comment, base.keyspace + "." + t.name);
            } catch (DefinitionException e) {
                metrics.skippedIndexes.increment();
                IndexTrigger.LOG.error("gsi trigger: ignoring index table {}.{}: {}", base.keyspace, t.name, e.getMessage());
                continue;
            }
            if (comment == null || comment.retired() || !comment.table().equals(base.name)) {
                continue;
            }
            TableDef def = comment.definition();
            String problem = mismatch(def, comment.index(), base, t);
            if (problem != null) {
                metrics.skippedIndexes.increment();
                IndexTrigger.LOG.error("gsi trigger: not maintaining index table {}.{}: {}; run ./gsi schema apply with the current definition",
                        base.keyspace, t.name, problem);
                continue;
            }
            if (chosen == null || def.attributes().size() > chosen.attributes().size()) {
                chosen = def;
            }
            found.add(Map.entry(def.index(comment.index()), t));
        }
        if (chosen == null) {
            return new CompiledTable(version, ksm, null, base, null, findQueue());
        }
        List<Index> indexes = new ArrayList<>();
        List<Target> targets = new ArrayList<>();
        for (Map.Entry<Index, TableMetadata> e : found) {
            Index index = e.getKey();
            boolean fits = true;
            for (Column c : index.keyColumns()) {
                fits &= c.name().equals(Index.CONSTANT_COLUMN) || chosen.type(c.name()) == c.type();
            }
            for (Column c : index.proj()) {
                fits &= chosen.type(c.name()) == c.type();
            }
            if (!fits) {
                metrics.skippedIndexes.increment();
                IndexTrigger.LOG.error("gsi trigger: index table {}.{} was made from an older definition that disagrees with the newest one; run ./gsi schema apply",
                        base.keyspace, e.getValue().name);
                continue;
            }
            // Re-resolve the index against the chosen definition so that attribute positions agree;
            // an index the newest definition lacks is on its way out (schema apply retires it).
            Index resolved = chosen.index(index.name());
            if (resolved == null) {
                continue;
            }
            indexes.add(resolved);
            TableMetadata t = e.getValue();
            ColumnMetadata[] proj = resolved.proj().stream().map(c -> t.getColumn(ByteBufferUtil.bytes(c.name()))).toArray(ColumnMetadata[]::new);
            targets.add(new Target(t, proj,
                    t.getColumn(ByteBufferUtil.bytes(Index.TID_COLUMN)), t.getColumn(ByteBufferUtil.bytes(Index.DELETED_COLUMN))));
        }
        TablePlan plan = TablePlan.of(chosen, indexes);
        return new CompiledTable(version, ksm, plan, base, targets.toArray(new Target[0]), findQueue());
    }

    /** Why an index table cannot be maintained for {@code base}, or null when it can. */
    private static String mismatch(TableDef def, String indexName, TableMetadata base, TableMetadata indexTable) {
        if (!def.versioned()) {
            return "its definition is not versioned";
        }
        List<ColumnMetadata> pk = new ArrayList<>(base.partitionKeyColumns());
        pk.addAll(base.clusteringColumns());
        List<Column> defPk = def.primaryKey();
        if (pk.size() != defPk.size()) {
            return "the base table's primary key differs from the definition's";
        }
        for (int i = 0; i < pk.size(); i++) {
            if (!pk.get(i).name.toString().equals(defPk.get(i).name())) {
                return "the base table's primary key differs from the definition's at " + defPk.get(i).name();
            }
        }
        for (Map.Entry<String, io.cassandragsi.schema.AttrType> a : def.attributes().entrySet()) {
            ColumnMetadata c = base.getColumn(ByteBufferUtil.bytes(a.getKey()));
            if (c == null) {
                return "the base table has no column " + a.getKey();
            }
            String cql = c.type.asCQL3Type().toString();
            if (!cql.equals(a.getValue().cql())) {
                return "column " + a.getKey() + " is " + cql + " in the base table but " + a.getValue().jsonName() + " in the definition";
            }
            if (c.type.isCounter() || c.isStatic()) {
                return "column " + a.getKey() + " is a counter or static column";
            }
        }
        Index index = def.index(indexName);
        List<Column> needed = new ArrayList<>(index.proj());
        if (!index.perVersion()) {
            needed.add(Column.of(Index.TID_COLUMN, io.cassandragsi.schema.AttrType.TIMEUUID));
            needed.add(Column.of(Index.DELETED_COLUMN, io.cassandragsi.schema.AttrType.TIMEUUID));
        }
        for (Column c : needed) {
            if (indexTable.getColumn(ByteBufferUtil.bytes(c.name())) == null) {
                return "the index table has no column " + c.name();
            }
        }
        return null;
    }

    /** The queue table: in the default project keyspace, else the first keyspace that has ours. */
    private static Queue findQueue() {
        TableMetadata t = Schema.instance.getTableMetadata(QueueLayout.DEFAULT_KEYSPACE, QueueLayout.TABLE);
        if (t == null || !t.params.comment.startsWith("{\"gsi_queue\"")) {
            t = null;
            for (String ks : Schema.instance.getKeyspaces()) {
                TableMetadata candidate = Schema.instance.getTableMetadata(ks, QueueLayout.TABLE);
                if (candidate != null && candidate.params.comment.startsWith("{\"gsi_queue\"")) {
                    t = candidate;
                    break;
                }
            }
        }
        if (t == null) {
            return null;
        }
        QueueLayout.Settings settings = QueueLayout.Settings.parseComment(t.params.comment);
        return new Queue(t, settings, col(t, QueueLayout.C_KEYSPACE), col(t, QueueLayout.C_TABLE), col(t, QueueLayout.C_PK),
                col(t, QueueLayout.C_CK), col(t, QueueLayout.C_TID_MIN), col(t, QueueLayout.C_TID_MAX), col(t, QueueLayout.C_FLAGS));
    }

    private static ColumnMetadata col(TableMetadata t, String name) {
        ColumnMetadata c = t.getColumn(ByteBufferUtil.bytes(name));
        if (c == null) {
            throw new IllegalStateException("queue table " + t + " lacks column " + name);
        }
        return c;
    }

    boolean hasQueue() {
        return queue != null;
    }

    /** The values of one row of a base update, as the plan sees them. */
    final class UpdateRow implements VersionRow {
        final ByteBuffer[] values = new ByteBuffer[sources.length];
        final boolean[] present = new boolean[sources.length];
        boolean expiring;

        UpdateRow(ByteBuffer[] partitionValues, Row row) {
            Clustering<?> clustering = row.clustering();
            for (int i = 0; i < sources.length; i++) {
                switch (sources[i]) {
                    case PARTITION -> {
                        values[i] = partitionValues[positions[i]];
                        present[i] = true;
                    }
                    case CLUSTERING -> {
                        values[i] = clustering.bufferAt(positions[i]);
                        present[i] = true;
                    }
                    default -> {
                        Cell<?> cell = row.getCell(regular[i]);
                        if (cell != null) {
                            present[i] = true;
                            values[i] = cell.isTombstone() ? null : cell.buffer();
                            expiring |= cell.isExpiring();
                        }
                    }
                }
            }
            expiring |= row.primaryKeyLivenessInfo().isExpiring();
        }

        @Override
        public boolean has(int attribute) {
            return present[attribute];
        }

        @Override
        public ByteBuffer get(int attribute) {
            return values[attribute];
        }

        ByteBuffer tid() {
            return values[plan.tidAttribute()];
        }
    }

    ByteBuffer[] partitionValues(ByteBuffer key, TableMetadata base) {
        if (partitionColumns == 1) {
            return new ByteBuffer[] {key};
        }
        return ((CompositeType) base.partitionKeyType).split(key);
    }

    /** Clustering values before the tid: with the partition key they name the versioned row. */
    List<ByteBuffer> prefix(Row row) {
        if (tidPosition == 0) {
            return List.of();
        }
        List<ByteBuffer> prefix = new ArrayList<>(tidPosition);
        for (int i = 0; i < tidPosition; i++) {
            prefix.add(row.clustering().bufferAt(i));
        }
        return prefix;
    }

    /** One index entry as a mutation: every cell at TS(tid), {@code _deleted} cleared. */
    Mutation entryMutation(int indexPosition, TablePlan.Entry entry, ByteBuffer tid, long ts, long nowInSec) {
        Target target = targets[indexPosition];
        IndexPlan index = entry.index();
        List<ByteBuffer> key = entry.key();
        int ps = index.partitionSize();
        ByteBuffer partitionKey = ps == 1 ? key.get(0) : Composite.encode(key.subList(0, ps));
        ByteBuffer[] clustering = new ByteBuffer[key.size() - ps];
        for (int i = 0; i < clustering.length; i++) {
            clustering[i] = key.get(ps + i);
        }
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clustering.length == 0 ? Clustering.EMPTY : Clustering.make(clustering));
        builder.addPrimaryKeyLivenessInfo(LivenessInfo.create(ts, nowInSec));
        ByteBuffer[] proj = entry.proj();
        boolean[] known = entry.projKnown();
        for (int i = 0; i < proj.length; i++) {
            if (known[i]) {
                builder.addCell(proj[i] == null
                        ? BufferCell.tombstone(target.proj()[i], ts, nowInSec)
                        : BufferCell.live(target.proj()[i], ts, proj[i]));
            }
        }
        if (!index.perVersion()) {
            builder.addCell(BufferCell.live(target.tid(), ts, tid));
            builder.addCell(BufferCell.tombstone(target.deleted(), ts, nowInSec));
        }
        return new Mutation(PartitionUpdate.singleRowUpdate(target.table(), partitionKey, builder.build()));
    }

    /** A work-queue marker for one versioned row (or the whole partition when prefix is empty and tids null). */
    Mutation marker(String keyspace, String table, ByteBuffer partitionKey, List<ByteBuffer> prefix,
            ByteBuffer tidMin, ByteBuffer tidMax, int flags, long nowInSec) {
        QueueLayout.Settings s = queue.settings();
        int shard = QueueLayout.shardOf(keyspace, table, partitionKey, s.shards());
        long nowMicros = org.apache.cassandra.utils.FBUtilities.timestampMicros();
        long bucket = s.bucketOf(nowMicros / 1000);
        ByteBuffer queueKey = Composite.encode(List.of(ByteBufferUtil.bytes(shard), ByteBufferUtil.bytes(bucket)));
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(Clustering.make(ByteBuffer.wrap(TimeUUID.Generator.nextTimeUUIDAsBytes())));
        int ttl = s.ttlSeconds();
        builder.addPrimaryKeyLivenessInfo(LivenessInfo.expiring(nowMicros, ttl, nowInSec));
        builder.addCell(BufferCell.expiring(queue.keyspaceName(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(keyspace)));
        builder.addCell(BufferCell.expiring(queue.tableName(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(table)));
        builder.addCell(BufferCell.expiring(queue.pk(), nowMicros, ttl, nowInSec, partitionKey));
        builder.addCell(BufferCell.expiring(queue.ck(), nowMicros, ttl, nowInSec, Composite.encode(prefix)));
        if (tidMin != null) {
            builder.addCell(BufferCell.expiring(queue.tidMin(), nowMicros, ttl, nowInSec, tidMin));
            builder.addCell(BufferCell.expiring(queue.tidMax(), nowMicros, ttl, nowInSec, tidMax));
        }
        builder.addCell(BufferCell.expiring(queue.flags(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(flags)));
        return new Mutation(PartitionUpdate.singleRowUpdate(queue.table(), queueKey, builder.build()));
    }

    static long ts(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    static void logRateLimited(String message, Object... args) {
        NoSpamLogger.log(IndexTrigger.LOG, NoSpamLogger.Level.ERROR, 1, TimeUnit.MINUTES, message, args);
    }
}
