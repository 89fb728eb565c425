package io.cassandragsi.repair.queue;

import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.Outcome;
import java.util.List;

/**
 * What a {@link ShardWorker} hands its marker groups to: {@link RepairerGroups} over the {@link
 * Repairer} in the service, a fake in the consumer's unit tests.
 */
interface GroupRepairs extends AutoCloseable {
    /**
     * One attempt at each group; returns each group's outcome in order, null where the attempt
     * failed (Cassandra unavailable, a timeout, its index writes refused): the worker retries it.
     *
     * @param first true for markers read now (their reads batched and the groups repaired side by
     *     side), false for retries
     */
    Outcome[] repair(int shard, List<MarkerGroup> groups, boolean first);

    /** Counts a finished group in the per-table counters. */
    void counted(MarkerGroup g);

    @Override
    default void close() {}
}
