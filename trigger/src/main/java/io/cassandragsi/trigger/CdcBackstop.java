package io.cassandragsi.trigger;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.tables.Selected;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.cassandra.config.DatabaseDescriptor;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.commitlog.CommitLogDescriptor;
import org.apache.cassandra.db.commitlog.CommitLogReadHandler;
import org.apache.cassandra.db.commitlog.CommitLogReader;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * The durable record of eventual indexing (docs/design.md section 7.11): a write whose entries
 * follow it is in the commit log of every replica that applied it, and Cassandra links each
 * segment holding a write of a table with {@code cdc = true} into {@code cdc_raw}. This node keeps
 * those links until every running maintainer's progress has passed them, and when a maintainer
 * epoch stops without retiring (kill -9, a frozen node) it reads its kept segments back and indexes
 * every update of a table in eventual indexing again, through its own maintainer: indexing is
 * idempotent, so writes that were already indexed cost time, never correctness. Every replica does
 * it for the writes it applied, so a stopped coordinator's writes are found while one replica of
 * each is up; a restarted node does it for its own epoch that stopped.
 *
 * <p>A thread of its own, one turn a second, started with the maintainer when the node has {@code
 * cdc_enabled}, ended with it. What it cannot do is counted: segments Cassandra dropped first
 * ({@code cdc_total_space} full, with {@code cdc_block_writes: false}, so that no client write is
 * refused) are counted, and each with the epochs it was kept for ({@code cdc_lost_behind} of the
 * progress record): should one of them stop without retiring before passing it, the repair service
 * checks this node's ranges with {@code --fix} (docs/design.md section 7.11).
 */
final class CdcBackstop implements Runnable {
    /** Indexes one update read back from the commit log as the trigger would have (IndexTrigger). */
    @FunctionalInterface
    interface Replayer {
        void replay(PartitionUpdate update);
    }

    private static final String IDX = "_cdc.idx";

    private final Maintainer m;
    private final Replayer replayer;
    private final String progressTable;
    private final Path dir;
    /** Per kept segment (its name without extension): the idx file's content last read, and when it last changed. */
    private final Map<String, String> idxSeen = new HashMap<>();
    private final Map<String, Long> changedAt = new HashMap<>();
    private final Set<String> deleting = new HashSet<>();
    /** Kept segments whose log is gone and whose index Cassandra still writes: lost, and still taking writes. */
    private final Set<String> phantoms = new HashSet<>();
    /** Stopped epochs whose writes this node has replayed since it started. */
    private final Set<Integer> replayed = new HashSet<>();
    /** The maintainer's progress record claims no more than this (epoch ms; MAX_VALUE: no hold): {@link CdcRetention#holdBefore}. */
    private volatile long holdBefore = Long.MAX_VALUE;
    /**
     * Per epoch that was behind a segment Cassandra dropped: what the progress record carries as
     * {@code cdc_lost_behind} ({@link io.cassandragsi.schema.CdcLosses}), for the repair service to judge.
     */
    private volatile java.util.Map<Integer, io.cassandragsi.schema.CdcLosses.Behind> lostBehind = java.util.Map.of();
    /** The epochs' records of the last turn, for the losses its scan finds. */
    private List<CdcRetention.Epoch> lastEpochs = List.of();

    CdcBackstop(Maintainer m, Replayer replayer, String progressKeyspace) {
        this.m = m;
        this.replayer = replayer;
        this.progressTable = progressKeyspace + "." + NodeProgressLayout.TABLE;
        this.dir = Path.of(DatabaseDescriptor.getCDCLogLocation());
    }

    /**
     * True when this node links commit log segments for CDC ({@code cdc_enabled: true} in
     * cassandra.yaml) and the backstop is not turned off ({@code -Dgsi.maintainer.cdc_backstop=false}).
     */
    static boolean enabled() {
        return DatabaseDescriptor.isCDCEnabled() && DatabaseDescriptor.getCDCLogLocation() != null
                && Boolean.parseBoolean(System.getProperty("gsi.maintainer.cdc_backstop", "true"));
    }

    @Override
    public void run() {
        while (m.state == Maintainer.State.RUNNING) {
            try {
                Thread.sleep(1000);
                turn(System.currentTimeMillis());
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                m.metrics.errors.increment();
                CompiledTable.logRateLimited("gsi cdc backstop: {}; tried again in a second", e.toString());
            }
        }
    }

