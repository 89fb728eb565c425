package io.cassandragsi.repair.queue;

import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.NextStep;
import io.cassandragsi.maintain.Outcome;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.store.Checkpoints;
import io.cassandragsi.repair.store.QueueReads;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one shard of the work queue, at least once.
 *
 * <p>Reads each marker once on the fast path: from its position (bucket, last id) up to ids
 * {@link #SETTLE} old, because markers become visible a little out of id order (the trigger takes
 * the id before the batch is applied, and concurrent batches finish in any order). Markers that
 * become visible later still are caught by two sweeps that process only what was not seen: every
 * {@link #SHORT_SWEEP_EVERY} over the last {@link #SHORT_SWEEP_SPAN}, and every
 * {@link #SWEEP_EVERY} over the last {@link #GRACE} (batchlog replay, clock skew). Markers later
 * still are found by a third, slower sweep ({@link #LATE_SWEEP_EVERY} over the last {@link
 * #LATE_SPAN}): it counts each bucket's markers and reads a bucket whole again when it has more than
 * when it was last swept (reprocessing a bucket is idempotent; late markers are rare). The durable
 * checkpoint trails the oldest unfinished marker by the grace period, so a restarted worker (after
 * kill -9 too) reprocesses a little and loses nothing: every write is idempotent.
 */
final class ShardWorker {
    private static final Logger LOG = LoggerFactory.getLogger(ShardWorker.class);
    static final Duration GRACE = Duration.ofSeconds(20);
    /** The fast path reads markers at least this old: almost all are visible by then. */
    static final Duration SETTLE = Duration.ofMillis(50);
    static final Duration SHORT_SWEEP_EVERY = Duration.ofSeconds(1);
    static final Duration SHORT_SWEEP_SPAN = Duration.ofSeconds(3);
    static final Duration SWEEP_EVERY = Duration.ofSeconds(10);
    static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(2);
    /** The slow sweep for markers visible later than {@link #GRACE}: how often, and how far back. */
    static final Duration LATE_SWEEP_EVERY = Duration.ofMinutes(5);
    static final Duration LATE_SPAN = Duration.ofMinutes(15);
    static final UUID BEFORE_ALL = Tids.minAtTicks(-WriteTimestamps.UUID_EPOCH_OFFSET);

    final int shard;
    private final QueueReads queue;
    private final Checkpoints checkpoints;
    private final GroupRepairs repairs;
    private final QueueMetrics metrics;
    private final String owner;
    private final QueueLayout.Settings settings;
    private final ConsistencyLevel cl;

    private long bucket;
    private UUID afterId;
    /** Where the next step's fast path starts, as the last step (or the resume) left it: read by other workers' shared reads. */
    private volatile TickReads.Position position;
    private final Map<UUID, Long> seen = new LinkedHashMap<>();
    private final List<Pending> pending = new ArrayList<>();
    private final Set<UUID> pendingIds = new HashSet<>();
    private long lastSweep;
    private long lastShortSweep;
    private long lastLateSweep;
    /** Per bucket older than the grace sweep's window: how many markers it had when last swept. */
    private final java.util.TreeMap<Long, Integer> bucketCounts = new java.util.TreeMap<>();
    private long resumedAt;
    private long lastCheckpoint;
    private Instant lastCheckpointValue;
    volatile boolean running = true;
    /** Held for each step run by the consumer's loop ({@link #stepWhileRunning}). */
    final java.util.concurrent.locks.ReentrantLock stepping = new java.util.concurrent.locks.ReentrantLock();
    /** Time (ms) of the oldest marker read and not yet finished, or 0. */
    volatile long oldestUnfinished;
    /**
     * Time (ms, the markers' clock) before which every marker of this shard that was visible when
     * the last poll began is finished, or 0 before the first poll: the shard's part of the safe time
     * (docs/design.md section 7.10). Read by other threads.
     */
    volatile long doneBefore;
    /** Groups waiting for a retry by {@code keyspace.table}, as of the end of the last poll: read by other threads (status). */
    volatile Map<String, Integer> pendingByTable = Map.of();

    /**
     * A group waiting for another attempt; {@code holdsSafeTime}: whether a write of it may have been
     * acknowledged and not yet seen by an attempt ({@link #holdsSafeTime}).
     */
    private record Pending(MarkerGroup group, long nextAttempt, int attempts, boolean holdsSafeTime) {}

    /**
     * A write is acknowledged, if ever, within this of its marker's id: Cassandra's default timeouts
     * (write request 2 s, for a logged batch its batchlog write too, for a conditional write the
     * contention timeout 1 s) with room to spare. A node whose timeouts are raised above it makes
     * the safe time run ahead of its slowest acknowledgements (docs/design.md section 7.10).
     */
    static final Duration ACKNOWLEDGED_WITHIN = Duration.ofSeconds(10);

    ShardWorker(int shard, QueueReads queue, Checkpoints checkpoints, GroupRepairs repairs, QueueMetrics metrics, String owner,
            ConsistencyLevel cl) {
        this.shard = shard;
        this.queue = queue;
        this.checkpoints = checkpoints;
        this.repairs = repairs;
        this.metrics = metrics;
        this.owner = owner;
        this.settings = queue.settings();
        this.cl = cl;
    }

    void resumeFrom(Instant from) {
        bucket = settings.bucketOf(from.toEpochMilli());
        afterId = Tids.minAtTicks(Tids.ticks(from));
        lastCheckpointValue = from;
        resumedAt = from.toEpochMilli();
        position = new TickReads.Position(bucket, afterId);
        LOG.debug("shard {}: resuming from {}", shard, from);
    }

    /**
     * {@link #step} unless told to stop ({@link #running} false), under the lock {@link
     * #stepsNoMore} tests; null when stopped.
     */
    Boolean stepWhileRunning(long nowMillis) {
        stepping.lock();
        try {
            return running ? step(nowMillis) : null;
        } finally {
            stepping.unlock();
        }
    }

    /** Where the next step's fast path starts ({@link TickReads}). */
    TickReads.Position position() {
        return position;
    }

    /** True once a worker told to stop is not in a step and will start none: its shard may be worked again. */
    boolean stepsNoMore() {
        if (running || !stepping.tryLock()) {
            return false;
        }
        stepping.unlock();
        return true;
    }

    /** One round; returns true when it found a backlog (so the caller polls again at once). */
    boolean step(long nowMillis) {
        List<Marker> batch = new ArrayList<>();
        long nowBucket = settings.bucketOf(nowMillis);
        UUID upTo = Tids.maxAtTicks((nowMillis - SETTLE.toMillis()) * 10_000L);
        boolean full = false;
        while (true) {
            int read = 0;
            while (true) {
                List<Marker> got = queue.read(shard, bucket, afterId, upTo, cl);
                batch.addAll(got);
                read += got.size();
                if (!got.isEmpty()) {
                    afterId = got.get(got.size() - 1).id();
                }
                if (got.size() < QueueReads.READ_LIMIT) {
                    break;
                }
                if (read >= 4 * QueueReads.READ_LIMIT) {
                    full = true;
                    break;
                }
            }
            if (full) {
                break;
            }
            if (bucket < nowBucket && settings.bucketOf(nowMillis - SETTLE.toMillis()) > bucket) {
                bucket++;
                afterId = BEFORE_ALL;
                continue;
            }
            break;
        }
        processNew(batch, nowMillis);
        if (nowMillis - lastSweep >= SWEEP_EVERY.toMillis()) {
            processNew(sweep(nowMillis - GRACE.toMillis() - SWEEP_EVERY.toMillis()), nowMillis);
            lastSweep = nowMillis;
            lastShortSweep = nowMillis;
        } else if (nowMillis - lastShortSweep >= SHORT_SWEEP_EVERY.toMillis()) {
            processNew(sweep(nowMillis - SHORT_SWEEP_SPAN.toMillis()), nowMillis);
            lastShortSweep = nowMillis;
        }
        if (nowMillis - lastLateSweep >= LATE_SWEEP_EVERY.toMillis()) {
            processNew(lateSweep(nowMillis), nowMillis);
            lastLateSweep = nowMillis;
        }
        retryDue(nowMillis);
        oldestUnfinished = pending.stream().mapToLong(p -> markerMillis(p.group.oldestMarker())).min().orElse(0);
        long oldestHolding = pending.stream().filter(Pending::holdsSafeTime).mapToLong(p -> markerMillis(p.group.oldestMarker())).min().orElse(0);
        if (!pending.isEmpty() || !pendingByTable.isEmpty()) {
            Map<String, Integer> byTable = new java.util.TreeMap<>();
            pending.forEach(p -> byTable.merge(p.group.keyspace() + "." + p.group.table(), 1, Integer::sum));
            pendingByTable = byTable;
        }
        // the fast path read every marker visible at nowMillis up to upTo, or up to afterId when it stopped at a backlog
        long covered = full ? markerMillis(afterId) - 1 : nowMillis - SETTLE.toMillis();
        doneBefore = oldestHolding > 0 ? Math.min(covered, oldestHolding) : covered;
        pruneSeen(nowMillis);
        if (nowMillis - lastCheckpoint >= CHECKPOINT_EVERY.toMillis()) {
            checkpoint(nowMillis);
            checkpoints.done(shard, Instant.ofEpochMilli(doneBefore), owner);
            lastCheckpoint = nowMillis;
        }
        position = new TickReads.Position(bucket, afterId);
        return full;
    }

    /** Processes the markers not seen before. */
    private void processNew(List<Marker> batch, long nowMillis) {
        batch.removeIf(m -> seen.containsKey(m.id()) || isPending(m.id()));
        if (batch.isEmpty()) {
            return;
        }
        metrics.markersRead.add(batch.size());
        oldestUnfinished = batch.stream().mapToLong(m -> markerMillis(m.id())).min().orElse(0);
        process(MarkerGroup.coalesce(batch), nowMillis);
    }

    /** Markers from {@code fromMillis} up to the fast path's position that were not seen yet. */
    private List<Marker> sweep(long fromMillis) {
        // never before where this worker resumed: what lies before was its predecessor's
        long from = Math.max(fromMillis, resumedAt);
        UUID fromId = Tids.minAtTicks(from * 10_000L);
        List<Marker> late = new ArrayList<>();
        for (long b = settings.bucketOf(from); b <= bucket; b++) {
            UUID after = b == settings.bucketOf(from) ? fromId : BEFORE_ALL;
            List<UUID> unseen = new ArrayList<>();
            int count = 0;
            while (true) {
                List<UUID> got = queue.readIds(shard, b, after, cl);
                count += got.size();
                for (UUID id : got) {
                    boolean beyondPosition = b == bucket && Tids.compare(id, afterId) > 0;
                    if (!beyondPosition && !seen.containsKey(id) && !isPending(id)) {
                        unseen.add(id);
                    }
                }
                if (got.size() < QueueReads.READ_LIMIT) {
                    break;
                }
                after = got.get(got.size() - 1);
            }
            if (b > settings.bucketOf(from) && b < bucket) {
                bucketCounts.put(b, count); // read whole: what the late sweep compares with later
            }
            // the markers themselves only for the ids not seen yet (few: most were read by the fast path)
            for (int i = 0; i < unseen.size(); i += 100) {
                late.addAll(queue.readByIds(shard, b, unseen.subList(i, Math.min(unseen.size(), i + 100)), cl));
            }
        }
        if (!late.isEmpty()) {
            metrics.lateMarkers.add(late.size());
            LOG.debug("shard {}: {} late marker(s) found by the sweep", shard, late.size());
        }
        return late;
    }

    /**
     * The markers of the buckets between {@link #LATE_SPAN} and the grace sweep's window ago that
     * have more markers than when they were last swept: read whole, to be processed again (the
     * seen set no longer reaches that far back). A bucket no sweep counted before (the worker
     * resumed after it) is only counted.
     */
    private List<Marker> lateSweep(long nowMillis) {
        long first = settings.bucketOf(Math.max(resumedAt, nowMillis - LATE_SPAN.toMillis()));
        long last = settings.bucketOf(nowMillis - GRACE.toMillis() - SWEEP_EVERY.toMillis()) - 1;
        bucketCounts.headMap(first).clear();
        List<Marker> late = new ArrayList<>();
        for (long b = first; b <= last; b++) {
            int count = 0;
            UUID after = BEFORE_ALL;
            while (true) {
                List<UUID> got = queue.readIds(shard, b, after, cl);
                count += got.size();
                if (got.size() < QueueReads.READ_LIMIT) {
                    break;
                }
                after = got.get(got.size() - 1);
            }
            Integer before = bucketCounts.put(b, count);
            if (before != null && count > before) {
                metrics.lateMarkers.add(count - before);
                LOG.info("shard {}: {} marker(s) became visible in bucket {} more than {} s after their id; reprocessing the bucket",
                        shard, count - before, b, GRACE.plus(SWEEP_EVERY).toSeconds());
                UUID from = BEFORE_ALL;
                while (true) {
                    List<Marker> got = queue.read(shard, b, from, null, cl);
                    late.addAll(got);
                    if (got.size() < QueueReads.READ_LIMIT) {
                        break;
                    }
                    from = got.get(got.size() - 1).id();
                }
            }
        }
        late.forEach(m -> seen.remove(m.id()));
        return late;
    }

    private boolean isPending(UUID id) {
        return pendingIds.contains(id);
    }

    /** A group's partition: groups of one partition never go in one call of {@link GroupRepairs#repair}. */
    private record PartitionOf(String keyspace, String table, java.nio.ByteBuffer pk) {
        static PartitionOf of(MarkerGroup g) {
            return new PartitionOf(g.keyspace(), g.table(), g.pk());
        }
    }

    /**
     * Repairs the groups ({@link GroupRepairs}), then records each outcome. A group whose partition
     * an earlier group of the list has waits for the next call: the groups of one call are repaired
     * side by side and their writes sent together at its end, so a second repair of the partition
     * in the same call would read what the first is about to change (an unversioned reconcile could
     * forget a key whose entry the first one is writing, docs/design.md section 6.7).
     */
    private void process(List<MarkerGroup> groups, long nowMillis) {
        Set<PartitionOf> taken = new HashSet<>();
        List<MarkerGroup> now = new ArrayList<>(groups.size());
        for (MarkerGroup g : groups) {
            if (taken.add(PartitionOf.of(g))) {
                now.add(g);
            } else {
                pending.add(new Pending(g, nowMillis, 0, true));
                pendingIds.addAll(g.markerIds());
            }
        }
        Outcome[] done = repairs.repair(shard, now, true);
        for (int i = 0; i < now.size(); i++) {
            finish(now.get(i), done[i], 0, nowMillis);
        }
    }

    /** Records an outcome ({@link NextStep}; null: the repair failed): another attempt later, or finished. */
    private void finish(MarkerGroup g, Outcome outcome, int attempts, long nowMillis) {
        long age = nowMillis - markerMillis(g.oldestMarker());
        NextStep next = NextStep.after(g, outcome, attempts, age);
        switch (next.kind()) {
            case AGAIN -> {
                pending.add(new Pending(next.group(), nowMillis + next.delayMillis(), attempts + 1, holdsSafeTime(g, outcome, nowMillis)));
                pendingIds.addAll(g.markerIds());
                return;
            }
            case DONE -> repairs.counted(g);
            case CAS_NOT_APPLIED -> metrics.casNotApplied.increment();
            case GAVE_UP -> {
                metrics.gaveUp.increment();
                LOG.warn("shard {}: gave up on {}.{} tids {}..{} after {} s: the version is not readable (deleted, or a write"
                        + " that never completed); ./gsi check finds any drift", shard, g.keyspace(), g.table(), g.tidMin(), g.tidMax(), age / 1000);
            }
            case UNKNOWN_TABLE -> {
                metrics.unknownTables.increment();
                LOG.warn("shard {}: dropped a marker of {}.{} after {} s: no index table of that table is known (its indexes were"
                        + " dropped, or the schema never reached this service)", shard, g.keyspace(), g.table(), age / 1000);
            }
        }
        metrics.markersDone.add(g.markerIds().size());
        for (UUID id : g.markerIds()) {
            seen.put(id, nowMillis);
        }
    }

    /**
     * Whether a group waiting for another attempt still holds the safe time back (docs/design.md
     * section 7.10): yes, unless the attempt just made (it began at or after {@code nowMillis})
     * completed, knew the table, and began {@link #ACKNOWLEDGED_WITHIN} after the group's newest
     * marker: every write of the group that was acknowledged at all was acknowledged by then, so
     * the attempt's reads saw it. (A conditional write is attempted again for 2 minutes, for a
     * proposal a later Paxos round completes; nobody was told such a write applied.)
     */
    static boolean holdsSafeTime(MarkerGroup g, Outcome outcome, long nowMillis) {
        if (outcome == null || outcome == Outcome.DROPPED) {
            return true;
        }
        long newest = g.markerIds().stream().mapToLong(ShardWorker::markerMillis).max().orElse(Long.MAX_VALUE);
        return nowMillis < newest + ACKNOWLEDGED_WITHIN.toMillis();
    }

    /** The groups due, at most one per partition (the others wait for the next step: {@link #process}), retried in one call. */
    private void retryDue(long nowMillis) {
        List<Pending> due = new ArrayList<>();
        Set<PartitionOf> taken = new HashSet<>();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext();) {
            Pending p = it.next();
            if (p.nextAttempt <= nowMillis && taken.add(PartitionOf.of(p.group))) {
                due.add(p);
                it.remove();
                pendingIds.removeAll(p.group.markerIds());
            }
        }
        if (due.isEmpty()) {
            return;
        }
        Outcome[] done = repairs.repair(shard, due.stream().map(Pending::group).toList(), false);
        for (int i = 0; i < due.size(); i++) {
            Pending p = due.get(i);
            finish(p.group, done[i], p.attempts, nowMillis);
        }
    }

    private void pruneSeen(long nowMillis) {
        long horizon = nowMillis - 3 * (GRACE.toMillis() + SWEEP_EVERY.toMillis());
        for (Iterator<Map.Entry<UUID, Long>> it = seen.entrySet().iterator(); it.hasNext();) {
            if (it.next().getValue() < horizon) {
                it.remove();
            } else {
                break;
            }
        }
    }

    /** Persists where a restarted worker resumes: the grace period before anything unfinished. */
    void checkpoint(long nowMillis) {
        long upTo = Math.min(nowMillis, markerMillis(afterId) <= 0 ? nowMillis : Math.max(markerMillis(afterId), bucket * settings.bucketSeconds() * 1000L));
        for (Pending p : pending) {
            upTo = Math.min(upTo, markerMillis(p.group.oldestMarker()));
        }
        Instant resume = Instant.ofEpochMilli(upTo - GRACE.toMillis() - SWEEP_EVERY.toMillis());
        if (lastCheckpointValue == null || resume.isAfter(lastCheckpointValue)) {
            checkpoints.checkpoint(shard, resume, owner);
            lastCheckpointValue = resume;
        }
    }

    int pendingCount() {
        return pending.size();
    }

    /** True when the fast path read past {@code endMillis} and nothing read is waiting for a retry (an epoch sweep's end). */
    boolean caughtUpTo(long endMillis) {
        return pending.isEmpty() && (bucket > settings.bucketOf(endMillis) || markerMillis(afterId) >= endMillis);
    }

    private static long markerMillis(UUID id) {
        return WriteTimestamps.toEpochMillis(WriteTimestamps.of(id));
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.toString();
    }
}
