package io.cassandragsi.trigger;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.db.rows.Unfiltered;
import org.apache.cassandra.db.rows.UnfilteredRowIterator;
import org.apache.cassandra.utils.FBUtilities;

/**
 * What the trigger adds to an update of a versioned table (docs/design.md section 5), without
 * reading anything: one entry upsert per index and version at TS(tid), the rows-table record in the
 * base write's own mutation, and one marker per row (or per partition, for a delete), flagged with
 * what the write leaves to the maintainers. A plain write of a table maintained in the node goes
 * to the in-node maintainer, its marker to the maintainer's epoch shard.
 */
final class VersionedUpdates implements Updates {
    /**
     * A write this long after its tid's own time is taken for an in-place rewrite of an existing
     * version (or a late old version): the entry that version had may have to stop matching, which
     * only a recompute of the row can know. Writes of new versions carry a tid made a moment before.
     */
    static final long REWRITE_AFTER_MICROS = 1_000_000L;

    private final TriggerMetrics metrics;

    VersionedUpdates(TriggerMetrics metrics) {
        this.metrics = metrics;
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

    @Override
    public Added add(CompiledTable table, PartitionUpdate update, boolean cas, RowFeed node) {
        List<Mutation> out = new ArrayList<>();
        long nowInSec = FBUtilities.nowInSeconds();
        ByteBuffer partitionKey = update.partitionKey().getKey();
        int partitionFlags = cas ? QueueLayout.FLAG_CAS : 0;
        Map<List<ByteBuffer>, RowGroup> groups = new LinkedHashMap<>(2);
        Map<List<ByteBuffer>, RowsMutations.VersionedRecord> recorded = new LinkedHashMap<>(2);
        List<Mutation> expiries = new ArrayList<>(0);
        try {
            if (!update.partitionLevelDeletion().isLive()) {
                partitionFlags |= QueueLayout.FLAG_DELETE;
            }
            ByteBuffer[] partitionValues = table.partitionValues(partitionKey);
            try (UnfilteredRowIterator rows = update.unfilteredIterator()) {
                while (rows.hasNext()) {
                    Unfiltered unfiltered = rows.next();
                    if (!unfiltered.isRow()) {
                        partitionFlags |= QueueLayout.FLAG_DELETE; // range tombstone
                        continue;
                    }
                    Row row = (Row) unfiltered;
                    UpdateRow values = new UpdateRow(table, partitionValues, row);
                    int flags = 0;
                    ByteBuffer tid = values.tid();
                    if (!row.deletion().isLive() || values.expiring || rewrites(values, tid)) {
                        flags |= QueueLayout.FLAG_DELETE; // the maintainers recompute the row from all its versions
                    }
                    List<ByteBuffer> prefix = table.prefix(row);
                    if (!cas && row.deletion().isLive()) {
                        flags |= index(table, values, tid, nowInSec, out, recorded.computeIfAbsent(prefix, p -> new RowsMutations.VersionedRecord()));
                    }
                    groups.computeIfAbsent(prefix, p -> new RowGroup()).add(tid, flags);
                    if (values.expiring && table.hasQueue()) {
                        // the service recomputes the row when the version expires: the one before may be current again
                        for (long at : values.expiries()) {
                            expiries.add(QueueMutations.due(table, partitionKey, prefix, tid, QueueLayout.FLAG_DELETE, nowInSec, at));
                        }
                    }
                }
            }
        } catch (RuntimeException e) {
            // a bug of ours must not fail the write: queue the whole partition for the repair service
            metrics.countError(table.base, e);
            out.clear();
            groups.clear();
            recorded.clear();
            expiries.clear();
            partitionFlags |= QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE;
        }
        List<Marker> taken = new ArrayList<>(0);
        List<Mutation> markers = markers(table, partitionKey, groups, partitionFlags, nowInSec, partitionFlags == 0 ? node : null, taken);
        markers.addAll(expiries);
        if (!cas) {
            List<Row> rowsOut = new ArrayList<>(recorded.size());
            recorded.forEach((prefix, record) -> {
                Row row = RowsMutations.versioned(table, prefix, record);
                if (row != null) {
                    rowsOut.add(row);
                }
            });
            if (!rowsOut.isEmpty()) {
                out.add(RowsMutations.of(table, partitionKey, rowsOut, null));
            }
        }
        return new Added(out, markers, taken);
    }

    private static boolean rewrites(UpdateRow values, ByteBuffer tid) {
        return values.newest != Long.MIN_VALUE && values.newest - WriteTimestamps.ofSerialized(tid) / 10 > REWRITE_AFTER_MICROS;
    }

    /** Adds the entries of one version to {@code out}; returns the marker flags it calls for. */
    private int index(CompiledTable table, UpdateRow values, ByteBuffer tid, long nowInSec, List<Mutation> out,
            RowsMutations.VersionedRecord recorded) {
        TablePlan.Derivation derivation = table.plan.derive(values);
        long ts = WriteTimestamps.ofSerialized(tid);
        List<TablePlan.Entry> entries = derivation.entries();
        for (TablePlan.Entry entry : entries) {
            out.add(EntryMutations.versioned(table, table.plan.indexes().indexOf(entry.index()), entry, tid, ts, nowInSec, values));
            recorded.keys.add(new RowsMutations.RecordedKey(RowsLayout.element(entry.index().index().name(), entry.key()), ts, entry.index().perVersion()));
        }
        metrics.entries.add(entries.size());
        if (derivation.keysKnown() && values.newest != Long.MIN_VALUE) {
            // a second write of this version at another timestamp shows (RowsLayout): whole, its projections tie with the
            // first's; with every key attribute, it may move a per-version entry, which no recorded _keys element shows
            recorded.wrote(ts, values.newest);
        }
        int flags = metrics.oversized(table, derivation, values);
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

    /**
     * Markers: one per versioned row, when some index needs a sibling diff or something was left
     * undone, and one for the whole partition after a partition or range delete. A plain row goes to
     * the in-node maintainer ({@code node}, null for none) when it takes it: its marker to {@code taken}.
     */
    private List<Mutation> markers(CompiledTable table, ByteBuffer partitionKey, Map<List<ByteBuffer>, RowGroup> groups, int partitionFlags,
            long nowInSec, RowFeed node, List<Marker> taken) {
        boolean always = table.plan.hasEverIndex() || partitionFlags != 0;
        List<Mutation> markers = new ArrayList<>(Math.max(1, groups.size()));
        if (!table.hasQueue()) {
            if (always || groups.values().stream().anyMatch(g -> g.flags != 0)) {
                metrics.noQueue(table);
            }
            return markers;
        }
        if ((partitionFlags & (QueueLayout.FLAG_DELETE | QueueLayout.FLAG_PARTIAL)) != 0) {
            // a partition or range deletion, or an update we failed to read: the whole partition
            markers.add(QueueMutations.forService(table, partitionKey, List.of(), null, null, partitionFlags, nowInSec));
        }
        for (Map.Entry<List<ByteBuffer>, RowGroup> e : groups.entrySet()) {
            RowGroup g = e.getValue();
            int flags = g.flags | (partitionFlags & QueueLayout.FLAG_CAS);
            if (!always && flags == 0) {
                continue;
            }
            Marker took = node == null || flags != 0 ? null
                    : node.offer(Maintainer.newId(), table.keyspaceName(), table.name(), partitionKey, Composite.encode(e.getKey()), Tids.uuid(g.min), Tids.uuid(g.max), 0);
            if (node != null && flags == 0) {
                (took != null ? metrics.toMaintainer : metrics.maintainerRefused).increment();
            }
            if (took != null) {
                taken.add(took);
            } else {
                markers.add(QueueMutations.forService(table, partitionKey, e.getKey(), g.min, g.max, flags, nowInSec));
            }
        }
        if ((partitionFlags & QueueLayout.FLAG_DELETE) != 0 || groups.values().stream().anyMatch(g -> (g.flags & QueueLayout.FLAG_DELETE) != 0)) {
            metrics.deletes.increment();
        }
        return markers;
    }
}
