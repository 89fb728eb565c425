package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.repair.store.Checkpoints;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.repair.store.Instances;
import io.cassandragsi.repair.store.Leases;
import io.cassandragsi.repair.store.NodeProgressTable;
import io.cassandragsi.repair.store.QueueReads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the shard workers this instance holds a lease for. Every instance heartbeats; each aims at
 * its fair share (shards / live instances), takes free shards up to it, releases what it holds
 * beyond it, and renews its leases well within their TTL. A worker whose lease cannot be renewed
 * stops at once; a crashed instance's leases expire and its shards are taken over from their
 * checkpoints. Two instances on one shard for a moment do no harm: every write is idempotent.
 */
public final class QueueConsumer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(QueueConsumer.class);
    static final int LEASE_TTL_SECONDS = 10;
    static final Duration LEASE_EVERY = Duration.ofSeconds(2);

    private final QueueReads queue;
    /** The queue as this instance's shard workers read it: one read per poll tick for all of them. */
    private final TickReads tickReads;
    private final Checkpoints checkpoints;
    private final Leases leases;
    private final Instances instances;
    private final GroupRepairs repairs;
    private final String owner;
    private final Duration pollInterval;
    private final ConsistencyLevel cl;
    private final Clock clock;
    private final Instant started;
    public final QueueMetrics metrics;
    private final Map<Integer, ShardWorker> workers = new ConcurrentHashMap<>();
    /**
     * Workers told to stop whose step has not ended yet, by shard: their shard is not taken again
     * until they are gone, so that one instance never repairs a row in two workers at once (the
     * unversioned reconcile's forgetting of keys relies on it, docs/design.md section 6.7).
     */
    private final Map<Integer, ShardWorker> stopping = new ConcurrentHashMap<>();
    private final ExecutorService workerThreads;
    private final ScheduledExecutorService leaseRounds;
    private final Duration clockSkew;
    private volatile Map<Integer, Instant> publishedDone = Map.of();
    private volatile Map<Integer, String> owners = Map.of();
    /** Sweeps of in-node maintainer epochs that stopped (null: not swept, a unit test's consumer). */
    private final NodeSweeps nodeSweeps;

    public QueueConsumer(QueueReads queue, Checkpoints checkpoints, Leases leases, Instances instances, NodeProgressTable progress,
            Repairer repairer, IndexWriter writer, String owner, Duration pollInterval, ConsistencyLevel cl, int repairThreads, Duration clockSkew) {
        this(queue, checkpoints, leases, instances, progress == null ? null : NodeSweeps.of(progress, cl), new QueueMetrics(),
                metrics -> new RepairerGroups(repairer, writer, Executors.newFixedThreadPool(repairThreads, daemon("gsi-repair")), metrics),
                owner, pollInterval, cl, clockSkew, Clock.systemUTC(), Executors.newCachedThreadPool(daemon("gsi-shard")),
                Executors.newSingleThreadScheduledExecutor(daemon("gsi-leases")));
    }

    /** With the repairs, the clock and the threads given (tests: a fake, a manual clock, executors that run nothing). */
    QueueConsumer(QueueReads queue, Checkpoints checkpoints, Leases leases, Instances instances, NodeSweeps.Progress progress,
            QueueMetrics metrics, Function<QueueMetrics, GroupRepairs> repairs, String owner, Duration pollInterval, ConsistencyLevel cl,
            Duration clockSkew, Clock clock, ExecutorService workerThreads, ScheduledExecutorService leaseRounds) {
        this.clockSkew = clockSkew;
        this.queue = queue;
        this.checkpoints = checkpoints;
        this.leases = leases;
        this.instances = instances;
        this.metrics = metrics;
        this.repairs = repairs.apply(metrics);
        this.owner = owner;
        this.pollInterval = pollInterval;
        this.cl = cl;
        this.clock = clock;
        this.started = clock.instant();
        this.workerThreads = workerThreads;
        this.leaseRounds = leaseRounds;
        this.nodeSweeps = progress == null ? null : new NodeSweeps(progress, owner, queue.settings().shards());
        this.tickReads = new TickReads(queue, pollInterval.toMillis(), ShardWorker.SETTLE.toMillis(), this::positions);
    }

    /** The fast-path positions of this instance's workers, by shard. */
    private Map<Integer, TickReads.Position> positions() {
        Map<Integer, TickReads.Position> out = new java.util.HashMap<>();
        workers.forEach((shard, w) -> out.put(shard, w.position()));
        return out;
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    public void start() {
        if (nodeSweeps != null) {
            nodeSweeps.refresh(clock::millis); // before the first lease round looks for epochs to sweep
            leaseRounds.scheduleWithFixedDelay(() -> nodeSweeps.refresh(clock::millis), NodeSweeps.READ_EVERY.toMillis(),
                    NodeSweeps.READ_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        }
        leaseRounds.scheduleWithFixedDelay(this::balance, 0, LEASE_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    public String owner() {
        return owner;
    }

    /** The worker of a shard this instance works, or null. */
    ShardWorker worker(int shard) {
        return workers.get(shard);
    }

    /** Shards this instance works now. */
    public java.util.Set<Integer> shards() {
        return java.util.Set.copyOf(workers.keySet());
    }

    /** Milliseconds since the oldest marker read and not finished, 0 when idle. */
    public long lagMillis() {
        long oldest = workers.values().stream().mapToLong(w -> w.oldestUnfinished).filter(v -> v > 0).min().orElse(0);
        return oldest == 0 ? 0 : Math.max(0, clock.millis() - oldest);
    }

    /** Marker groups waiting for a retry, in every table. */
    public int pending() {
        return workers.values().stream().mapToInt(ShardWorker::pendingCount).sum();
    }

    /** Marker groups waiting for a retry by table ({@code keyspace.table}), in name order. */
    public java.util.SortedMap<String, Integer> pendingByTable() {
        java.util.SortedMap<String, Integer> byTable = new java.util.TreeMap<>();
        workers.values().forEach(w -> w.pendingByTable.forEach((table, n) -> byTable.merge(table, n, Integer::sum)));
        return byTable;
    }

    /**
     * The safe time now (docs/design.md section 7.10): from the shards this instance works, the
     * progress other instances recorded for theirs, and the in-node maintainers' progress records.
     */
    public SafeTime.Reading safeTime() {
        int shards = queue.settings().shards();
        Map<Integer, Instant> published = publishedDone;
        Map<Integer, String> held = owners;
        List<SafeTime.Source> sources = new java.util.ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            ShardWorker w = workers.get(shard);
            if (w != null && w.doneBefore != SafeTime.UNKNOWN) {
                sources.add(new SafeTime.Source("shard " + shard, w.doneBefore, "worked here"));
            } else if (w != null) { // taken over a moment ago, not polled yet: its previous owner's last record
                Instant at = published.get(shard);
                sources.add(new SafeTime.Source("shard " + shard, at == null ? SafeTime.UNKNOWN : at.toEpochMilli(), "starting here"));
            } else {
                Instant at = published.get(shard);
                String owner = held.get(shard);
                sources.add(new SafeTime.Source("shard " + shard, at == null ? SafeTime.UNKNOWN : at.toEpochMilli(),
                        owner == null ? "no owner" : "worked by " + owner));
            }
        }
        SafeTime.Reading r = SafeTime.of(sources, nodeSweeps == null ? List.of() : nodeSweeps.snapshots(),
                nodeSweeps == null ? Map.of() : nodeSweeps.sweepProgress(), clockSkew.toMillis(), clock.millis(), nodeSweeps != null);
        if (nodeSweeps != null && r.service() != SafeTime.UNKNOWN) {
            // the records before the one the safe time uses, with 10 s to spare: a shard taken over may report older progress
            nodeSweeps.prune(r.service() - 10_000);
        }
        return r;
    }

    /** Who holds each shard's lease, as of the last lease round (this instance's own shards included). */
    public Map<Integer, String> owners() {
        Map<Integer, String> out = new java.util.TreeMap<>(owners);
        workers.keySet().forEach(shard -> out.put(shard, owner));
        return out;
    }

    /** The shards nobody holds a lease of, as of the last lease round. */
    public List<Integer> unownedShards() {
        Map<Integer, String> held = owners();
        List<Integer> out = new java.util.ArrayList<>();
        for (int shard = 0; shard < queue.settings().shards(); shard++) {
            if (!held.containsKey(shard)) {
                out.add(shard);
            }
        }
        return out;
    }

    /** What other instances recorded: the progress of their shards, and who holds which lease (not needed while this one works every shard). */
    private void readOthers(int shards) {
        if (workers.size() >= shards && workers.values().stream().allMatch(w -> w.doneBefore != SafeTime.UNKNOWN)) {
            owners = Map.of();
            return;
        }
        publishedDone = checkpoints.done();
        owners = leases.owners();
    }

    /** One lease round (every {@link #LEASE_EVERY}): heartbeat, renew, release beyond the fair share, take free shards up to it. */
    void balance() {
        try {
            instances.heartbeat(owner, started, LEASE_TTL_SECONDS);
            int shards = queue.settings().shards();
            int target = (shards + instances.liveInstances() - 1) / instances.liveInstances();
            for (Integer shard : workers.keySet()) {
                if (!leases.renew(shard, owner, LEASE_TTL_SECONDS)) {
                    LOG.warn("lost the lease of shard {}; stopping its worker", shard);
                    stopWorker(shard, false);
                }
            }
            if (workers.size() > target) {
                for (Integer shard : workers.keySet()) {
                    if (workers.size() <= target) {
                        break;
                    }
                    stopWorker(shard, true);
                }
            }
            stopping.values().removeIf(ShardWorker::stepsNoMore);
            for (int shard = 0; shard < shards && workers.size() < target; shard++) {
                if (!workers.containsKey(shard) && !stopping.containsKey(shard) && leases.acquire(shard, owner, LEASE_TTL_SECONDS)) {
                    startWorker(shard);
                }
            }
            sweepNodeEpochs();
            readOthers(shards);
        } catch (RuntimeException e) {
            LOG.warn("lease round failed: {}", ShardWorker.rootMessage(e));
        }
    }

    /**
     * The sweeps of stopped in-node maintainer epochs whose owner shard this instance holds
     * ({@link NodeSweeps}): started here, dropped when the owner shard's lease is gone.
     */
    private void sweepNodeEpochs() {
        if (nodeSweeps == null) {
            return;
        }
        Set<Integer> owned = Set.copyOf(workers.keySet());
        for (int epoch : nodeSweeps.sweeping()) {
            if (!owned.contains(nodeSweeps.ownerShard(epoch))) {
                nodeSweeps.drop(epoch);
            }
        }
        nodeSweeps.round(owned, clock.millis(), shard -> new ShardWorker(shard, queue, nodeSweeps.checkpoints(), repairs, metrics, owner, cl),
                w -> workerThreads.submit(() -> {
                    run(w, () -> nodeSweeps.finished(w, clock.millis()));
                    // only a sweep that reached its end is recorded as done: one stopped by close() or an interrupt is resumed later
                    if (w.running && nodeSweeps.finished(w, clock.millis())) {
                        nodeSweeps.close(w);
                    }
                }));
    }

    /**
     * Whether this instance holds the lease of the service shard that owns an epoch's sweep, and so
     * runs the targeted repair of that epoch's lost CDC segments (docs/design.md section 7.11).
     */
    public boolean ownsEpoch(int epochShard) {
        return nodeSweeps != null && workers.containsKey(nodeSweeps.ownerShard(epochShard));
    }

    /** The in-node maintainer epochs as last read (status), empty when this consumer does not sweep them. */
    public List<io.cassandragsi.repair.store.NodeProgressTable.Epoch> nodeEpochs() {
        return nodeSweeps == null ? List.of() : nodeSweeps.epochs();
    }

    /** Epochs this instance is sweeping now. */
    public Set<Integer> sweepingEpochs() {
        return nodeSweeps == null ? Set.of() : nodeSweeps.sweeping();
    }

    private void startWorker(int shard) {
        ShardWorker w = new ShardWorker(shard, tickReads, checkpoints, repairs, metrics, owner, cl);
        Instant checkpoint = checkpoints.checkpoint(shard);
        if (checkpoint == null) {
            // schema apply writes every shard's first checkpoint with the queue: without one, read all the queue keeps
            checkpoint = clock.instant().minusSeconds(queue.settings().ttlSeconds());
            metrics.shardsWithoutCheckpoint.increment();
            LOG.warn("shard {} has no checkpoint; reading it from {}, as far back as the queue keeps markers (run ./gsi schema apply"
                    + " once to record the first checkpoints of a new queue)", shard, checkpoint);
        }
        w.resumeFrom(checkpoint);
        workers.put(shard, w);
        workerThreads.submit(() -> run(w, () -> false));
        LOG.debug("took shard {}", shard);
    }

    private void stopWorker(int shard, boolean release) {
        ShardWorker w = workers.remove(shard);
        if (w != null) {
            stopping.put(shard, w);
            w.running = false;
        }
        if (release) {
            leases.release(shard, owner);
            LOG.info("released shard {} to balance the instances", shard);
        }
    }

    /**
     * Steps {@code w} once per poll interval (at once while it has a backlog) until it stops or
     * {@code done} says so. Idle workers poll on the same ticks of the clock (multiples of the
     * interval), not each on its own: the node then wakes once per tick for all of this instance's
     * shards, where unaligned polls wake its request and read threads once per shard, and each
     * wake-up, not the read, is what an idle poll costs it. A step after such a sleep is dated by
     * its tick, so that the workers share one read of it ({@link TickReads}; docs/design.md section
     * 7.2, docs/performance.md "The repair service when idle").
     */
    private void run(ShardWorker w, java.util.function.BooleanSupplier done) {
        boolean slept = false;
        while (w.running && !done.getAsBoolean()) {
            try {
                long now = clock.millis();
                // after a sleep to a tick, the step is dated by the tick: the workers' shared read of it (TickReads)
                Boolean backlog = w.stepWhileRunning(slept ? now - Math.floorMod(now, pollInterval.toMillis()) : now);
                if (backlog == null) {
                    return;
                }
                slept = !backlog;
                if (!backlog) {
                    Thread.sleep(untilNextTick(clock.millis(), pollInterval.toMillis())); // one poll per interval, however much each found
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                metrics.errors.increment();
                LOG.warn("shard {}: {}; retrying in a second", w.shard, ShardWorker.rootMessage(e));
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Milliseconds from {@code now} to the next multiple of {@code interval} (a whole interval when on one). */
    static long untilNextTick(long now, long interval) {
        return interval - Math.floorMod(now, interval);
    }

    @Override
    public void close() {
        leaseRounds.shutdownNow();
        if (nodeSweeps != null) {
            nodeSweeps.sweeping().forEach(nodeSweeps::drop);
        }
        for (Integer shard : workers.keySet()) {
            ShardWorker w = workers.get(shard);
            if (w != null) {
                w.running = false;
                try {
                    w.checkpoint(clock.millis());
                    if (w.doneBefore != SafeTime.UNKNOWN) {
                        checkpoints.done(shard, Instant.ofEpochMilli(w.doneBefore), owner);
                    }
                    leases.release(shard, owner);
                } catch (RuntimeException e) {
                    LOG.debug("release on close failed", e);
                }
            }
        }
        workers.clear();
        try {
            instances.leave(owner);
        } catch (RuntimeException e) {
            LOG.debug("leaving the instances table failed (the row's TTL ends it)", e);
        }
        workerThreads.shutdownNow();
        repairs.close();
    }
}
