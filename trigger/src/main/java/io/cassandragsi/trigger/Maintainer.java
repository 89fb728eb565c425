package io.cassandragsi.trigger;

import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.RepairCounters;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.service.StorageService;
import org.apache.cassandra.utils.TimeUUID;

/**
 * The in-node maintainer (docs/design.md section 7): for tables whose definition says {@code
 * "maintenance": "node"}, the coordinator that ran the trigger does the plain sibling diffs and
 * reconciles itself, on threads of its own, through Cassandra's read and write path at the
 * configured consistency level, and hands everything else to the repair service through the queue.
 *
 * <p>Durable without a write per marker: the marker in the write's batch stays the record, in a
 * queue shard of this maintainer's epoch; four times a second the maintainer records a heartbeat and
 * "every marker before X is done" ({@link NodeProgressLayout}). The repair service sweeps the
 * shard of an epoch that stopped (kill -9, drain, {@code nodetool reloadtriggers}) from there.
 *
 * <p>Bounded: at most {@link Settings#capacity} writes taken at once; the trigger's offer never
 * blocks, and a refused write goes to the repair service. One maintainer per class loader: it
 * starts in the background on the first offer, retires on drain and shutdown (a pre-shutdown hook)
 * and when {@code nodetool reloadtriggers} replaces the trigger's class loader (checked every
 * second), ending its threads so that nothing keeps the old class loader alive.
 */
final class Maintainer implements NodeFeed {
    enum State { STARTING, RUNNING, RETIRED }

    private static final Object LOCK = new Object();
    private static volatile Maintainer current;
    private static volatile long nextStartNanos;

    final Settings settings;
    final int shard;
    final long startedMillis = System.currentTimeMillis();
    final Function<String[], CompiledTable> tables;
    final BlockingQueue<MaintainerItem> queue;
    final DelayQueue<MaintainerItem> later = new DelayQueue<>();
    /** Taken and not finished, by marker id (Cassandra's timeuuid order): the oldest bounds the progress record. */
    final ConcurrentSkipListMap<UUID, MaintainerItem> unfinished = new ConcurrentSkipListMap<>(Tids::compare);
    final MaintainerMetrics metrics;
    /** Indexes an update read back from the commit log (the CDC backstop of eventual indexing). */
    private final CdcBackstop.Replayer replayer;
    private final String progressKeyspace;
    /** The CDC backstop of eventual indexing, or null when the node has no CDC (docs/design.md section 7.11). */
    private volatile CdcBackstop backstop;
    final RepairCounters counters = new RepairCounters();
    private final LongAdder offering = new LongAdder();
    private final NodeProgress progress;
    private final List<Thread> threads = new ArrayList<>();
    private final Runnable preShutdown = () -> retire("the node drains or shuts down");
    volatile State state = State.STARTING;

    /** The maintainer's settings: JVM system properties of the node ({@code -Dgsi.maintainer.threads=2}, ...). */
    record Settings(int threads, int capacity, long settleMillis, long handOffAfterMillis, ConsistencyLevel read, ConsistencyLevel serial,
            ConsistencyLevel write) {
        static Settings fromSystemProperties() {
            ConsistencyLevel cl = ConsistencyLevel.valueOf(System.getProperty("gsi.maintainer.consistency", "LOCAL_QUORUM"));
            ConsistencyLevel serial = ConsistencyLevel.valueOf(System.getProperty("gsi.maintainer.serial_consistency", "LOCAL_SERIAL"));
            return new Settings(Integer.getInteger("gsi.maintainer.threads", 2), Integer.getInteger("gsi.maintainer.queue", 20_000),
                    Long.getLong("gsi.maintainer.settle_ms", 10), Long.getLong("gsi.maintainer.handoff_after_ms", io.cassandragsi.maintain.NextTurn.HAND_OFF_AFTER_MILLIS), cl, serial, cl);
        }
    }

