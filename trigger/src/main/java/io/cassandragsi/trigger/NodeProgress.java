package io.cassandragsi.trigger;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.NodeProgressLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.FBUtilities;

/**
 * The progress record of one maintainer epoch ({@link NodeProgressLayout}, docs/design.md section
 * 7), written through {@code StorageProxy} at the write level, each cell with the queue's TTL.
 */
final class NodeProgress {
    private final TableMetadata table;
    private final int ttl;
    private final int shard;
    private final long startedMillis;
    private final ConsistencyLevel cl;
    private final ByteBuffer node;

    NodeProgress(TableMetadata table, int ttl, int shard, long startedMillis, ConsistencyLevel cl) {
        this.table = table;
        this.ttl = ttl;
        this.shard = shard;
        this.startedMillis = startedMillis;
        this.cl = cl;
        this.node = ByteBufferUtil.bytes(FBUtilities.getBroadcastAddressAndPort().getHostAddressAndPort());
    }

    /** Writes the heartbeat (now), {@code doneBefore}, the state and the counters; blocks until acknowledged or throws. */
    void write(UUID doneBefore, String state, MaintainerMetrics metrics) {
        write(doneBefore, state, metrics, "");
    }

    /** As {@link #write(UUID, String, MaintainerMetrics)}, with the CDC backstop's {@code cdc_lost_behind} (empty: nothing lost). */
    void write(UUID doneBefore, String state, MaintainerMetrics metrics, String cdcLostBehind) {
        // the table as it is now: schema apply may have added a column since the maintainer started
        TableMetadata latest = org.apache.cassandra.schema.Schema.instance.getTableMetadata(table.keyspace, table.name);
        TableMetadata t = latest == null ? table : latest;
        long nowMicros = FBUtilities.timestampMicros();
        long nowInSec = FBUtilities.nowInSeconds();
        Row.Builder b = BTreeRow.unsortedBuilder();
        b.newRow(org.apache.cassandra.db.Clustering.EMPTY);
        cell(t, b, NodeProgressLayout.C_NODE, node, nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_STARTED, ByteBufferUtil.bytes(startedMillis), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_HEARTBEAT, ByteBufferUtil.bytes(nowMicros / 1000), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_DONE_BEFORE, Tids.bytes(doneBefore), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_STATE, ByteBufferUtil.bytes(state), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_QUEUED, ByteBufferUtil.bytes(metrics.queued.sum()), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_DONE, ByteBufferUtil.bytes(metrics.done.sum()), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_HANDED_OFF, ByteBufferUtil.bytes(metrics.handedOff.sum()), nowMicros, nowInSec);
        cell(t, b, NodeProgressLayout.C_RETRIED, ByteBufferUtil.bytes(metrics.retried.sum()), nowMicros, nowInSec);
        ColumnMetadata lost = t.getColumn(ByteBufferUtil.bytes(NodeProgressLayout.C_CDC_LOST));
        if (lost != null) { // a table from before it lacks the column until schema apply adds it
            b.addCell(BufferCell.expiring(lost, nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(metrics.cdcSegmentsLost.sum())));
        }
        ColumnMetadata behind = t.getColumn(ByteBufferUtil.bytes(NodeProgressLayout.C_CDC_LOST_BEHIND));
        if (behind != null && !cdcLostBehind.isEmpty()) { // written once there is a loss, and then every time (the record's TTL)
            b.addCell(BufferCell.expiring(behind, nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(cdcLostBehind)));
        }
        Mutation m = new Mutation(PartitionUpdate.singleRowUpdate(t, ByteBufferUtil.bytes(shard), b.build()));
        NodeWrites.send(List.of(m), cl);
    }

    private void cell(TableMetadata t, Row.Builder b, String column, ByteBuffer value, long nowMicros, long nowInSec) {
        ColumnMetadata c = t.getColumn(ByteBufferUtil.bytes(column));
        if (c == null) {
            throw new IllegalStateException("progress table " + t + " lacks column " + column + ": run ./gsi schema apply");
        }
        b.addCell(BufferCell.expiring(c, nowMicros, ttl, nowInSec, value));
    }
}
