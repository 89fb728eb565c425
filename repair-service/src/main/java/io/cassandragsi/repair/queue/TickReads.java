package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.repair.store.QueueReads;
import io.cassandragsi.schema.QueueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The queue as one consumer's shard workers read it: one read per poll tick, shared (docs/design.md
 * section 7.2). The first worker to read a bucket at a tick reads the markers of every shard the
 * instance works at that bucket, with one query from the least position among them; the others
 * take their shard's part. A read at another moment (a step with a backlog), of a shard not among
 * them (the sweep of a stopped epoch), from before the shared read's start, or at a tick whose
 * shared read reached the limit, is the worker's own. The markers a worker takes are exactly those
 * its own read would have returned at the shared read's moment, which is at or after the tick its
 * step is dated by: what was visible at the tick was read.
 */
final class TickReads implements QueueReads {
    /** Where a worker's next read of the fast path starts. */
    record Position(long bucket, UUID afterId) {}

    private record Shared(long bucket, UUID upTo, ConsistencyLevel cl, UUID from, Map<Integer, List<Marker>> byShard) {
        boolean answers(long bucket, UUID upTo, ConsistencyLevel cl) {
            return this.bucket == bucket && this.upTo.equals(upTo) && this.cl == cl;
        }
    }

    private final QueueReads queue;
    private final long tickMillis;
    private final long settleMillis;
    private final Supplier<Map<Integer, Position>> positions;
    /** The shared read of the latest tick (guarded by this). */
    private Shared last;
    /** Reads of the fast path made, shared ones counted once (tests). */
    final java.util.concurrent.atomic.LongAdder queries = new java.util.concurrent.atomic.LongAdder();

    /**
     * @param tickMillis the poll interval: a read whose {@code upTo} is {@code settleMillis} before a
     *     multiple of it is a tick's
     * @param positions the workers' positions by shard, as their last step left them
     */
    TickReads(QueueReads queue, long tickMillis, long settleMillis, Supplier<Map<Integer, Position>> positions) {
        this.queue = queue;
        this.tickMillis = tickMillis;
        this.settleMillis = settleMillis;
        this.positions = positions;
    }

    @Override
    public QueueLayout.Settings settings() {
        return queue.settings();
    }

    @Override
    public List<Marker> read(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        if (upTo != null && onTick(upTo)) {
            Shared s = shared(shard, bucket, afterId, upTo, cl);
            List<Marker> mine = s.byShard() == null ? null : s.byShard().get(shard);
            if (mine != null && Tids.compare(afterId, s.from()) >= 0) {
                List<Marker> out = new ArrayList<>(mine.size());
                for (Marker m : mine) {
                    if (Tids.compare(m.id(), afterId) > 0) {
                        out.add(m);
                    }
                }
                return out;
            }
        }
        return own(shard, bucket, afterId, upTo, cl);
    }

    private List<Marker> own(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        queries.increment();
        return queue.read(shard, bucket, afterId, upTo, cl);
    }

    /** The tick's shared read of {@code bucket}, made now if no worker made it yet (the others wait for it). */
    private synchronized Shared shared(int shard, long bucket, UUID afterId, UUID upTo, ConsistencyLevel cl) {
        if (last != null && last.answers(bucket, upTo, cl)) {
            return last;
        }
        Set<Integer> shards = new TreeSet<>();
        shards.add(shard);
        UUID from = afterId;
        for (Map.Entry<Integer, Position> e : positions.get().entrySet()) {
            Position p = e.getValue();
            if (p == null || p.bucket() > bucket) {
                continue; // already past this bucket
            }
            UUID start = p.bucket() == bucket ? p.afterId() : ShardWorker.BEFORE_ALL;
            shards.add(e.getKey());
            if (Tids.compare(start, from) < 0) {
                from = start;
            }
        }
        queries.increment();
        last = new Shared(bucket, upTo, cl, from, queue.readShards(shards, bucket, from, upTo, cl));
        return last;
    }

    /** Whether {@code upTo} is a tick's: the settle before a multiple of the interval (ShardWorker's fast path). */
    private boolean onTick(UUID upTo) {
        long millis = WriteTimestamps.toEpochMillis(WriteTimestamps.of(upTo)) + settleMillis;
        return Math.floorMod(millis, tickMillis) == 0;
    }

    @Override
    public List<UUID> readIds(int shard, long bucket, UUID afterId, ConsistencyLevel cl) {
        return queue.readIds(shard, bucket, afterId, cl);
    }

    @Override
    public List<Marker> readByIds(int shard, long bucket, List<UUID> ids, ConsistencyLevel cl) {
        return queue.readByIds(shard, bucket, ids, cl);
    }
}
