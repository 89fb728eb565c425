package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The in-memory twin of the queue reads ({@link QueueStore}): partitions (shard, bucket) of
 * markers in timeuuid order ({@link Tids#compare}, Cassandra's), each visible from the moment a
 * test adds it (so a marker whose id is older than others can become visible after them, as in
 * Cassandra) until the table's TTL has passed since.
 */
public final class MemoryQueue implements QueueReads {
    private final Clock clock;
    private final QueueLayout.Settings settings;
    private final Map<List<Long>, TreeMap<UUID, Stored>> partitions = new HashMap<>();

    private record Stored(Marker marker, long expiresAtMillis) {}

    public MemoryQueue(Clock clock, QueueLayout.Settings settings) {
        this.clock = clock;
        this.settings = settings;
    }

    /** The trigger's write: into the marker's shard and the bucket of its id's time. */
    public synchronized void add(Marker m) {
        int shard = QueueLayout.shardOf(m.keyspace(), m.table(), m.pk(), settings.shards());
        long bucket = settings.bucketOf(Tids.instant(m.id()).toEpochMilli());
        partitions.computeIfAbsent(List.of((long) shard, bucket), k -> new TreeMap<>(Tids::compare))
                .put(m.id(), new Stored(m, clock.millis() + settings.ttlSeconds() * 1000L));
    }

    @Override
    public QueueLayout.Settings settings() {
        return settings;
    }

    @Override
    public synchronized List<Marker> read(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        List<Marker> out = new ArrayList<>();
        for (Stored s : live(shard, bucket, afterId)) {
            if (out.size() == READ_LIMIT || (upTo != null && Tids.compare(s.marker().id(), upTo) > 0)) {
                break;
            }
            out.add(s.marker());
        }
        return out;
    }

    @Override
    public synchronized List<UUID> readIds(int shard, long bucket, UUID afterId, ConsistencyLevel cl) {
        List<UUID> out = new ArrayList<>();
        for (Stored s : live(shard, bucket, afterId)) {
            if (out.size() == READ_LIMIT) {
                break;
            }
            out.add(s.marker().id());
        }
        return out;
    }

    @Override
    public synchronized List<Marker> readByIds(int shard, long bucket, List<UUID> ids, ConsistencyLevel cl) {
        if (ids.size() > 100) {
            throw new IllegalArgumentException(ids.size() + " marker ids asked for, at most 100 per query");
        }
        List<Marker> out = new ArrayList<>();
        for (Stored s : live(shard, bucket, null)) {
            if (ids.contains(s.marker().id())) {
                out.add(s.marker());
            }
        }
        return out;
    }

    private List<Stored> live(int shard, long bucket, UUID afterId) {
        TreeMap<UUID, Stored> p = partitions.getOrDefault(List.of((long) shard, bucket), new TreeMap<>(Tids::compare));
        var tail = afterId == null ? p : p.tailMap(afterId, false);
        return tail.values().stream().filter(s -> s.expiresAtMillis() > clock.millis()).toList();
    }
}
