package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.Checkpoints;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sweeps the queue shards of in-node maintainer epochs that stopped (docs/design.md section 7): an
 * epoch whose heartbeat is older than {@link #SILENT_AFTER} (kill -9, a frozen node) or that
 * retired (drain, shutdown, {@code nodetool reloadtriggers}) has its markers processed by this
 * service from where the node's progress record says it stopped, like a shard of its own, up to
 * {@link #LATE_MARKERS} past its last heartbeat (markers a batchlog replay writes late); then the
 * epoch is closed. Each epoch is swept by the instance holding the lease of service shard
 * {@code epoch shard mod shards}, so instances share them as they share shards.
 */
public final class NodeSweeps {
    private static final Logger LOG = LoggerFactory.getLogger(NodeSweeps.class);
    /** Silent this long, a maintainer is taken for stopped (the rule the nodes' CDC backstops share). */
    static final Duration SILENT_AFTER = Duration.ofMillis(io.cassandragsi.schema.NodeProgressLayout.STOPPED_AFTER_MILLIS);
    /** How long after an epoch's last heartbeat its markers may still become visible (batchlog replay of its last batches). */
    static final Duration LATE_MARKERS = Duration.ofSeconds(60);

    /** What an epoch sweep reads and records through. */
    interface Progress {
        List<Epoch> all();

        void swept(int shard, UUID sweptTo, String owner);
    }

    /** One epoch being swept: its worker and where its sweep ends. */
    record Sweep(ShardWorker worker, long endMillis) {}

    private final Progress progress;
    private final String owner;
    private final int serviceShards;
    private final Map<Integer, Sweep> sweeping = new ConcurrentHashMap<>();
    private volatile List<Epoch> lastRead = List.of();
    /**
     * The reads of the progress records, with when each was read, oldest first: the safe time uses
     * the newest one read at or before the service shards' safe time ({@link #prune} drops those
     * before it), at most {@link #SNAPSHOTS_KEPT} (10 minutes of reads).
     */
    private final java.util.Deque<SafeTime.Snapshot> snapshots = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private static final int SNAPSHOTS_KEPT = 2_400;

    NodeSweeps(Progress progress, String owner, int serviceShards) {
        this.progress = progress;
        this.owner = owner;
        this.serviceShards = serviceShards;
    }

    /** The service shard whose lease owns an epoch's sweep. */
    int ownerShard(int epochShard) {
        return Math.floorMod(epochShard, serviceShards);
    }

    /** Where an epoch's sweep ends: {@link #LATE_MARKERS} after its last heartbeat. */
    static long endMillis(Epoch e) {
        return e.heartbeat().toEpochMilli() + LATE_MARKERS.toMillis();
    }

    /** Whether the epoch's maintainer stopped as of {@code nowMillis}: it retired, or is silent for {@link #SILENT_AFTER}. */
    public static boolean stopped(Epoch e, long nowMillis) {
        return e.retired() || nowMillis - e.heartbeat().toEpochMilli() > SILENT_AFTER.toMillis();
    }

    /** Whether the epoch is swept to its end ({@link #endMillis}): nothing of it is left to do. */
    public static boolean swept(Epoch e) {
        return e.sweptTo() != null && millis(e.sweptTo()) >= endMillis(e);
    }

    /** True when the epoch stopped and its sweep has not reached its end. */
    static boolean needsSweep(Epoch e, long nowMillis) {
        return stopped(e, nowMillis) && !swept(e);
    }

    /**
     * One round (with the lease round): from the progress records last read, starts a sweep, through
     * {@code start}, for every stopped epoch this instance owns that is not swept yet. The caller
     * runs each started worker until {@link #finished} and then calls {@link #close}.
     */
    void round(Set<Integer> ownedServiceShards, long nowMillis, java.util.function.Function<Integer, ShardWorker> newWorker,
            Consumer<ShardWorker> start) {
        for (Epoch e : lastRead) {
            if (!needsSweep(e, nowMillis) || !ownedServiceShards.contains(ownerShard(e.shard())) || sweeping.containsKey(e.shard())) {
                continue;
            }
            UUID from = e.sweptTo() != null && Tids.compare(e.sweptTo(), e.doneBefore()) > 0 ? e.sweptTo() : e.doneBefore();
            ShardWorker w = newWorker.apply(e.shard());
            w.resumeFrom(Tids.instant(from));
            sweeping.put(e.shard(), new Sweep(w, endMillis(e)));
            LOG.info("node {} maintainer epoch {} {}; sweeping its markers from {}", e.node(), e.shard(),
                    e.retired() ? "retired" : "is silent since " + e.heartbeat(), Tids.instant(from));
            start.accept(w);
        }
    }

    /** How often the progress records are read: for the sweeps, and for the safe time of tables in node mode. */
    static final Duration READ_EVERY = Duration.ofMillis(250);

    /**
     * Reads the progress records (every {@link #READ_EVERY}) and keeps them with the moment after
     * they were read ({@code clock}): a record's hand-offs were visible by then (docs/design.md
     * section 7.10). A failed read keeps the last records, which then hold the safe time back.
     */
    void refresh(java.util.function.LongSupplier clock) {
        List<Epoch> epochs;
        try {
            epochs = progress.all();
        } catch (RuntimeException e) {
            LOG.debug("cannot read the in-node maintainers' progress: {}", ShardWorker.rootMessage(e));
            return;
        }
        lastRead = epochs;
        snapshots.addLast(new SafeTime.Snapshot(clock.getAsLong(), List.copyOf(epochs)));
        while (snapshots.size() > SNAPSHOTS_KEPT) {
            snapshots.pollFirst();
        }
    }

    /** True when the worker's epoch is swept to its end (and the sweeps covered markers that land late). */
    boolean finished(ShardWorker w, long nowMillis) {
        Sweep s = sweeping.get(w.shard);
        return s == null || (nowMillis >= s.endMillis() + ShardWorker.GRACE.toMillis() + ShardWorker.SWEEP_EVERY.toMillis()
                && w.caughtUpTo(s.endMillis()));
    }

    /** Records that a finished worker's epoch is swept to its end. */
    void close(ShardWorker w) {
        Sweep s = sweeping.remove(w.shard);
        if (s != null) {
            progress.swept(w.shard, Tids.maxAtTicks(s.endMillis() * 10_000L), owner);
            LOG.info("maintainer epoch {}: swept", w.shard);
        }
    }

    /** Stops sweeping an epoch (its owner shard's lease was lost): its worker ends, another instance takes over. */
    void drop(int epochShard) {
        Sweep s = sweeping.remove(epochShard);
        if (s != null) {
            s.worker().running = false;
        }
    }

    /** The progress records of the last few rounds, oldest first, each with the moment (after) it was read. */
    List<SafeTime.Snapshot> snapshots() {
        return List.copyOf(snapshots);
    }

    /** Drops the reads older than the newest one read at or before {@code serviceSafeMillis}: the safe time will not need them. */
    void prune(long serviceSafeMillis) {
        while (true) {
            java.util.Iterator<SafeTime.Snapshot> it = snapshots.iterator();
            if (!it.hasNext()) {
                return;
            }
            it.next();
            if (!it.hasNext() || it.next().readAt() > serviceSafeMillis) {
                return;
            }
            snapshots.pollFirst();
        }
    }

    /** How far each epoch swept here is done ({@link ShardWorker#doneBefore}), by epoch shard. */
    Map<Integer, Long> sweepProgress() {
        Map<Integer, Long> out = new java.util.HashMap<>();
        sweeping.forEach((shard, s) -> out.put(shard, s.worker().doneBefore));
        return out;
    }

    /** Epochs being swept now. */
    Set<Integer> sweeping() {
        return Set.copyOf(sweeping.keySet());
    }

    /** The epochs as last read, for status. */
    List<Epoch> epochs() {
        return new ArrayList<>(lastRead);
    }

    /** Checkpoints of an epoch's sweep: how far it got, in the epoch's progress record. */
    Checkpoints checkpoints() {
        return new Checkpoints() {
            @Override
            public Instant checkpoint(int shard) {
                return null; // a sweep resumes from the progress record (round)
            }

            @Override
            public void checkpoint(int shard, Instant resumeFrom, String by) {
                progress.swept(shard, Tids.minAtTicks(Tids.ticks(resumeFrom)), by);
            }

            @Override
            public void done(int shard, Instant doneBefore, String by) {
                // an epoch's sweep runs on the instance that owns it, which reads how far it is done from the worker itself
            }

            @Override
            public Map<Integer, Instant> done() {
                return Map.of();
            }
        };
    }

    private static long millis(UUID id) {
        return Tids.instant(id).toEpochMilli();
    }

    /** The progress table at a consistency level. */
    static Progress of(io.cassandragsi.repair.store.NodeProgressTable table, ConsistencyLevel cl) {
        return new Progress() {
            @Override
            public List<Epoch> all() {
                return table.all(cl);
            }

            @Override
            public void swept(int shard, UUID sweptTo, String by) {
                table.swept(shard, sweptTo, by, cl);
            }
        };
    }
}
