package io.cassandragsi.trigger;

import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.FBUtilities;
import org.apache.cassandra.utils.TimeUUID;

/**
 * Work-queue markers (docs/design.md sections 3 and 7): partition (shard, time bucket of the
 * marker's id), written once with the queue's TTL. The repair service's shards take markers by base
 * partition; an in-node maintainer's epoch has a shard of its own ({@code
 * NodeProgressLayout#FIRST_EPOCH_SHARD} and above).
 */
final class QueueMutations {
    /** Cassandra's largest TTL (20 years). */
    private static final long MAX_TTL_SECONDS = 630_720_000L;

    private QueueMutations() {}

    /** A new marker id: a timeuuid of now, unique on this node. */
    static ByteBuffer newId() {
        return ByteBuffer.wrap(TimeUUID.Generator.nextTimeUUIDAsBytes());
    }

    /** The repair service's shard of a base partition's markers. */
    static int serviceShard(CompiledTable table, ByteBuffer partitionKey) {
        return QueueLayout.shardOf(table.keyspaceName(), table.name(), partitionKey, table.queue.settings().shards());
    }

    /** A marker for the repair service, with a new id, for one row ({@code prefix}: its clustering before the tid) or, with null tids, the whole partition. */
    static Mutation forService(CompiledTable table, ByteBuffer partitionKey, List<ByteBuffer> prefix, ByteBuffer tidMin, ByteBuffer tidMax,
            int flags, long nowInSec) {
        return forService(table, partitionKey, prefix, tidMin, tidMax, flags, nowInSec, newId());
    }

    /** {@link #forService}, with the marker id {@code id} (the one the write's rows-table record names, docs/design.md section 6.6). */
    static Mutation forService(CompiledTable table, ByteBuffer partitionKey, List<ByteBuffer> prefix, ByteBuffer tidMin, ByteBuffer tidMax,
            int flags, long nowInSec, ByteBuffer id) {
        return marker(table, serviceShard(table, partitionKey), id, partitionKey, Composite.encode(prefix), tidMin, tidMax, flags, nowInSec, 0);
    }

    /** A marker with the given shard and id (an in-node maintainer's epoch, or a hand-off to the service). */
    static Mutation of(CompiledTable table, int shard, Marker m, long nowInSec) {
        return marker(table, shard, Tids.bytes(m.id()), m.pk(), m.ck(), m.tidMin() == null ? null : Tids.bytes(m.tidMin()),
                m.tidMax() == null ? null : Tids.bytes(m.tidMax()), m.flags(), nowInSec, 0);
    }

    /**
     * A marker for the repair service due at {@code atSeconds} (epoch seconds): its id and bucket
     * are of that moment, so the service reaches it then (an expiry), and it lives the queue's TTL
     * past it.
     */
    static Mutation due(CompiledTable table, ByteBuffer partitionKey, List<ByteBuffer> prefix, ByteBuffer tid, int flags, long nowInSec,
            long atSeconds) {
        long dueMicros = (atSeconds * 1000 + 1000) * 1000;
        ByteBuffer id = TimeUUID.atUnixMicrosWithLsb(dueMicros, ThreadLocalRandom.current().nextLong()).toBytes();
        long extra = Math.max(0, atSeconds + 1 - nowInSec);
        return marker(table, serviceShard(table, partitionKey), id, partitionKey, Composite.encode(prefix), tid, tid, flags, nowInSec, extra);
    }

    private static Mutation marker(CompiledTable table, int shard, ByteBuffer id, ByteBuffer partitionKey, ByteBuffer ck, ByteBuffer tidMin,
            ByteBuffer tidMax, int flags, long nowInSec, long extraTtlSeconds) {
        CompiledTable.Queue queue = table.queue;
        QueueLayout.Settings s = queue.settings();
        long nowMicros = FBUtilities.timestampMicros();
        long bucket = s.bucketOf(WriteTimestamps.toEpochMillis(WriteTimestamps.ofSerialized(id)));
        ByteBuffer queueKey = Composite.encode(List.of(ByteBufferUtil.bytes(shard), ByteBufferUtil.bytes(bucket)));
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(Clustering.make(id));
        int ttl = (int) Math.min(MAX_TTL_SECONDS, s.ttlSeconds() + extraTtlSeconds);
        builder.addPrimaryKeyLivenessInfo(LivenessInfo.expiring(nowMicros, ttl, nowInSec));
        builder.addCell(BufferCell.expiring(queue.keyspaceName(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(table.keyspaceName())));
        builder.addCell(BufferCell.expiring(queue.tableName(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(table.name())));
        builder.addCell(BufferCell.expiring(queue.pk(), nowMicros, ttl, nowInSec, partitionKey));
        builder.addCell(BufferCell.expiring(queue.ck(), nowMicros, ttl, nowInSec, ck));
        if (tidMin != null) {
            builder.addCell(BufferCell.expiring(queue.tidMin(), nowMicros, ttl, nowInSec, tidMin));
            builder.addCell(BufferCell.expiring(queue.tidMax(), nowMicros, ttl, nowInSec, tidMax));
        }
        builder.addCell(BufferCell.expiring(queue.flags(), nowMicros, ttl, nowInSec, ByteBufferUtil.bytes(flags)));
        return new Mutation(PartitionUpdate.singleRowUpdate(queue.table(), queueKey, builder.build()));
    }

    /** The marker of one row's versions in an update, as the maintainer takes it (id: the one it assigned). */
    static Marker marker(CompiledTable table, UUID id, ByteBuffer partitionKey, List<ByteBuffer> prefix, ByteBuffer tidMin, ByteBuffer tidMax,
            int flags) {
        return new Marker(id, table.keyspaceName(), table.name(), partitionKey, Composite.encode(prefix), Tids.uuid(tidMin), Tids.uuid(tidMax), flags);
    }
}