    /**
     * The most the maintainer's progress record may claim, as a timeuuid (null: no hold): the safe
     * time waits for the writes of epochs that may have stopped until they are replayed here.
     */
    java.util.UUID holdBefore() {
        long h = holdBefore;
        return h == Long.MAX_VALUE ? null : Tids.minAtTicks(Tids.ticks(java.time.Instant.ofEpochMilli(h)));
    }

    /** {@code cdc_lost_behind} of the progress record ({@link io.cassandragsi.schema.CdcLosses#format}): empty when nothing was lost. */
    String lostBehind() {
        return io.cassandragsi.schema.CdcLosses.format(lostBehind);
    }

    /** One turn: note what the segments hold, replay for epochs that stopped, delete what every epoch has passed. */
    void turn(long now) throws IOException {
        List<CdcRetention.Epoch> epochs = epochs();
        lastEpochs = epochs;
        Map<String, Boolean> segments = scan(now);
        holdBefore = Math.min(holdBefore, CdcRetention.holdBefore(epochs, m.shard, replayed, now));
        long sync = DatabaseDescriptor.getCommitLogSyncPeriod();
        List<Integer> due = new ArrayList<>();
        for (CdcRetention.Epoch e : epochs) {
            if (e.shard() != m.shard && CdcRetention.toReplay(e, replayed, now, sync)) {
                due.add(e.shard());
            }
        }
        if (!due.isEmpty()) {
            long t0 = System.nanoTime();
            long n = replay(segments.keySet());
            replayed.addAll(due); // every update replayed is the maintainer's now, holding its progress back itself
            IndexTrigger.LOG.info("gsi cdc backstop: maintainer epoch(s) {} stopped without retiring; indexed {} update(s) of tables in"
                    + " eventual indexing again from {} kept commit log segment(s) in {} ms", due, n, segments.size(),
                    (System.nanoTime() - t0) / 1_000_000);
        }
        holdBefore = CdcRetention.holdBefore(epochs, m.shard, replayed, now);
        for (Map.Entry<String, Boolean> s : segments.entrySet()) {
            String name = s.getKey();
            if (s.getValue() && CdcRetention.deletable(changedAt.get(name), epochs, replayed, now)) {
                deleting.add(name);
                Files.deleteIfExists(dir.resolve(name + ".log"));
                Files.deleteIfExists(dir.resolve(name + IDX));
                m.metrics.cdcSegmentsDeleted.increment();
            }
        }
    }