    private Maintainer(Settings settings, int shard, Function<String[], CompiledTable> tables, CompiledTable first, CdcBackstop.Replayer replayer) {
        this.replayer = replayer;
        this.progressKeyspace = first.progress.keyspace;
        this.settings = settings;
        this.shard = shard;
        this.tables = tables;
        this.queue = new ArrayBlockingQueue<>(settings.capacity());
        this.metrics = new MaintainerMetrics(shard, () -> unfinished.size(), this::lagMillis, () -> state.name().toLowerCase());
        this.metrics.counters = counters;
        this.progress = new NodeProgress(first.progress, first.queue.settings().ttlSeconds(), shard, startedMillis, settings.write());
    }

    /**
     * The maintainer the trigger offers plain writes to, or null while none runs (the trigger then
     * queues them for the repair service): starts one in the background when there is none. Never
     * blocks: the caller is a Cassandra request thread.
     */
    static NodeFeed feed(CompiledTable table, Function<String[], CompiledTable> tables, CdcBackstop.Replayer replayer) {
        Maintainer m = current;
        if (m != null && m.state == State.RUNNING) {
            return m;
        }
        if ((m == null || m.state == State.RETIRED) && System.nanoTime() - nextStartNanos >= 0) {
            synchronized (LOCK) {
                if (current == m && System.nanoTime() - nextStartNanos >= 0) {
                    nextStartNanos = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    Maintainer fresh = new Maintainer(Settings.fromSystemProperties(),
                            ThreadLocalRandom.current().nextInt(NodeProgressLayout.FIRST_EPOCH_SHARD, Integer.MAX_VALUE), tables, table, replayer);
                    current = fresh;
                    daemon("gsi-maintainer-start", fresh::start).start();
                }
            }
        }
        return null;
    }

