package io.cassandragsi.trigger;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.DefinitionResolver;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.cassandra.db.marshal.CompositeType;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.NoSpamLogger;

/**
 * Everything the node needs for one base table, compiled once per schema version from the index
 * tables' comments (the definitions travel with Cassandra's schema; docs/design.md section 3): the
 * pure {@link TablePlan}, where each attribute comes from in an update, and the metadata of the
 * index, rows, queue and progress tables to build mutations for. Only translates between
 * Cassandra's types and the plan; the decisions are the plan's.
 */
final class CompiledTable {
    /** Where an attribute's value is found in a base update. */
    enum Source { PARTITION, CLUSTERING, REGULAR }

    final UUID schemaVersion;
    final KeyspaceMetadata keyspace;
    final TablePlan plan;
    final TableMetadata base;
    /** Per index (in the plan's order): its table and the columns an entry fills. */
    final Target[] targets;
    /** The rows table (entry keys each row has had; docs/design.md section 3). */
    final Rows rows;
    /** The work queue, or null when there is none (run schema apply). */
    final Queue queue;
    /** The in-node maintainers' progress table, or null. */
    final TableMetadata progress;
    // where each attribute comes from in an update (UpdateRow)
    final Source[] sources;
    final int[] positions;
    final ColumnMetadata[] regular;
    /** Per attribute: some index keys on it or projects it. */
    final boolean[] indexed;
    /** The attributes that an index keeping one entry per row projects (the trigger asks per partial write). */
    final int[] projectedPerRow;
    private final int partitionColumns;
    private final int tidPosition;

    /** An index table to write: its metadata and the columns an entry fills. */
    record Target(TableMetadata table, ColumnMetadata[] proj, ColumnMetadata tid, ColumnMetadata deleted) {}

    /**
     * The rows table ({@link RowsLayout}); {@code versionKeys}, {@code newestHi}/{@code newestLo} and {@code partitionWritten} null
     * where the layout has none; {@code writeId} null too where the table predates it ({@code schema apply} adds it).
     */
    record Rows(TableMetadata table, ColumnMetadata keys, ColumnMetadata written, ColumnMetadata partitionWritten,
            ColumnMetadata versionKeys, ColumnMetadata newestHi, ColumnMetadata newestLo, ColumnMetadata writeId) {}

    /** The work-queue table and its settings. */
    record Queue(TableMetadata table, QueueLayout.Settings settings, ColumnMetadata keyspaceName, ColumnMetadata tableName, ColumnMetadata pk,
            ColumnMetadata ck, ColumnMetadata tidMin, ColumnMetadata tidMax, ColumnMetadata flags) {}

    private CompiledTable(UUID schemaVersion, KeyspaceMetadata keyspace, TablePlan plan, TableMetadata base, Target[] targets, Rows rows,
            Queue queue) {
        this.schemaVersion = schemaVersion;
        this.keyspace = keyspace;
        this.plan = plan;
        this.base = base;
        this.targets = targets;
        this.rows = rows;
        this.queue = queue;
        this.progress = queue == null ? null : Schema.instance.getTableMetadata(queue.table().keyspace, NodeProgressLayout.TABLE);
        int attributes = plan == null ? 0 : plan.table().attributes().size();
        this.sources = new Source[attributes];
        this.positions = new int[attributes];
        this.regular = new ColumnMetadata[attributes];
        this.indexed = new boolean[attributes];
        if (plan == null) {
            this.projectedPerRow = new int[0];
            this.partitionColumns = 0;
            this.tidPosition = 0;
            return;
        }
        SortedSet<Integer> perRow = new TreeSet<>();
        for (IndexPlan p : plan.indexes()) {
            for (int a : p.keyAttributes()) {
                if (a >= 0) {
                    indexed[a] = true;
                }
            }
            for (int a : p.projAttributes()) {
                indexed[a] = true;
                if (!p.perVersion()) {
                    perRow.add(a);
                }
            }
        }
        this.projectedPerRow = perRow.stream().mapToInt(Integer::intValue).toArray();
        List<String> names = new ArrayList<>(plan.table().attributes().keySet());
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
        this.partitionColumns = base.partitionKeyColumns().size();
        this.tidPosition = plan.versioned() ? base.clusteringColumns().size() - 1 : base.clusteringColumns().size();
    }

