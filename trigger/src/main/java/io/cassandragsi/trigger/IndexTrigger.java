package io.cassandragsi.trigger;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.Partition;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.transport.Dispatcher;
import org.apache.cassandra.triggers.TriggerExecutor;
import org.apache.cassandra.utils.FBUtilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of cassandra-gsi (DESIGN.md section 1). For every update of an indexed,
 * versioned table it returns, without reading anything, one index-entry upsert per secondary index
 * and version at the tid's write timestamp TS(tid), plus one work-queue marker per versioned row, so
 * that Cassandra applies them in one logged batch with the base write.
 *
 * <p>Conditional writes (the CAS path) may only add mutations to the same partition, so there the
 * trigger adds nothing: it writes a marker flagged CAS synchronously before the proposal, and the
 * repair service indexes the write once a SERIAL read shows that it applied.
 *
 * <p>One instance serves all threads; its state is a per-table cache of {@link CompiledTable},
 * rebuilt when the schema changes. A problem in a definition skips that index with an error in the
 * node's log and a counter; an unexpected exception is logged and counted and the base write goes
 * on with only its marker (the repair service completes it).
 */
public final class IndexTrigger implements org.apache.cassandra.triggers.ITrigger {
    static final Logger LOG = LoggerFactory.getLogger(IndexTrigger.class);

    private final Map<TableId, CompiledTable> cache = new ConcurrentHashMap<>();
    private final TriggerMetrics metrics = TriggerMetrics.register();
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    /** True on the batchlog path, false on the CAS path ({@link #onBatchlogPath}). */
    private final BooleanSupplier batchlogPath;
    /** Writes the CAS path's markers before Paxos proposes ({@link #writeNow}). */
    private final Consumer<List<Mutation>> casMarkerWriter;

    public IndexTrigger() {
        this(IndexTrigger::onBatchlogPath, IndexTrigger::writeNow);
    }

    /** Unit tests: the trigger without a node to tell the write path from the stack or to write CAS markers to. */
    IndexTrigger(BooleanSupplier batchlogPath, Consumer<List<Mutation>> casMarkerWriter) {
        this.batchlogPath = batchlogPath;
        this.casMarkerWriter = casMarkerWriter;
        LOG.info("gsi trigger loaded");
    }

    @Override
    public Collection<Mutation> augment(Partition partition) {
        try {
            PartitionUpdate update = (PartitionUpdate) partition;
            return fitted(update, augmentUpdate(update));
        } catch (org.apache.cassandra.exceptions.CassandraException e) {
            throw e; // a real failure to write (the CAS marker timed out, ...): the client retries
        } catch (RuntimeException | AssertionError | LinkageError e) {
            // A bug of ours must never fail the write: it goes on unindexed, counted and logged;
            // ./gsi check finds what is missing.
            metrics.errors.increment();
            CompiledTable.logRateLimited("gsi trigger: could not index an update of {}.{}; the write goes on without index"
                    + " entries or marker (./gsi check --fix repairs it): {}", partition.metadata().keyspace,
                    partition.metadata().name, e.toString());
            LOG.debug("gsi trigger error", e);
            return null;
        }
    }