    /** Records the epoch before taking anything (else a crash could leave markers no record names), then runs. */
    private void start() {
        try {
            progress.write(newId(), NodeProgressLayout.RUNNING, metrics);
        } catch (RuntimeException e) {
            CompiledTable.logRateLimited("gsi maintainer: cannot record its progress ({}); plain writes of tables in node mode go to the"
                    + " repair service for now, another start in 10 s", e.toString());
            state = State.RETIRED;
            return;
        }
        metrics.register();
        for (int i = 0; i < settings.threads(); i++) {
            threads.add(daemon("gsi-maintainer-" + i, new MaintainerWorker(this)));
        }
        threads.add(daemon("gsi-maintainer-progress", this::recordProgress));
        if (CdcBackstop.enabled()) {
            backstop = new CdcBackstop(this, replayer, progressKeyspace);
            threads.add(daemon("gsi-cdc-backstop", backstop));
        } else {
            IndexTrigger.LOG.warn("gsi maintainer: no CDC backstop on this node (cdc_enabled false, or -Dgsi.maintainer.cdc_backstop=false):"
                    + " writes of tables in eventual indexing whose coordinator is killed before its maintainer sent their entries wait for"
                    + " anti-entropy (docs/deployment.md)");
        }
        StorageService.instance.addPreShutdownHook(preShutdown);
        state = State.RUNNING;
        threads.forEach(Thread::start);
        IndexTrigger.LOG.info("gsi maintainer: running on queue shard {} with {} thread(s), at most {} writes taken, {} reads and writes",
                shard, settings.threads(), settings.capacity(), settings.read());
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    static UUID newId() {
        return TimeUUID.Generator.nextTimeUUID().asUUID();
    }

    @Override
    public int shard() {
        return shard;
    }

    @Override
    public Marker offer(UUID id, String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags) {
        if (state != State.RUNNING) {
            return null;
        }
        offering.increment();
        try {
            Marker m = new Marker(id, keyspace, table, pk, ck, tidMin, tidMax, flags);
            MaintainerItem item = new MaintainerItem(m, System.nanoTime());
            unfinished.put(m.id(), item);
            if (state != State.RUNNING || !queue.offer(item)) {
                unfinished.remove(m.id());
                return null;
            }
            metrics.queued.increment();
            return m;
        } finally {
            offering.decrement();
        }
    }

    @Override
    public NodeFeed.Eventual eventual(String keyspace, String table, ByteBuffer pk) {
        if (state != State.RUNNING || queue.remainingCapacity() == 0) {
            return null;
        }
        offering.increment();
        try {
            return state == State.RUNNING ? EventualWrite.open(this, keyspace, table, pk) : null;
        } finally {
            offering.decrement();
        }
    }

    /**
     * Takes a write in eventual indexing ({@link EventualWrite}): its mutations are sent first, then
     * its plain rows are maintained; false (nothing taken) when full or retiring. Counted as in
     * progress, so that a retirement hands off all it has taken.
     */
    boolean commit(MaintainerItem write, List<org.apache.cassandra.db.Mutation> mutations, List<MaintainerItem> rows) {
        offering.increment();
        try {
            for (MaintainerItem r : rows) {
                unfinished.put(r.marker.id(), r);
            }
            if (state == State.RUNNING) {
                if (mutations.isEmpty()) {
                    later.addAll(rows);
                    unfinished.remove(write.marker.id());
                    metrics.queued.add(rows.size());
                    return true;
                }
                write.mutations = mutations;
                write.after = rows;
                if (queue.offer(write)) {
                    metrics.queued.add(1 + rows.size());
                    return true;
                }
            }
            for (MaintainerItem r : rows) {
                unfinished.remove(r.marker.id());
            }
            unfinished.remove(write.marker.id());
            return false;
        } finally {
            offering.decrement();
        }
    }

    /**
     * Queues the items for the repair service (a marker each, in its shards; a write in eventual
     * indexing whose mutations were not sent: a marker of its partition, for a recompute); returns
     * those whose marker could not be written (nothing done for them).
     */
    List<MaintainerItem> handOff(List<MaintainerItem> items, long nowInSec) {
        List<org.apache.cassandra.db.Mutation> markers = new ArrayList<>();
        List<MaintainerItem> sent = new ArrayList<>();
        for (MaintainerItem item : items) {
            Marker mk = item.marker;
            CompiledTable table = tables.apply(new String[] {mk.keyspace(), mk.table()});
            if (table == null || !table.hasQueue()) {
                release(item);
                metrics.dropped.increment();
                continue;
            }
            // a write of eventual indexing wrote its entries after the base write: if its version is gone by now (deleted,
            // overwritten, never applied), only a recompute removes them (docs/design.md section 7.11)
            int flags = mk.flags() | (item.unqueued ? QueueLayout.FLAG_DELETE : 0);
            Marker handed = new Marker(newId(), mk.keyspace(), mk.table(), mk.pk(), mk.ck(), mk.tidMin(), mk.tidMax(), flags);
            markers.add(QueueMutations.of(table, QueueMutations.serviceShard(table, mk.pk()), handed, nowInSec));
            sent.add(item);
        }
        try {
            NodeWrites.send(markers, settings.write());
        } catch (RuntimeException e) {
            metrics.errors.increment();
            CompiledTable.logRateLimited("gsi maintainer: hand-off to the repair service failed, tried again: {}", e.toString());
            MaintainerWorker.backOff(e);
            return sent;
        }
        for (MaintainerItem item : sent) {
            release(item);
            metrics.handedOff.increment();
        }
        return List.of();
    }

    /** The item is finished: it and, for a write whose mutations were not sent, its rows no longer hold the progress back. */
    void release(MaintainerItem item) {
        if (item.mutations != null) {
            item.after.forEach(r -> unfinished.remove(r.marker.id()));
        }
        unfinished.remove(item.marker.id());
    }

    /** Milliseconds since the oldest write taken and not finished, 0 when idle. */
    long lagMillis() {
        var first = unfinished.firstEntry();
        return first == null ? 0 : first.getValue().ageMillis(System.nanoTime());
    }

    /**
     * Every marker of this epoch with a smaller id is finished: the oldest unfinished one's, or
     * now. Null while a write is being taken (its id may be older than now and not yet listed).
     */
    private UUID doneBefore() {
        UUID now = newId();
        if (offering.sum() != 0) {
            return null;
        }
        UUID first = unfinished.isEmpty() ? null : unfinished.firstKey();
        UUID before = first != null && Tids.compare(first, now) < 0 ? first : now;
        CdcBackstop b = backstop;
        UUID hold = b == null ? null : b.holdBefore();
        return hold != null && Tids.compare(hold, before) < 0 ? hold : before;
    }

    /** The CDC backstop's record of the segments Cassandra dropped before every epoch had passed them (empty: none, or no backstop). */
    private String cdcLostBehind() {
        CdcBackstop b = backstop;
        return b == null ? "" : b.lostBehind();
    }

    /**
     * How often the progress record is written: the safe time of tables in node mode trails by about
     * this plus the service's reading of it (docs/design.md section 7.10).
     */
    static final long PROGRESS_EVERY_MS = Long.getLong("gsi.maintainer.progress_ms", 250);

    /** Every {@link #PROGRESS_EVERY_MS}: the progress record, and whether a reload replaced this maintainer's class loader. */
    private void recordProgress() {
        while (state == State.RUNNING) {
            try {
                Thread.sleep(PROGRESS_EVERY_MS);
                if (TriggerLoader.superseded()) {
                    retire("nodetool reloadtriggers replaced the trigger jar's class loader");
                    return;
                }
                UUID before = doneBefore();
                for (int i = 0; before == null && i < 20; i++) { // an offer in progress: it takes microseconds
                    Thread.sleep(1);
                    before = doneBefore();
                }
                if (before != null) {
                    progress.write(before, NodeProgressLayout.RUNNING, metrics, cdcLostBehind());
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                metrics.errors.increment();
                CompiledTable.logRateLimited("gsi maintainer: could not record its progress: {}", e.toString());
            }
        }
    }

    /**
     * On retiring: the writes of tables in eventual indexing not finished have no marker in any
     * queue, so each goes to the repair service now (docs/design.md section 7.11); a hand-off that
     * fails is logged, and the write waits for anti-entropy or {@code check --fix}.
     */
    private void handOffUnqueued() {
        for (int i = 0; i < 20 && offering.sum() != 0; i++) {
            Thread.onSpinWait(); // a commit that saw this maintainer running lists its write first
        }
        List<MaintainerItem> left = new ArrayList<>();
        java.util.Set<MaintainerItem> covered = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (MaintainerItem item : unfinished.values()) {
            if (item.unqueued && item.mutations != null) {
                covered.addAll(item.after); // the recompute of the write's partition covers its rows
            }
        }
        for (MaintainerItem item : unfinished.values()) {
            if (item.unqueued && !covered.contains(item)) {
                left.add(item);
            }
        }
        if (left.isEmpty()) {
            return;
        }
        List<MaintainerItem> failed = handOff(left, org.apache.cassandra.utils.FBUtilities.nowInSeconds());
        if (!failed.isEmpty()) {
            IndexTrigger.LOG.warn("gsi maintainer: {} write(s) of tables in eventual indexing could not be handed to the repair service on"
                    + " retiring; anti-entropy or ./gsi check --fix indexes them", failed.size());
        }
    }

    /**
     * Stops taking writes, lets the workers finish their turn (2 s at most), hands the writes of
     * tables in eventual indexing it has not finished to the repair service, and records where the
     * repair service's sweep starts: everything else not finished by then is swept from the queue.
     */
    void retire(String why) {
        synchronized (LOCK) {
            if (state == State.RETIRED) {
                return;
            }
            state = State.RETIRED;
        }
        IndexTrigger.LOG.info("gsi maintainer: retiring ({}); {} write(s) not finished are left to the repair service", why, unfinished.size());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        Thread self = Thread.currentThread(); // the progress thread retires the maintainer itself after a reload
        for (Thread t : threads) {
            if (t != self) {
                t.interrupt();
            }
        }
        for (Thread t : threads) {
            if (t == self) {
                continue;
            }
            try {
                t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        handOffUnqueued();
        try {
            UUID before = null;
            while (before == null && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(1)) {
                before = doneBefore();
            }
            progress.write(before != null ? before : unfinished.isEmpty() ? newId() : unfinished.firstKey(), NodeProgressLayout.RETIRED, metrics,
                    cdcLostBehind());
        } catch (RuntimeException e) {
            IndexTrigger.LOG.warn("gsi maintainer: could not record its retirement ({}); the repair service sweeps its shard once its"
                    + " heartbeat is old", e.toString());
        }
        metrics.unregister();
        try {
            StorageService.instance.removePreShutdownHook(preShutdown);
        } catch (RuntimeException | LinkageError e) {
            IndexTrigger.LOG.debug("gsi maintainer: pre-shutdown hook not removed", e);
        }
    }
}
