package io.cassandragsi.trigger;

import io.cassandragsi.schema.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.DefinitionResolver;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.cassandra.db.rows.CellPath;
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
    /** The attributes that an index keeping one entry per row projects, computed once (the trigger asks per partial write). */
    private final int[] projectedPerRow;
    private final Source[] sources;
    private final int[] positions;
    private final ColumnMetadata[] regular;
    private final int partitionColumns;
    private final int tidPosition;
    /** Per attribute: some index keys on it or projects it. */
    private final boolean[] indexed;
    private final Target[] targets;
    private final Queue queue;
    /** Unversioned tables: the rows table (entry keys each row has had, newest write seen); else null. */
    private final Rows rows;
    private final TableMetadata base;

    /** An index table to write: its metadata and the columns an entry fills. */
    private record Target(TableMetadata table, ColumnMetadata[] proj, ColumnMetadata tid, ColumnMetadata deleted) {}

    /** The rows table of an unversioned table ({@link RowsLayout}). */
    private record Rows(TableMetadata table, ColumnMetadata keys, ColumnMetadata written, ColumnMetadata partitionWritten,
            ColumnMetadata versionKeys, ColumnMetadata newestHi, ColumnMetadata newestLo) {}

    /** The work-queue table and its settings. */
    private record Queue(TableMetadata table, QueueLayout.Settings settings, ColumnMetadata keyspaceName,
            ColumnMetadata tableName, ColumnMetadata pk, ColumnMetadata ck, ColumnMetadata tidMin,
            ColumnMetadata tidMax, ColumnMetadata flags) {}

    private CompiledTable(UUID schemaVersion, KeyspaceMetadata keyspace, TablePlan plan, TableMetadata base,
            Target[] targets, Queue queue, Rows rows) {
        this.base = base;
        this.schemaVersion = schemaVersion;
        this.keyspace = keyspace;
        this.plan = plan;
        this.targets = targets;
        this.queue = queue;
        this.rows = rows;
        if (plan == null) {
            sources = null;
            positions = null;
            regular = null;
            partitionColumns = 0;
            tidPosition = 0;
            indexed = null;
            projectedPerRow = null;
            return;
        }
        indexed = new boolean[plan.table().attributes().size()];
        java.util.SortedSet<Integer> perRow = new java.util.TreeSet<>();
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
        projectedPerRow = perRow.stream().mapToInt(Integer::intValue).toArray();
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
        tidPosition = plan.versioned() ? base.clusteringColumns().size() - 1 : base.clusteringColumns().size();
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
                case MISFIT -> {
                    metrics.skippedIndexes.increment();
                    IndexTrigger.LOG.error("gsi trigger: not maintaining index table {}.{}: {}; run ./gsi schema apply with the current definition",
                            base.keyspace, s.indexTable(), s.problem());
                }
                case OUTDATED -> {
                    metrics.skippedIndexes.increment();
                    IndexTrigger.LOG.error("gsi trigger: index table {}.{} was made from an older definition that disagrees with the newest one; run ./gsi schema apply",
                            base.keyspace, s.indexTable());
                }
                case DROPPED -> { } // on its way out: schema apply retires it
            }
        }
        TableDef chosen = resolution.definition();
        if (chosen == null) {
            return new CompiledTable(version, ksm, null, base, null, findQueue(), null);
        }
        List<Index> indexes = resolution.indexes();
        List<Target> targets = new ArrayList<>();
        for (DefinitionResolver.Maintained m : resolution.maintained()) {
            TableMetadata t = ksm.tables.getNullable(m.indexTable());
            ColumnMetadata[] proj = m.index().proj().stream().map(c -> t.getColumn(ByteBufferUtil.bytes(c.name()))).toArray(ColumnMetadata[]::new);
            targets.add(new Target(t, proj,
                    t.getColumn(ByteBufferUtil.bytes(Index.TID_COLUMN)), t.getColumn(ByteBufferUtil.bytes(Index.DELETED_COLUMN))));
        }
        TablePlan plan = TablePlan.of(chosen, indexes);
        TableMetadata r = ksm.tables.getNullable(RowsLayout.tableName(base.name));
        Rows rows = r == null || r.getColumn(ByteBufferUtil.bytes(RowsLayout.KEYS)) == null ? null
                : new Rows(r, r.getColumn(ByteBufferUtil.bytes(RowsLayout.KEYS)), r.getColumn(ByteBufferUtil.bytes(RowsLayout.WRITTEN)),
                        r.getColumn(ByteBufferUtil.bytes(RowsLayout.PARTITION_WRITTEN)), r.getColumn(ByteBufferUtil.bytes(RowsLayout.VERSION_KEYS)),
                        r.getColumn(ByteBufferUtil.bytes(RowsLayout.NEWEST_HI)), r.getColumn(ByteBufferUtil.bytes(RowsLayout.NEWEST_LO)));
        if (rows == null && !chosen.versioned() && !indexes.isEmpty()) {
            metrics.skippedIndexes.add(indexes.size());
            IndexTrigger.LOG.error("gsi trigger: not maintaining the indexes of {}.{}: unversioned, and its rows table {} is missing;"
                    + " run ./gsi schema apply", base.keyspace, base.name, RowsLayout.tableName(base.name));
            return new CompiledTable(version, ksm, null, base, null, findQueue(), null);
        }
        if (rows == null && RowsLayout.needed(chosen)) {
            IndexTrigger.LOG.info("gsi trigger: {}.{} has no rows table {} (made before rows tables); entries of deleted versions are"
                    + " found from the remaining ones only until ./gsi schema apply creates it", base.keyspace, base.name, RowsLayout.tableName(base.name));
        }
        return new CompiledTable(version, ksm, plan, base, targets.toArray(new Target[0]), findQueue(), rows);
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

    /** The values of one row of a base update, as the plan sees them. */
    final class UpdateRow implements VersionRow {
        final ByteBuffer[] values = new ByteBuffer[sources.length];
        final boolean[] present = new boolean[sources.length];
        /** The cell of each regular attribute the update carries (null for key attributes and absent cells). */
        final Cell<?>[] cells = new Cell<?>[sources.length];
        boolean expiring;
        /** The newest timestamp in the row: cells, row marker, row deletion (the version of an unversioned write). */
        long newest = Long.MIN_VALUE;
        final LivenessInfo liveness;

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
                            cells[i] = cell;
                            values[i] = cell.isTombstone() ? null : cell.buffer();
                            expiring |= cell.isExpiring();
                        }
                    }
                }
            }
            expiring |= row.primaryKeyLivenessInfo().isExpiring();
            liveness = row.primaryKeyLivenessInfo();
            for (Cell<?> c : row.cells()) {
                newest = Math.max(newest, c.timestamp());
            }
            if (!row.primaryKeyLivenessInfo().isEmpty()) {
                newest = Math.max(newest, row.primaryKeyLivenessInfo().timestamp());
            }
            if (!row.deletion().isLive()) {
                newest = Math.max(newest, row.deletion().time().markedForDeleteAt());
            }
        }

        /** True when the update carries a cell of some attribute an index keys on or projects. */
        boolean touchesIndexes() {
            for (int i = 0; i < cells.length; i++) {
                if (cells[i] != null && indexed[i]) {
                    return true;
                }
            }
            return false;
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

        /** The row's primary key for a log line: {@code name=value} per key attribute, shortened. */
        String describe() {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < sources.length; i++) {
                if (sources[i] == Source.PARTITION || sources[i] == Source.CLUSTERING) {
                    ColumnMetadata c = sources[i] == Source.PARTITION ? base.partitionKeyColumns().get(positions[i])
                            : base.clusteringColumns().get(positions[i]);
                    out.append(out.length() == 0 ? "" : ", ").append(c.name).append('=')
                            .append(values[i] == null ? "?" : c.type.getString(values[i]));
                }
            }
            return CompiledTable.describe(out.toString());
        }
    }

    /** A key for a log line, at most 200 characters. */
    static String describe(String key) {
        return key.length() <= 200 ? key : key.substring(0, 200) + "...(" + key.length() + " characters)";
    }

    String keyspace() {
        return base.keyspace;
    }

    String name() {
        return base.name;
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

    /** One index entry as a mutation: every cell at TS(tid); {@code _deleted} left alone. */
    Mutation entryMutation(int indexPosition, TablePlan.Entry entry, ByteBuffer tid, long ts, long nowInSec, UpdateRow values) {
        Target target = targets[indexPosition];
        IndexPlan index = entry.index();
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clusteringOf(index, entry.key()));
        // a version that expires takes its entry with it: the liveness and _tid expire with the
        // first key cell (or the row marker, for a key of primary-key attributes) to expire
        long expiresAt = Long.MAX_VALUE;
        int ttl = 0;
        boolean keyCells = false;
        for (int a : index.keyAttributes()) {
            Cell<?> c = a < 0 ? null : values.cells[a];
            if (c != null) {
                keyCells = true;
                if (c.isExpiring() && c.localDeletionTime() < expiresAt) {
                    expiresAt = c.localDeletionTime();
                    ttl = c.ttl();
                }
            }
        }
        if (!keyCells && values.liveness.isExpiring()) {
            expiresAt = values.liveness.localExpirationTime();
            ttl = values.liveness.ttl();
        }
        boolean expiring = expiresAt != Long.MAX_VALUE;
        builder.addPrimaryKeyLivenessInfo(expiring ? LivenessInfo.withExpirationTime(ts, ttl, expiresAt) : LivenessInfo.create(ts, nowInSec));
        ByteBuffer[] proj = entry.proj();
        boolean[] known = entry.projKnown();
        int[] projAttrs = index.projAttributes();
        for (int i = 0; i < proj.length; i++) {
            if (known[i]) {
                Cell<?> c = values.cells[projAttrs[i]];
                builder.addCell(proj[i] == null ? BufferCell.tombstone(target.proj()[i], ts, nowInSec)
                        : c != null && c.isExpiring() ? new BufferCell(target.proj()[i], ts, c.ttl(), c.localDeletionTime(), proj[i], null)
                        : BufferCell.live(target.proj()[i], ts, proj[i]));
            }
        }
        if (!index.perVersion()) {
            // no _deleted: a mark not later than _tid means the entry matches (no tombstone per entry)
            builder.addCell(expiring ? new BufferCell(target.tid(), ts, ttl, expiresAt, tid, null) : BufferCell.live(target.tid(), ts, tid));
        }
        return new Mutation(PartitionUpdate.singleRowUpdate(target.table(), partitionKeyOf(index, entry.key()), builder.build()));
    }

    /** The moments (seconds) at which parts of a version of this update expire: the earliest and the latest, or none. */
    static long[] expiries(UpdateRow values) {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Cell<?> c : values.cells) {
            if (c != null && c.isExpiring()) {
                first = Math.min(first, c.localDeletionTime());
                last = Math.max(last, c.localDeletionTime());
            }
        }
        if (values.liveness.isExpiring()) {
            first = Math.min(first, values.liveness.localExpirationTime());
            last = Math.max(last, values.liveness.localExpirationTime());
        }
        return first == Long.MAX_VALUE ? new long[0] : first == last ? new long[] {first} : new long[] {first, last};
    }

    /** True when some index keeps one entry per row across versions and the rows table exists: record the entry keys. */
    boolean recordsKeys() {
        return rows != null;
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

    /** True when the rows table records the entry keys of per-version indexes (not one made before {@code _vkeys}: schema apply adds it). */
    boolean recordsVersionKeys() {
        return rows != null && rows.versionKeys() != null;
    }

    /**
     * One entry of an unversioned table (README, the timestamp rule for unversioned tables): every
     * cell mirrors the base cell it comes from, at ten times its timestamp and with its TTL;
     * {@code _tid} is the newest key cell's version and expires with the first key cell to expire.
     * No row marker and no {@code _deleted}: the entry lives as long as its {@code _tid}. Only
     * for entries the plan derived, whose key cells are all live.
     */
    Mutation unversionedEntryMutation(int indexPosition, TablePlan.Entry entry, UpdateRow values) {
        Target target = targets[indexPosition];
        IndexPlan index = entry.index();
        Cell<?> firstToExpire = null;
        long newest = Long.MIN_VALUE;
        for (int a : index.keyAttributes()) {
            Cell<?> c = a < 0 ? null : values.cells[a];
            if (c == null) {
                continue; // a primary-key attribute
            }
            newest = Math.max(newest, c.timestamp());
            if (c.isExpiring() && (firstToExpire == null || c.localDeletionTime() < firstToExpire.localDeletionTime())) {
                firstToExpire = c;
            }
        }
        long ts = RowReconcile.ticksOfMicros(newest);
        ByteBuffer tid = RowReconcile.tidOfMicros(newest);
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clusteringOf(index, entry.key()));
        builder.addCell(firstToExpire == null ? BufferCell.live(target.tid(), ts, tid)
                : new BufferCell(target.tid(), ts, firstToExpire.ttl(), firstToExpire.localDeletionTime(), tid, null));
        int[] projAttrs = index.projAttributes();
        for (int i = 0; i < projAttrs.length; i++) {
            Cell<?> c = values.cells[projAttrs[i]];
            if (c == null) {
                continue;
            }
            long pts = RowReconcile.ticksOfMicros(c.timestamp());
            builder.addCell(c.isTombstone() ? BufferCell.tombstone(target.proj()[i], pts, c.localDeletionTime())
                    : c.isExpiring() ? new BufferCell(target.proj()[i], pts, c.ttl(), c.localDeletionTime(), c.buffer(), null)
                    : BufferCell.live(target.proj()[i], pts, c.buffer()));
        }
        return new Mutation(PartitionUpdate.singleRowUpdate(target.table(), partitionKeyOf(index, entry.key()), builder.build()));
    }

    private static ByteBuffer partitionKeyOf(IndexPlan index, List<ByteBuffer> key) {
        int ps = index.partitionSize();
        return ps == 1 ? key.get(0) : Composite.encode(key.subList(0, ps));
    }

    private static Clustering<?> clusteringOf(IndexPlan index, List<ByteBuffer> key) {
        int ps = index.partitionSize();
        if (key.size() == ps) {
            return Clustering.EMPTY;
        }
        ByteBuffer[] clustering = new ByteBuffer[key.size() - ps];
        for (int i = 0; i < clustering.length; i++) {
            clustering[i] = key.get(ps + i);
        }
        return Clustering.make(clustering);
    }

    boolean unversioned() {
        return rows != null && !plan.versioned();
    }

    /** An unversioned row's rows-table row: the entry keys a write gave the row, and the write's timestamp as the newest seen. */
    Row rowsRow(Clustering<?> clustering, List<ByteBuffer> entryKeys, long timestamp) {
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clustering);
        for (ByteBuffer k : entryKeys) {
            addKey(builder, k, timestamp);
        }
        builder.addCell(BufferCell.live(rows.written(), timestamp, ByteBufferUtil.bytes(timestamp)));
        return builder.build();
    }

    /**
     * An entry key a version gave its row, and the version's TS (the element's write time); in
     * {@code _vkeys} for an index that keeps an entry per version, else in {@code _keys}.
     */
    record RecordedKey(ByteBuffer element, long ts, boolean perVersion) {}

    /**
     * What an update gives one versioned row's rows-table row: the entry keys its versions have, and
     * the write of the newest version that carried every indexed key attribute (its TS and write
     * timestamp; {@code Long.MIN_VALUE}: none).
     */
    static final class VersionedRecord {
        final List<RecordedKey> keys = new ArrayList<>(2);
        long newestTs = Long.MIN_VALUE;
        long newestWrite;

        void wrote(long ts, long write) {
            if (ts > newestTs) {
                newestTs = ts;
                newestWrite = write;
            }
        }
    }

    /** True when the rows table has {@code _whi} and {@code _wlo} (not one made before them: schema apply adds them). */
    private boolean recordsNewestWrites() {
        return rows != null && rows.newestHi() != null && rows.newestLo() != null;
    }

    /**
     * The rows-table row of a versioned row (partition key and clustering prefix): the entry keys its
     * versions gave it, each element written at its version's TS. The element's write time then names
     * the newest version that had the key, so the repair service can tell a version that was rewritten
     * with another key from a new one ({@link RowsLayout}). And, at the TS of the version that
     * carried every indexed key attribute, its write timestamp in {@code _whi} and {@code _wlo}: among
     * writes of one version Cassandra keeps the greater value of each, so the two differ once that
     * version has been written twice at different timestamps (a rewrite whose projections tie).
     * Null when the update gives the row nothing to record.
     */
    Row versionedRowsRow(List<ByteBuffer> prefix, VersionedRecord record) {
        boolean newest = record.newestTs != Long.MIN_VALUE && recordsNewestWrites();
        if (!newest && record.keys.isEmpty()) {
            return null;
        }
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(prefix.isEmpty() ? Clustering.EMPTY : Clustering.make(prefix.toArray(new ByteBuffer[0])));
        if (newest) {
            builder.addCell(BufferCell.live(rows.newestHi(), record.newestTs, ByteBufferUtil.bytes(record.newestWrite)));
            builder.addCell(BufferCell.live(rows.newestLo(), record.newestTs, ByteBufferUtil.bytes(RowsLayout.newestLo(record.newestWrite))));
        }
        for (RecordedKey k : record.keys) {
            if (!k.perVersion()) {
                addKey(builder, k.element(), k.ts());
            } else {
                builder.addCell(BufferCell.live(rows.versionKeys(), k.ts(), ByteBufferUtil.EMPTY_BYTE_BUFFER, CellPath.create(k.element())));
            }
        }
        return builder.build();
    }

    private void addKey(Row.Builder builder, ByteBuffer element, long timestamp) {
        builder.addCell(BufferCell.live(rows.keys(), timestamp, ByteBufferUtil.EMPTY_BYTE_BUFFER, CellPath.create(element)));
    }

    /** The static row that records a range or partition delete at {@code timestamp} (tables with clustering columns). */
    Row rowsPartitionRow(long timestamp) {
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(Clustering.STATIC_CLUSTERING);
        builder.addCell(BufferCell.live(rows.partitionWritten(), timestamp, ByteBufferUtil.bytes(timestamp)));
        return builder.build();
    }

    boolean rowsHavePartitionColumn() {
        return rows.partitionWritten() != null;
    }

    /** The rows table's update for one base partition (same partition key: it joins the base write's mutation). */
    Mutation rowsMutation(ByteBuffer partitionKey, List<Row> rowsOut, Row staticRow) {
        TableMetadata t = rows.table();
        PartitionUpdate.Builder b = new PartitionUpdate.Builder(t, t.partitioner.decorateKey(partitionKey), t.regularAndStaticColumns(),
                rowsOut.size());
        if (staticRow != null) {
            b.add(staticRow);
        }
        for (Row r : rowsOut) {
            b.add(r);
        }
        return new Mutation(b.build());
    }

    /** A work-queue marker for one versioned row (or the whole partition when prefix is empty and tids null). */
    Mutation marker(String keyspace, String table, ByteBuffer partitionKey, List<ByteBuffer> prefix,
            ByteBuffer tidMin, ByteBuffer tidMax, int flags, long nowInSec) {
        return marker(keyspace, table, partitionKey, prefix, tidMin, tidMax, flags, nowInSec, 0);
    }

    /**
     * A marker due at {@code atSeconds} (epoch seconds; 0: now): its id and queue bucket are of that
     * moment, so the repair service reaches it then (an expiry), and it lives the queue's TTL past it.
     */
    Mutation marker(String keyspace, String table, ByteBuffer partitionKey, List<ByteBuffer> prefix,
            ByteBuffer tidMin, ByteBuffer tidMax, int flags, long nowInSec, long atSeconds) {
        QueueLayout.Settings s = queue.settings();
        int shard = QueueLayout.shardOf(keyspace, table, partitionKey, s.shards());
        long nowMicros = org.apache.cassandra.utils.FBUtilities.timestampMicros();
        long dueMillis = atSeconds == 0 ? nowMicros / 1000 : atSeconds * 1000 + 1000;
        long bucket = s.bucketOf(dueMillis);
        ByteBuffer queueKey = Composite.encode(List.of(ByteBufferUtil.bytes(shard), ByteBufferUtil.bytes(bucket)));
        Row.Builder builder = BTreeRow.unsortedBuilder();
        ByteBuffer id = atSeconds == 0 ? ByteBuffer.wrap(TimeUUID.Generator.nextTimeUUIDAsBytes())
                : TimeUUID.atUnixMicrosWithLsb(dueMillis * 1000, java.util.concurrent.ThreadLocalRandom.current().nextLong()).toBytes();
        builder.newRow(Clustering.make(id));
        int ttl = (int) Math.min(MAX_TTL_SECONDS, s.ttlSeconds() + Math.max(0, dueMillis / 1000 - nowInSec));
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

    /** Cassandra's largest TTL (20 years). */
    private static final long MAX_TTL_SECONDS = 630_720_000L;

    static long ts(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    static void logRateLimited(String message, Object... args) {
        NoSpamLogger.log(IndexTrigger.LOG, NoSpamLogger.Level.ERROR, 1, TimeUnit.MINUTES, message, args);
    }
}
