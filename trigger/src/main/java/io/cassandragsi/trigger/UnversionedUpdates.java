package io.cassandragsi.trigger;

import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.RangeTombstoneMarker;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.utils.FBUtilities;

/**
 * What the trigger adds to an update of an unversioned table (docs/design.md section 5): the
 * version of each row is its newest write timestamp w. For each index whose key attributes the
 * update carries, all live, the entry, mirroring the base cells; for every row the update touches
 * an indexed or projected attribute of, or deletes: a rows-table row (the entry keys it got, and w
 * as the newest write seen; in the base write's own mutation) and a marker, because only a
 * maintainer can find the entries the row had before. A range or partition delete records its
 * timestamp in the rows table and queues the whole partition. On the CAS path nothing but the
 * markers: the repair service reads the outcome. A plain write of a table maintained in the node
 * goes to the in-node maintainer.
 */
final class UnversionedUpdates implements Updates {
    private final TriggerMetrics metrics;

    UnversionedUpdates(TriggerMetrics metrics) {
        this.metrics = metrics;
    }

    /** A marker to write once the whole update is read. */
    private record Pending(List<ByteBuffer> prefix, ByteBuffer version, int flags, ByteBuffer id) {}

    @Override
    public Added add(CompiledTable table, PartitionUpdate update, boolean cas, RowFeed node) {
        long nowInSec = FBUtilities.nowInSeconds();
        ByteBuffer partitionKey = update.partitionKey().getKey();
        List<Mutation> out = new ArrayList<>();
        List<Row> rowsOut = new ArrayList<>();
        List<Pending> pending = new ArrayList<>();
        int casFlag = cas ? QueueLayout.FLAG_CAS : 0;
        long partitionDelete = update.partitionLevelDeletion().isLive() ? Long.MIN_VALUE : update.partitionLevelDeletion().markedForDeleteAt();
        try {
            ByteBuffer[] partitionValues = table.partitionValues(partitionKey);
            try (UnfilteredRowIterator rows = update.unfilteredIterator()) {
                while (rows.hasNext()) {
                    Unfiltered unfiltered = rows.next();
                    if (!unfiltered.isRow()) {
                        RangeTombstoneMarker m = (RangeTombstoneMarker) unfiltered;
                        long at = m.isOpen(false) ? m.openDeletionTime(false).markedForDeleteAt() : m.closeDeletionTime(false).markedForDeleteAt();
                        partitionDelete = Math.max(partitionDelete, at);
                        continue;
                    }
                    Row row = (Row) unfiltered;
                    UpdateRow values = new UpdateRow(table, partitionValues, row);
                    boolean deletes = !row.deletion().isLive();
                    if (!deletes && !values.touchesIndexes()) {
                        continue; // only unindexed attributes: no entry can change
                    }
                    int flags = casFlag | (deletes || values.expiring ? QueueLayout.FLAG_DELETE : 0);
                    List<ByteBuffer> keys = new ArrayList<>(2);
                    if (!cas && !deletes) {
                        TablePlan.Derivation derivation = table.plan.derive(values);
                        for (TablePlan.Entry entry : derivation.entries()) {
                            out.add(EntryMutations.unversioned(table, table.plan.indexes().indexOf(entry.index()), entry, values));
                            keys.add(RowsLayout.element(entry.index().index().name(), entry.key()));
                        }
                        metrics.entries.add(keys.size());
                        flags |= metrics.oversized(table, derivation, values);
                        if (!derivation.complete() || derivation.entries().size() < table.plan.indexes().size()) {
                            flags |= QueueLayout.FLAG_PARTIAL; // an index the update does not fully carry, or a key cell it deletes
                        }
                    }
                    // one id for the rows table's record and the marker: a reconcile tells its write from another at that timestamp
                    ByteBuffer id = QueueMutations.newId();
                    if (!cas) {
                        rowsOut.add(RowsMutations.unversioned(table, row.clustering(), keys, values.newest, id));
                    }
                    pending.add(new Pending(table.prefix(row), RowReconcile.tidOfMicros(values.newest), flags, id));
                }
            }
        } catch (RuntimeException e) {
            metrics.countError(table.base, e); // the whole partition goes to the repair service
            out.clear();
            rowsOut.clear();
            pending.clear();
            partitionDelete = Math.max(partitionDelete, FBUtilities.timestampMicros());
        }
        Row staticRow = null;
        if (partitionDelete != Long.MIN_VALUE && !cas) {
            if (table.rows.partitionWritten() != null) {
                staticRow = RowsMutations.partitionDelete(table, partitionDelete);
            } else {
                rowsOut.add(RowsMutations.unversioned(table, Clustering.EMPTY, List.of(), partitionDelete, null));
            }
        }
        if (!rowsOut.isEmpty() || staticRow != null) {
            out.add(RowsMutations.of(table, partitionKey, rowsOut, staticRow));
        }
        List<Mutation> markers = new ArrayList<>(pending.size() + 1);
        List<Marker> taken = new ArrayList<>(0);
        if (!table.hasQueue()) {
            if (!pending.isEmpty() || partitionDelete != Long.MIN_VALUE) {
                metrics.noQueue(table);
            }
            return new Added(out, markers, taken);
        }
        if (cas) {
            node = null;
        }
        for (Pending p : pending) {
            Marker took = node == null || p.flags() != 0 ? null
                    : node.offer(Tids.uuid(p.id()), table.keyspaceName(), table.name(), partitionKey, Composite.encode(p.prefix()), Tids.uuid(p.version()),
                            Tids.uuid(p.version()), 0);
            if (node != null && p.flags() == 0) {
                (took != null ? metrics.toMaintainer : metrics.maintainerRefused).increment();
            }
            if (took != null) {
                taken.add(took);
            } else {
                markers.add(QueueMutations.forService(table, partitionKey, p.prefix(), p.version(), p.version(), p.flags(), nowInSec, p.id()));
            }
        }
        if (partitionDelete != Long.MIN_VALUE) {
            markers.add(QueueMutations.forService(table, partitionKey, List.of(), null, null, casFlag | QueueLayout.FLAG_DELETE, nowInSec));
        }
        return new Added(out, markers, taken);
    }
}