    boolean isCurrent(KeyspaceMetadata current) {
        return keyspace == current && schemaVersion.equals(Schema.instance.getVersion());
    }

    /** True when some index of the table is maintained. */
    boolean indexes() {
        return plan != null && !plan.indexes().isEmpty();
    }

    /** True when the table's plain diffs run on this node (docs/design.md section 2, {@code "maintenance": "node"}) and the node can record its progress. */
    boolean maintainedHere() {
        return plan.table().maintenance() == Maintenance.NODE && progress != null && queue != null;
    }

    /**
     * True when the table's entries follow the write instead of riding in its batch (docs/design.md
     * section 7.11, {@code "indexing": "eventual"}): the trigger hands them to this node's maintainer.
     */
    boolean eventual() {
        return plan.table().indexing() == Indexing.EVENTUAL && maintainedHere();
    }

    String keyspaceName() {
        return base.keyspace;
    }

    String name() {
        return base.name;
    }

    ByteBuffer[] partitionValues(ByteBuffer key) {
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

    /** Compiles the state for {@code base}; never throws for a definition problem (it logs and skips). */
    static CompiledTable compile(TableMetadata base, TriggerMetrics metrics) {
        UUID version = Schema.instance.getVersion();
        KeyspaceMetadata ksm = Schema.instance.getKeyspaceMetadata(base.keyspace);
        if (ksm == null) {
            return new CompiledTable(version, null, null, base, null, null, null);
        }
        List<DefinitionResolver.Found> found = new ArrayList<>();
        for (TableMetadata t : ksm.tables) {
            CqlGenerator.IndexComment comment;
            try {
                comment = CqlGenerator.parseIndexComment(t.params.comment, base.keyspace + "." + t.name);
            } catch (DefinitionException e) {
                metrics.skippedIndexes.increment();
                IndexTrigger.LOG.error("gsi trigger: ignoring index table {}.{}: {}", base.keyspace, t.name, e.getMessage());
                continue;
            }
            if (comment != null && comment.table().equals(base.name)) {
                found.add(new DefinitionResolver.Found(t.name, comment));
            }
        }
        DefinitionResolver.LiveTable live = live(base);
        DefinitionResolver.Resolution resolution = DefinitionResolver.resolve(found, (name, comment) -> {
            TableMetadata t = ksm.tables.getNullable(name);
            return DefinitionResolver.misfit(comment.definition(), comment.index(), live, c -> t.getColumn(ByteBufferUtil.bytes(c)) != null);
        });
        for (DefinitionResolver.Skipped s : resolution.skipped()) {
            switch (s.reason()) {
                case MISFIT, OUTDATED -> {
                    metrics.skippedIndexes.increment();
                    IndexTrigger.LOG.error("gsi trigger: not maintaining index table {}.{}: {}; run ./gsi schema apply with the current definition",
                            base.keyspace, s.indexTable(), s.problem());
                }
                case LAYOUT -> {
                    metrics.layoutMismatches.increment();
                    IndexTrigger.LOG.error("gsi trigger: not maintaining index table {}.{}: {}", base.keyspace, s.indexTable(), s.problem());
                }
                case DROPPED -> {} // on its way out: schema apply retires it
            }
        }
        TableDef chosen = resolution.definition();
        if (chosen == null) {
            return new CompiledTable(version, ksm, null, base, null, null, findQueue());
        }
        Rows rows = rows(ksm, chosen);
        if (rows == null) {
            metrics.layoutMismatches.add(resolution.indexes().size());
            IndexTrigger.LOG.error("gsi trigger: not maintaining the indexes of {}.{}: its rows table {} is missing or lacks columns of layout {};"
                    + " run ./gsi schema apply", base.keyspace, base.name, RowsLayout.tableName(base.name), CqlGenerator.LAYOUT);
            return new CompiledTable(version, ksm, null, base, null, null, findQueue());
        }
        List<Target> targets = new ArrayList<>();
        for (DefinitionResolver.Maintained m : resolution.maintained()) {
            TableMetadata t = ksm.tables.getNullable(m.indexTable());
            ColumnMetadata[] proj = m.index().proj().stream().map(c -> t.getColumn(ByteBufferUtil.bytes(c.name()))).toArray(ColumnMetadata[]::new);
            targets.add(new Target(t, proj, t.getColumn(ByteBufferUtil.bytes(Index.TID_COLUMN)), t.getColumn(ByteBufferUtil.bytes(Index.DELETED_COLUMN))));
        }
        return new CompiledTable(version, ksm, TablePlan.of(chosen, resolution.indexes()), base, targets.toArray(new Target[0]), rows, findQueue());
    }

    /** The rows table of layout {@link CqlGenerator#LAYOUT}, or null when it is missing or lacks a column that layout has. */
    private static Rows rows(KeyspaceMetadata ksm, TableDef def) {
        TableMetadata r = ksm.tables.getNullable(RowsLayout.tableName(def.table()));
        if (r == null) {
            return null;
        }
        ColumnMetadata keys = r.getColumn(ByteBufferUtil.bytes(RowsLayout.KEYS));
        ColumnMetadata written = r.getColumn(ByteBufferUtil.bytes(RowsLayout.WRITTEN));
        ColumnMetadata partitionWritten = r.getColumn(ByteBufferUtil.bytes(RowsLayout.PARTITION_WRITTEN));
        ColumnMetadata versionKeys = r.getColumn(ByteBufferUtil.bytes(RowsLayout.VERSION_KEYS));
        ColumnMetadata hi = r.getColumn(ByteBufferUtil.bytes(RowsLayout.NEWEST_HI));
        ColumnMetadata lo = r.getColumn(ByteBufferUtil.bytes(RowsLayout.NEWEST_LO));
        boolean complete = keys != null && written != null && (def.clusteringPrefix().isEmpty() || partitionWritten != null)
                && (!RowsLayout.hasVersionKeys(def) || versionKeys != null) && (!RowsLayout.hasNewestWrites(def) || (hi != null && lo != null));
        // optional: a table made before it is written without it (a write tied with another then reads as its own, as before)
        ColumnMetadata writeId = RowsLayout.hasWriteId(def) ? r.getColumn(ByteBufferUtil.bytes(RowsLayout.WRITE_ID)) : null;
        return complete ? new Rows(r, keys, written, partitionWritten, versionKeys, hi, lo, writeId) : null;
    }

    /** The live base table as {@link DefinitionResolver#misfit} checks it. */
    private static DefinitionResolver.LiveTable live(TableMetadata base) {
        List<String> pk = new ArrayList<>();
        base.partitionKeyColumns().forEach(c -> pk.add(c.name.toString()));
        base.clusteringColumns().forEach(c -> pk.add(c.name.toString()));
        Map<String, DefinitionResolver.LiveColumn> columns = new HashMap<>();
        for (ColumnMetadata c : base.columns()) {
            columns.put(c.name.toString(), new DefinitionResolver.LiveColumn(c.type.asCQL3Type().toString(), c.type.isCounter() || c.isStatic()));
        }
        return new DefinitionResolver.LiveTable(pk, columns);
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

    /** True when the write carries (a value or a null for) an attribute that an index keeping one entry per row projects. */
    boolean carriesProjection(UpdateRow values) {
        for (int a : projectedPerRow) {
            if (values.has(a)) {
                return true;
            }
        }
        return false;
    }

    /** A key for a log line, at most 200 characters. */
    static String describe(String key) {
        return key.length() <= 200 ? key : key.substring(0, 200) + "...(" + key.length() + " characters)";
    }

    static void logRateLimited(String message, Object... args) {
        NoSpamLogger.log(IndexTrigger.LOG, NoSpamLogger.Level.ERROR, 1, TimeUnit.MINUTES, message, args);
    }
}
