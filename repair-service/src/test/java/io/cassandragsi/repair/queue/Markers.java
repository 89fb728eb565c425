package io.cassandragsi.repair.queue;

import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;

/** Markers for the consumer's tests: one versioned row each, with the id of a given moment. */
final class Markers {
    private static final AtomicLong SEQUENCE = new AtomicLong();

    private Markers() {}

    /** A marker written at {@code at} for row {@code key} of ks.t. */
    static Marker at(Instant at, String key) {
        long ticks = Tids.ticks(at);
        return new Marker(Tids.fromTicks(ticks, SEQUENCE.incrementAndGet()), "ks", "t", pk(key), ByteBuffer.allocate(0),
                Tids.fromTicks(ticks, 0), Tids.fromTicks(ticks, 0), 0);
    }

    /** A marker written at {@code at} that asks for row {@code key} of ks.t to be recomputed (a delete). */
    static Marker recompute(Instant at, String key) {
        Marker m = at(at, key);
        return new Marker(m.id(), m.keyspace(), m.table(), m.pk(), m.ck(), m.tidMin(), m.tidMax(), QueueLayout.FLAG_DELETE);
    }

    /** A row key whose markers land in {@code shard}. */
    static String keyIn(int shard, int shards) {
        for (int i = 0;; i++) {
            if (QueueLayout.shardOf("ks", "t", pk("row" + i), shards) == shard) {
                return "row" + i;
            }
        }
    }

    private static ByteBuffer pk(String key) {
        return ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
    }
}