    /** The kept segments (name to whether Cassandra finished it), noting when each last changed and which vanished unasked. */
    private Map<String, Boolean> scan(long now) throws IOException {
        Map<String, Boolean> out = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    String file = p.getFileName().toString();
                    if (!file.endsWith(IDX)) {
                        continue;
                    }
                    String name = file.substring(0, file.length() - IDX.length());
                    String idx;
                    try {
                        idx = Files.readString(p, StandardCharsets.UTF_8);
                    } catch (IOException e) {
                        continue; // deleted meanwhile
                    }
                    if (!idx.equals(idxSeen.put(name, idx))) {
                        changedAt.put(name, now);
                    }
                    out.put(name, idx.contains("COMPLETED"));
                    if (!Files.exists(dir.resolve(name + ".log")) && !deleting.contains(name)) {
                        // its log went without its index: while Cassandra still writes the segment it rewrites the index at each
                        // sync, so the loss runs on to its last change (a stale index left behind stops changing, and the
                        // running epochs pass it)
                        lost(name, lastChange(name, now), now, phantoms.add(name));
                    }
                }
            }
        }
        for (String gone : new ArrayList<>(idxSeen.keySet())) {
            if (!out.containsKey(gone)) {
                if (!deleting.remove(gone)) {
                    lost(gone, lastChange(gone, now), now, !phantoms.contains(gone));
                }
                idxSeen.remove(gone);
                changedAt.remove(gone);
                phantoms.remove(gone);
            }
        }
        return out;
    }

    /**
     * The last moment segment {@code name} may hold a write of: when its index last changed, and for
     * a segment Cassandra had not finished one sync period more (writes not yet synced reach the
     * index at the next sync).
     */
    private long lastChange(String name, long now) {
        long changed = changedAt.getOrDefault(name, now);
        return idxSeen.getOrDefault(name, "").contains("COMPLETED") ? changed : changed + DatabaseDescriptor.getCommitLogSyncPeriod();
    }

    /**
     * Records a segment lost (Cassandra removed it before every epoch had passed it) with its last
     * change: the epochs it was kept for go into {@code cdc_lost_behind} ({@link CdcRetention#behind});
     * {@code first} counts and logs it.
     */
    private void lost(String name, long lastChange, long now, boolean first) {
        List<io.cassandragsi.schema.CdcLosses.Behind> behind = CdcRetention.behind(lastChange, lastEpochs, replayed, now);
        Map<Integer, io.cassandragsi.schema.CdcLosses.Behind> merged = lostBehind;
        for (io.cassandragsi.schema.CdcLosses.Behind b : behind) {
            merged = io.cassandragsi.schema.CdcLosses.merge(merged, b);
        }
        lostBehind = merged;
        if (first) {
            m.metrics.cdcSegmentsLost.increment();
            CompiledTable.logRateLimited("gsi cdc backstop: Cassandra dropped CDC segment {} before every maintainer had passed it"
                    + " (cdc_total_space full?); kept for epoch(s) {}: should one stop without retiring before passing it, the repair"
                    + " service checks this node's ranges with --fix", name, behind.stream().map(b -> b.shard()).toList());
        }
    }

    /** Every epoch's progress record, at the maintainer's read level. */
    private List<CdcRetention.Epoch> epochs() {
        List<CdcRetention.Epoch> out = new ArrayList<>();
        for (Selected r : NodeCql.select("SELECT " + String.join(", ", NodeProgressLayout.C_SHARD, NodeProgressLayout.C_STATE,
                NodeProgressLayout.C_HEARTBEAT, NodeProgressLayout.C_DONE_BEFORE) + " FROM " + progressTable + " LIMIT 100000", m.settings.read())) {
            ByteBuffer shard = r.column(0);
            ByteBuffer heartbeat = r.column(2);
            ByteBuffer doneBefore = r.column(3);
            if (shard == null || heartbeat == null) {
                continue;
            }
            String state = r.column(1) == null ? "" : StandardCharsets.UTF_8.decode(r.column(1).duplicate()).toString();
            long done = doneBefore == null ? 0 : Tids.instant(Tids.uuid(doneBefore)).toEpochMilli();
            out.add(new CdcRetention.Epoch(ByteBufferUtil.toInt(shard), NodeProgressLayout.RETIRED.equals(state), ByteBufferUtil.toLong(heartbeat),
                    done));
        }
        return out;
    }

    /** Reads every kept segment and hands each update of a CDC table to the replayer; returns how many it handed. */
    private long replay(Set<String> segments) {
        long[] n = {0};
        CommitLogReadHandler handler = new CommitLogReadHandler() {
            @Override
            public boolean shouldSkipSegmentOnError(CommitLogReadException e) {
                CompiledTable.logRateLimited("gsi cdc backstop: the rest of a segment cannot be read ({}); skipped", e.getMessage());
                return true;
            }

            @Override
            public void handleUnrecoverableError(CommitLogReadException e) {
                CompiledTable.logRateLimited("gsi cdc backstop: a segment cannot be read: {}", e.getMessage());
            }

            @Override
            public void handleMutation(Mutation mutation, int size, int entryLocation, CommitLogDescriptor desc) {
                for (PartitionUpdate u : mutation.getPartitionUpdates()) {
                    if (u.metadata().params.cdc) {
                        replayer.replay(u);
                        n[0]++;
                    }
                }
            }
        };
        for (String name : segments) {
            if (phantoms.contains(name)) {
                continue; // its log is gone: counted as lost
            }
            try {
                // the last section of a segment still being written is read once Cassandra has synced it (tolerated as truncated)
                new CommitLogReader().readCommitLogSegment(handler, new org.apache.cassandra.io.util.File(dir.resolve(name + ".log")),
                        CommitLogReader.ALL_MUTATIONS, true);
            } catch (IOException | RuntimeException e) {
                m.metrics.errors.increment();
                CompiledTable.logRateLimited("gsi cdc backstop: cannot read segment {}: {}", name, e.toString());
            }
        }
        m.metrics.cdcReplayed.add(n[0]);
        return n[0];
    }
}
