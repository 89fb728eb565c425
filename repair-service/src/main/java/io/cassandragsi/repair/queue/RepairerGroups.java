package io.cassandragsi.repair.queue;

import io.cassandragsi.maintain.TableKind;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.repair.store.IndexWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link GroupRepairs} over the {@link Repairer}: repairs the groups (first attempts side by side
 * on a pool, their reads prefetched together), then sends their index writes together ({@link
 * CoalescedWrites}); a group is repaired once its writes are.
 */
final class RepairerGroups implements GroupRepairs {
    private static final Logger LOG = LoggerFactory.getLogger(RepairerGroups.class);

    private final Repairer repairer;
    private final IndexWriter writer;
    private final ExecutorService pool;
    private final QueueMetrics metrics;

    RepairerGroups(Repairer repairer, IndexWriter writer, ExecutorService pool, QueueMetrics metrics) {
        this.repairer = repairer;
        this.writer = writer;
        this.pool = pool;
        this.metrics = metrics;
    }

    @Override
    public Outcome[] repair(int shard, List<MarkerGroup> groups, boolean first) {
        Map<MarkerGroup, TableKind.Prefetched> pre = first ? repairer.prefetch(groups) : Map.of();
        CoalescedWrites writes = new CoalescedWrites(writer);
        List<CompletableFuture<Outcome>> outcomes = new ArrayList<>(groups.size());
        for (int i = 0; i < groups.size(); i++) {
            MarkerGroup g = groups.get(i);
            TableKind.Prefetched p = pre.get(g);
            Repairer.Sink sink = writes.sink(i);
            outcomes.add(first ? CompletableFuture.supplyAsync(() -> repairer.repair(g, p, sink), pool) : attempt(() -> repairer.repair(g, null, sink)));
        }
        Outcome[] done = new Outcome[groups.size()];
        for (int i = 0; i < groups.size(); i++) {
            MarkerGroup g = groups.get(i);
            try {
                done[i] = outcomes.get(i).join();
            } catch (RuntimeException e) {
                metrics.errors.increment();
                if (first) {
                    LOG.warn("shard {}: repair of {}.{} failed, will retry: {}", shard, g.keyspace(), g.table(), ShardWorker.rootMessage(e));
                } else {
                    LOG.debug("shard {}: retry of {}.{} failed again: {}", shard, g.keyspace(), g.table(), ShardWorker.rootMessage(e));
                }
            }
        }
        Map<Integer, Throwable> failed = writes.send();
        for (int i = 0; i < groups.size(); i++) {
            MarkerGroup g = groups.get(i);
            if (done[i] != null && failed.containsKey(i)) {
                metrics.errors.increment();
                if (first) {
                    LOG.warn("shard {}: index writes of {}.{} failed, will retry: {}", shard, g.keyspace(), g.table(),
                            ShardWorker.rootMessage(failed.get(i)));
                } else {
                    LOG.debug("shard {}: index writes of a retry of {}.{} failed again: {}", shard, g.keyspace(), g.table(),
                            ShardWorker.rootMessage(failed.get(i)));
                }
                done[i] = null;
            }
        }
        return done;
    }

    /** A retry runs on the worker's own thread, one group after the other. */
    private static CompletableFuture<Outcome> attempt(java.util.function.Supplier<Outcome> repair) {
        try {
            return CompletableFuture.completedFuture(repair.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void counted(MarkerGroup g) {
        repairer.counted(g);
    }

    @Override
    public void close() {
        pool.shutdownNow();
    }
}
