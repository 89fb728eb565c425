package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The reads of the work queue that the consumer makes, by shard and time bucket, ids in timeuuid
 * order. {@link QueueStore} in Cassandra; an in-memory twin in the tests.
 */
public interface QueueReads {
    /** At most this many markers or ids per read. */
    int READ_LIMIT = 5000;

    /** The settings stored with the queue table (shards, bucket length, TTL). */
    QueueLayout.Settings settings();

    /**
     * Markers of one shard and bucket with an id after {@code afterId} and not after {@code upTo}
     * (null: no upper bound), in id order, at most {@link #READ_LIMIT}.
     */
    List<Marker> read(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl);

    /**
     * The markers of several shards of one bucket with an id after {@code afterId} and not after
     * {@code upTo}, by shard, each in id order; null when they were {@link #READ_LIMIT} or more
     * together (then read shard by shard). Here one {@link #read} per shard; {@link QueueStore}
     * reads them with one query.
     */
    default Map<Integer, List<Marker>> readShards(Set<Integer> shards, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        Map<Integer, List<Marker>> out = new HashMap<>();
        int total = 0;
        for (int shard : shards) {
            List<Marker> got = read(shard, bucket, afterId, upTo, cl);
            total += got.size();
            if (total >= READ_LIMIT) {
                return null;
            }
            out.put(shard, got);
        }
        return out;
    }

    /** The ids of the markers of one shard and bucket after {@code afterId}, in id order, at most {@link #READ_LIMIT}. */
    List<UUID> readIds(int shard, long bucket, UUID afterId, ConsistencyLevel cl);

    /** The markers with these ids in one shard and bucket (at most 100 ids), in id order; ids not found are left out. */
    List<Marker> readByIds(int shard, long bucket, List<UUID> ids, ConsistencyLevel cl);
}