    private Collection<Mutation> augmentUpdate(PartitionUpdate update) {
        TableMetadata base = update.metadata();
        CompiledTable table = compiled(base);
        if (!table.indexes()) {
            return null;
        }
        metrics.updates.increment();
        boolean cas = !batchlogPath.getAsBoolean();
        if (table.unversioned()) {
            return unversioned(table, update, cas);
        }
        List<Mutation> out = new ArrayList<>();
        long nowInSec = FBUtilities.nowInSeconds();
        ByteBuffer partitionKey = update.partitionKey().getKey();
        int partitionFlags = cas ? QueueLayout.FLAG_CAS : 0;
        Map<List<ByteBuffer>, RowGroup> groups = new LinkedHashMap<>(2);
        Map<List<ByteBuffer>, CompiledTable.VersionedRecord> recorded = new LinkedHashMap<>(2);
        List<Mutation> expiries = new ArrayList<>(0);
        try {
            if (!update.partitionLevelDeletion().isLive()) {
                partitionFlags |= QueueLayout.FLAG_DELETE;
            }
            ByteBuffer[] partitionValues = table.partitionValues(partitionKey, base);
            try (UnfilteredRowIterator rows = update.unfilteredIterator()) {
                while (rows.hasNext()) {
                    Unfiltered unfiltered = rows.next();
                    if (!unfiltered.isRow()) {
                        partitionFlags |= QueueLayout.FLAG_DELETE; // range tombstone
                        continue;
                    }
                    Row row = (Row) unfiltered;
                    CompiledTable.UpdateRow values = table.new UpdateRow(partitionValues, row);
                    int flags = 0;
                    ByteBuffer tid = values.tid();
                    if (!row.deletion().isLive() || values.expiring || rewrites(values, tid)) {
                        flags |= QueueLayout.FLAG_DELETE; // the service recomputes the row from all its versions
                    }
                    List<ByteBuffer> prefix = table.prefix(row);
                    if (!cas && row.deletion().isLive()) {
                        flags |= index(table, values, tid, nowInSec, out, recorded.computeIfAbsent(prefix, p -> new CompiledTable.VersionedRecord()));
                    }
                    groups.computeIfAbsent(prefix, p -> new RowGroup()).add(tid, flags);
                    if (values.expiring && table.hasQueue()) {
                        // the repair service recomputes the row when the version expires: the one before may be current again
                        for (long at : CompiledTable.expiries(values)) {
                            expiries.add(table.marker(base.keyspace, base.name, partitionKey, prefix, tid, tid,
                                    QueueLayout.FLAG_DELETE, nowInSec, at));
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // A bug of ours must not fail the write: queue the partition for the repair service.
            countError(base, e);
            out.clear();
            groups.clear();
            recorded.clear();
            expiries.clear();
            partitionFlags |= QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE;
        }
        List<Mutation> markers = markers(table, base, partitionKey, groups, partitionFlags, nowInSec);
        markers.addAll(expiries);
        if (!cas && table.recordsKeys()) {
            List<Row> rowsOut = new ArrayList<>(recorded.size());
            recorded.forEach((prefix, record) -> {
                Row row = table.versionedRowsRow(prefix, record);
                if (row != null) {
                    rowsOut.add(row);
                }
            });
            if (!rowsOut.isEmpty()) {
                out.add(table.rowsMutation(partitionKey, rowsOut, null));
            }
        }
        if (cas) {
            metrics.casWrites.increment();
            casMarkerWriter.accept(markers);
            return null;
        }
        out.addAll(markers);
        return out;
    }

    /**
     * An update of an unversioned table: the version of each row is its newest write timestamp w.
     * For each index whose key attributes the update carries, all live, the entry, mirroring the
     * base cells (see {@link CompiledTable#unversionedEntryMutation}); for every row the update
     * touches an indexed or projected attribute of, or deletes: a rows-table row (the entry keys it
     * got, and w as the newest write seen; in the base write's own mutation) and a marker, because
     * only the repair service can find the entries the row had before. A range or partition delete
     * records its timestamp in the rows table's static column and queues the whole partition.
     * On the CAS path nothing but the markers: the service reads the outcome.
     */
    private Collection<Mutation> unversioned(CompiledTable table, PartitionUpdate update, boolean cas) {
        TableMetadata base = update.metadata();
        long nowInSec = FBUtilities.nowInSeconds();
        ByteBuffer partitionKey = update.partitionKey().getKey();
        List<Mutation> out = new ArrayList<>();
        List<Row> rowsOut = new ArrayList<>();
        Row staticRow = null;
        List<Mutation> markers = new ArrayList<>();
        int casFlag = cas ? QueueLayout.FLAG_CAS : 0;
        long partitionDelete = update.partitionLevelDeletion().isLive() ? Long.MIN_VALUE : update.partitionLevelDeletion().markedForDeleteAt();
        try {
            ByteBuffer[] partitionValues = table.partitionValues(partitionKey, base);
            try (UnfilteredRowIterator rows = update.unfilteredIterator()) {
                while (rows.hasNext()) {
                    Unfiltered unfiltered = rows.next();
                    if (!unfiltered.isRow()) {
                        org.apache.cassandra.db.rows.RangeTombstoneMarker m = (org.apache.cassandra.db.rows.RangeTombstoneMarker) unfiltered;
                        long at = m.isOpen(false) ? m.openDeletionTime(false).markedForDeleteAt() : m.closeDeletionTime(false).markedForDeleteAt();
                        partitionDelete = Math.max(partitionDelete, at);
                        continue;
                    }
                    Row row = (Row) unfiltered;
                    CompiledTable.UpdateRow values = table.new UpdateRow(partitionValues, row);
                    boolean deletes = !row.deletion().isLive();
                    if (!deletes && !values.touchesIndexes()) {
                        continue; // only unindexed attributes: no entry can change
                    }
                    int flags = casFlag | (deletes || values.expiring ? QueueLayout.FLAG_DELETE : 0);
                    List<ByteBuffer> keys = new ArrayList<>(2);
                    if (!cas && !deletes) {
                        TablePlan.Derivation derivation = table.plan.derive(values);
                        for (TablePlan.Entry entry : derivation.entries()) {
                            out.add(table.unversionedEntryMutation(table.plan.indexes().indexOf(entry.index()), entry, values));
                            keys.add(RowsLayout.element(entry.index().index().name(), entry.key()));
                        }
                        metrics.entries.add(keys.size());
                        flags |= oversized(table, derivation, values);
                        if (!derivation.complete() || derivation.entries().size() < table.plan.indexes().size()) {
                            flags |= QueueLayout.FLAG_PARTIAL; // an index the update does not fully carry, or a key cell it deletes
                        }
                    }
                    if (!cas) {
                        rowsOut.add(table.rowsRow(row.clustering(), keys, values.newest));
                    }
                    ByteBuffer version = io.cassandragsi.index.RowReconcile.tidOfMicros(values.newest);
                    markers.add(table.marker(base.keyspace, base.name, partitionKey, table.prefix(row), version, version, flags, nowInSec));
                }
            }
        } catch (RuntimeException e) {
            countError(base, e); // the whole partition goes to the repair service
            out.clear();
            rowsOut.clear();
            markers.clear();
            partitionDelete = Math.max(partitionDelete, FBUtilities.timestampMicros());
        }
        if (partitionDelete != Long.MIN_VALUE) {
            if (!cas && table.rowsHavePartitionColumn()) {
                staticRow = table.rowsPartitionRow(partitionDelete);
            } else if (!cas) {
                rowsOut.add(table.rowsRow(org.apache.cassandra.db.Clustering.EMPTY, List.of(), partitionDelete));
            }
            markers.add(table.marker(base.keyspace, base.name, partitionKey, List.of(), null, null,
                    casFlag | QueueLayout.FLAG_DELETE, nowInSec));
        }
        if (markers.isEmpty()) {
            return null;
        }
        if (!table.hasQueue()) {
            metrics.markersDropped.increment();
            CompiledTable.logRateLimited("gsi trigger: no queue table ({}.{} with a gsi_queue comment); index entries of {}.{} are written but never repaired. Run ./gsi schema apply.",
                    QueueLayout.DEFAULT_KEYSPACE, QueueLayout.TABLE, base.keyspace, base.name);
            markers.clear();
        }
        metrics.markers.add(markers.size());
        if (cas) {
            metrics.casWrites.increment();
            casMarkerWriter.accept(markers);
            return null;
        }
        if (!rowsOut.isEmpty() || staticRow != null) {
            out.add(table.rowsMutation(partitionKey, rowsOut, staticRow));
        }
        out.addAll(markers);
        return out;
    }

    private void countError(TableMetadata base, RuntimeException e) {
        metrics.errors.increment();
        CompiledTable.logRateLimited("gsi trigger: error indexing an update of {}.{}; the write goes on and the repair service will index it: {}",
                base.keyspace, base.name, e.toString());
        LOG.debug("gsi trigger error", e);
    }

    /**
     * A write this long after its tid's own time is taken for an in-place rewrite of an existing
     * version (or a late old version): the entry that version had may have to stop matching, which
     * only a recompute of the row can know. Writes of new versions carry a tid made a moment before.
     */
    static final long REWRITE_AFTER_MICROS = 1_000_000L;

    private static boolean rewrites(CompiledTable.UpdateRow values, ByteBuffer tid) {
        return values.newest != Long.MIN_VALUE && values.newest - WriteTimestamps.ofSerialized(tid) / 10 > REWRITE_AFTER_MICROS;
    }

    /** Adds the entries of one version to {@code out}; returns the marker flags it calls for. */
    private int index(CompiledTable table, CompiledTable.UpdateRow values, ByteBuffer tid, long nowInSec, List<Mutation> out,
            CompiledTable.VersionedRecord recorded) {
        TablePlan.Derivation derivation = table.plan.derive(values);
        long ts = CompiledTable.ts(tid);
        List<TablePlan.Entry> entries = derivation.entries();
        for (TablePlan.Entry entry : entries) {
            out.add(table.entryMutation(table.plan.indexes().indexOf(entry.index()), entry, tid, ts, nowInSec, values));
            if (!entry.index().perVersion() || table.recordsVersionKeys()) {
                recorded.keys.add(new CompiledTable.RecordedKey(RowsLayout.element(entry.index().index().name(), entry.key()), ts,
                        entry.index().perVersion()));
            }
        }
        metrics.entries.add(entries.size());
        if (derivation.keysKnown() && values.newest != Long.MIN_VALUE) {
            // a second write of this version at another timestamp shows (RowsLayout): whole, its projections tie with the
            // first's; with every key attribute, it may move a per-version entry, which no recorded _keys element shows
            recorded.wrote(ts, values.newest);
        }
        int flags = oversized(table, derivation, values);
        if (!derivation.complete()) {
            metrics.incompleteRows.increment();
            flags |= QueueLayout.FLAG_PARTIAL;
            if (table.carriesProjection(values)) {
                // an UPDATE of some attributes of a version, projected ones among them: if the version exists (an
                // in-place rewrite), its projections tie with the stored ones at the version's TS and Cassandra keeps the
                // greater value. A recompute compares them with the base and writes above the stored cells.
                flags |= QueueLayout.FLAG_DELETE;
            }
        }
        return flags;
    }

    /** Counts and logs the entries a derivation left out because their key is too large; their marker flag. */
    private int oversized(CompiledTable table, TablePlan.Derivation derivation, CompiledTable.UpdateRow values) {
        if (derivation.oversized().isEmpty()) {
            return 0;
        }
        metrics.oversizedKeys.add(derivation.oversized().size());
        CompiledTable.logRateLimited("gsi trigger: the entry key of {}.{} row {} in index {} takes more than {} bytes, more than"
                + " Cassandra stores as a key; the row is not indexed there (the write goes on)", table.keyspace(), table.name(),
                values.describe(), derivation.oversized().get(0).index().name(), TablePlan.MAX_KEY_BYTES);
        return QueueLayout.FLAG_TOO_LARGE;
    }

    /** Room left in a node's mutation size limit for what else a client batch and the batchlog's framing add. */
    static final long MUTATION_MARGIN = 64 * 1024;

    /**
     * The trigger's mutations, or, when they would push the write's logged batch over the node's
     * mutation size limit ({@code max_mutation_size}, half the commit log segment by default: the
     * batchlog stores the base write and ours as one mutation), a marker of the whole partition
     * alone: the write goes through, and the repair service writes the entries on their own. A base
     * write that takes the margin by itself gets nothing added (any addition makes the write a
     * logged batch, which could then fail where the plain write would not): it is not indexed, and
     * {@code check --fix} finds it.
     */
    private Collection<Mutation> fitted(PartitionUpdate update, Collection<Mutation> out) {
        if (out == null || out.isEmpty()) {
            return out;
        }
        long max = org.apache.cassandra.db.IMutation.MAX_MUTATION_SIZE;
        int version = org.apache.cassandra.net.MessagingService.current_version;
        long base = PartitionUpdate.serializer.serializedSize(update, version);
        long total = base;
        for (Mutation m : out) {
            total += m.serializedSize(version);
        }
        if (total + MUTATION_MARGIN <= max) {
            return out;
        }
        TableMetadata metadata = update.metadata();
        CompiledTable table = compiled(metadata);
        metrics.oversizedWrites.increment();
        String partition = CompiledTable.describe(metadata.partitionKeyType.getString(update.partitionKey().getKey()));
        if (base + MUTATION_MARGIN > max || !table.hasQueue()) {
            metrics.markersDropped.increment();
            CompiledTable.logRateLimited("gsi trigger: a write to {}.{} partition {} takes {} bytes, within {} of the node's"
                    + " max_mutation_size of {}; the write goes on unindexed (./gsi check --fix indexes it)", metadata.keyspace,
                    metadata.name, partition, base, MUTATION_MARGIN, max);
            return null;
        }
        CompiledTable.logRateLimited("gsi trigger: a write to {}.{} partition {} with its index entries would take {} bytes, over the"
                + " node's max_mutation_size of {} less {} of margin; the write goes on and the repair service writes its entries",
                metadata.keyspace, metadata.name, partition, total, max, MUTATION_MARGIN);
        return List.of(table.marker(metadata.keyspace, metadata.name, update.partitionKey().getKey(), List.of(), null, null,
                QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE | QueueLayout.FLAG_TOO_LARGE, FBUtilities.nowInSeconds()));
    }

    /** Markers: one per versioned row, when some index needs a sibling diff or something was left undone. */
    private List<Mutation> markers(CompiledTable table, TableMetadata base, ByteBuffer partitionKey,
            Map<List<ByteBuffer>, RowGroup> groups, int partitionFlags, long nowInSec) {
        boolean always = table.plan.hasEverIndex() || partitionFlags != 0;
        List<Mutation> markers = new ArrayList<>(Math.max(1, groups.size()));
        if (!table.hasQueue()) {
            if (always || groups.values().stream().anyMatch(g -> g.flags != 0)) {
                metrics.markersDropped.increment();
                CompiledTable.logRateLimited("gsi trigger: no queue table ({}.{} with a gsi_queue comment); index entries of {}.{} are written but never repaired. Run ./gsi schema apply.",
                        QueueLayout.DEFAULT_KEYSPACE, QueueLayout.TABLE, base.keyspace, base.name);
            }
            return markers;
        }
        if ((partitionFlags & (QueueLayout.FLAG_DELETE | QueueLayout.FLAG_PARTIAL)) != 0) {
            // a partition or range deletion, or an update we failed to read: the whole partition
            markers.add(table.marker(base.keyspace, base.name, partitionKey, List.of(), null, null, partitionFlags, nowInSec));
        }
        for (Map.Entry<List<ByteBuffer>, RowGroup> e : groups.entrySet()) {
            RowGroup g = e.getValue();
            int flags = g.flags | (partitionFlags & QueueLayout.FLAG_CAS);
            if (!always && flags == 0) {
                continue;
            }
            markers.add(table.marker(base.keyspace, base.name, partitionKey, e.getKey(), g.min, g.max, flags, nowInSec));
        }
        metrics.markers.add(markers.size());
        if ((partitionFlags & QueueLayout.FLAG_DELETE) != 0 || groups.values().stream().anyMatch(g -> (g.flags & QueueLayout.FLAG_DELETE) != 0)) {
            metrics.deletes.increment();
        }
        return markers;
    }

    /** The tids of one versioned row in this update, and what they need. */
    private static final class RowGroup {
        ByteBuffer min;
        ByteBuffer max;
        long minTs = Long.MAX_VALUE;
        long maxTs = Long.MIN_VALUE;
        int flags;

        void add(ByteBuffer tid, int rowFlags) {
            long ts = WriteTimestamps.ofSerialized(tid);
            if (ts < minTs) {
                minTs = ts;
                min = tid;
            }
            if (ts > maxTs) {
                maxTs = ts;
                max = tid;
            }
            flags |= rowFlags;
        }
    }

    /** On the CAS path: queue the write before Paxos proposes it (nothing may be added to the batch). */
    private static void writeNow(List<Mutation> markers) {
        if (markers.isEmpty()) {
            return;
        }
        StorageProxy.mutate(markers, ConsistencyLevel.ONE, Dispatcher.RequestTime.forImmediateExecution());
    }

    private CompiledTable compiled(TableMetadata base) {
        KeyspaceMetadata current = Schema.instance.getKeyspaceMetadata(base.keyspace);
        CompiledTable table = cache.get(base.id);
        if (table == null || !table.isCurrent(current)) {
            table = CompiledTable.compile(base, metrics);
            cache.put(base.id, table);
            if (table.indexes()) {
                LOG.info("gsi trigger: maintaining {} index(es) of {}.{}: {}", table.plan.indexes().size(), base.keyspace, base.name,
                        table.plan.indexes().stream().map(p -> p.tableName()).toList());
            }
        }
        return table;
    }

    /**
     * True when Cassandra called the trigger from {@code StorageProxy.mutateWithTriggers}, which
     * applies what it returns in a logged batch; false on the CAS path, which rejects mutations
     * for other partitions. Looks past our own frames and Cassandra's TriggerExecutor to the first
     * caller, comparing classes by reference: only that one frame's method name is resolved.
     */
    static boolean onBatchlogPath() {
        return WALKER.walk(frames -> frames.limit(12)
                .filter(f -> f.getDeclaringClass() != IndexTrigger.class && f.getDeclaringClass() != TriggerExecutor.class)
                .findFirst()
                .map(f -> f.getDeclaringClass() == StorageProxy.class && f.getMethodName().equals("mutateWithTriggers"))
                .orElse(false));
    }
}
