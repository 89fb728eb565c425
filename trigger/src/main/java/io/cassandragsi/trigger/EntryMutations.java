package io.cassandragsi.trigger;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.DeletionTime;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;

/**
 * Index-table mutations (docs/design.md sections 3 and 4): the entries the trigger adds to a base
 * write's batch, and the writes of the repair core as the in-node maintainer sends them. Every cell
 * carries the timestamp the write-timestamp rule gives it, so that every write is idempotent.
 */
final class EntryMutations {
    private EntryMutations() {}

    /** One versioned entry for the trigger: every cell at TS(tid); {@code _deleted} left alone. */
    static Mutation versioned(CompiledTable table, int indexPosition, TablePlan.Entry entry, ByteBuffer tid, long ts, long nowInSec,
            UpdateRow values) {
        CompiledTable.Target target = table.targets[indexPosition];
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

    /**
     * One entry of an unversioned table for the trigger (docs/design.md section 4): every cell
     * mirrors the base cell it comes from, at ten times its timestamp and with its TTL; {@code _tid}
     * is the newest key cell's version and expires with the first key cell to expire. No row
     * marker and no {@code _deleted}: the entry lives as long as its {@code _tid}. Only for entries
     * the plan derived, whose key cells are all live.
     */
    static Mutation unversioned(CompiledTable table, int indexPosition, TablePlan.Entry entry, UpdateRow values) {
        CompiledTable.Target target = table.targets[indexPosition];
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

    /**
     * A write of the repair core as a mutation, as the service's statements write it
     * ({@code IndexTable} in the repair service): an upsert is a row with its liveness, {@code _tid}
     * and the known projections at the version's TS ({@code _deleted} left alone); a mark sets
     * {@code _deleted}; a reconciled entry sets {@code _tid} and each projection at its own TS and TTL
     * (a null projection: a tombstone at that TS); a removal deletes the row.
     */
    static Mutation of(CompiledTable table, TablePlan.IndexWrite write, long nowInSec) {
        IndexPlan index = write.index();
        CompiledTable.Target target = table.targets[table.plan.indexes().indexOf(index)];
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clusteringOf(index, write.key()));
        if (write instanceof TablePlan.Upsert u) {
            builder.addPrimaryKeyLivenessInfo(LivenessInfo.create(u.timestamp(), nowInSec));
            TablePlan.Entry e = u.entry();
            for (int i = 0; i < e.proj().length; i++) {
                if (e.projKnown()[i]) {
                    builder.addCell(e.proj()[i] == null ? BufferCell.tombstone(target.proj()[i], u.timestamp(), nowInSec)
                            : BufferCell.live(target.proj()[i], u.timestamp(), e.proj()[i]));
                }
            }
            if (!index.perVersion()) {
                builder.addCell(BufferCell.live(target.tid(), u.timestamp(), u.tid()));
            }
        } else if (write instanceof TablePlan.MarkDeleted m) {
            builder.addCell(BufferCell.live(target.deleted(), m.timestamp(), m.deletedAt()));
        } else if (write instanceof TablePlan.Reconciled r) {
            if (r.tid() != null) {
                builder.addCell(cell(target.tid(), r.timestamp(), r.ttl(), r.tid(), nowInSec));
            }
            for (int i = 0; i < r.proj().length; i++) {
                TablePlan.ProjCell c = r.proj()[i];
                if (c != null) {
                    builder.addCell(c.value() == null ? BufferCell.tombstone(target.proj()[i], c.timestamp(), nowInSec)
                            : cell(target.proj()[i], c.timestamp(), c.ttl(), c.value(), nowInSec));
                }
            }
        } else {
            builder.addRowDeletion(Row.Deletion.regular(DeletionTime.build(write.timestamp(), nowInSec)));
        }
        return new Mutation(PartitionUpdate.singleRowUpdate(target.table(), partitionKeyOf(index, write.key()), builder.build()));
    }

    private static Cell<?> cell(ColumnMetadata column, long timestamp, int ttl, ByteBuffer value, long nowInSec) {
        return ttl > 0 ? BufferCell.expiring(column, timestamp, ttl, nowInSec, value) : BufferCell.live(column, timestamp, value);
    }

    static ByteBuffer partitionKeyOf(IndexPlan index, List<ByteBuffer> key) {
        int ps = index.partitionSize();
        return ps == 1 ? key.get(0) : Composite.encode(key.subList(0, ps));
    }

    static Clustering<?> clusteringOf(IndexPlan index, List<ByteBuffer> key) {
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
}
