package io.cassandragsi.repair.jobs;

import io.cassandragsi.repair.queue.CdcRepairs;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The targeted repair of lost CDC segments (docs/design.md section 7.11): when a node's progress
 * record names a harmful loss ({@link CdcRepairs#needs}: an epoch that was behind a segment the node
 * lost stopped without retiring before passing it), a {@code check --fix} at full pace of every
 * table in eventual indexing, its first pass (base to index) over the token ranges that node
 * replicates and its second (index to base) over the whole index, then the acknowledgment in the
 * record ({@code cdc_repaired}). The acknowledgment is written only once every table is checked, so
 * a service that dies mid-way runs it again; one already acknowledged is not. Run by the instance
 * that owns the record's epoch as it owns its sweep ({@code NodeSweeps}), one repair at a time.
 */
public final class CdcRepair implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CdcRepair.class);
    /** How often the needs are looked for. */
    static final long EVERY_MS = 2_000;

    /** What the repair needs from the process. */
    public interface Host {
        /** The progress records as last read. */
        List<Epoch> epochs();

        /** Whether this instance runs the repairs of the records of {@code epochShard}. */
        boolean owns(int epochShard);

        /** The tables in eventual indexing now, as {@code keyspace.table}. */
        List<String> eventualTables();

        /** Checks {@code table} with {@code --fix}: the first pass over the ranges {@code node} replicates, the second over the whole index. */
        void check(String table, String node) throws InterruptedException;

        /** Writes the acknowledgment {@code covered} into the record of {@code epochShard}. */
        void acknowledge(int epochShard, String covered);
    }

    private final Host host;
    private volatile boolean running = true;
    /** The records whose repair runs here now. */
    private final Set<Integer> repairing = ConcurrentHashMap.newKeySet();
    public final LongAdder done = new LongAdder();
    public final LongAdder failed = new LongAdder();

    public CdcRepair(Host host) {
        this.host = host;
    }

    @Override
    public void run() {
        while (running) {
            try {
                Thread.sleep(EVERY_MS);
                round(System.currentTimeMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    public void stop() {
        running = false;
    }

    /** The epoch shards whose lost segments are being repaired here. */
    public Set<Integer> repairing() {
        return Set.copyOf(repairing);
    }

    /** One round: every need this instance owns, repaired and acknowledged in turn; a failed one is tried again next round. */
    void round(long nowMillis) throws InterruptedException {
        List<Epoch> epochs = host.epochs();
        for (CdcRepairs.Need n : CdcRepairs.needs(epochs, nowMillis)) {
            if (!running || !host.owns(n.shard())) {
                continue;
            }
            Epoch record = epochs.stream().filter(e -> e.shard() == n.shard()).findFirst().orElseThrow();
            repairing.add(n.shard());
            long t0 = System.nanoTime();
            try {
                List<String> tables = host.eventualTables();
                LOG.info("CDC segments lost on node {} (epoch {}) held writes of stopped epoch(s) {} that may be unindexed: check --fix of {}"
                        + " over the node's ranges", n.node(), n.shard(), n.harmful().keySet(), tables);
                for (String table : tables) {
                    host.check(table, n.node());
                }
                host.acknowledge(n.shard(), n.acknowledgment(record));
                done.increment();
                LOG.info("CDC segments lost on node {} (epoch {}): repaired in {} ms", n.node(), n.shard(), (System.nanoTime() - t0) / 1_000_000);
            } catch (RuntimeException e) {
                failed.increment();
                LOG.warn("the targeted repair of CDC segments lost on node {} (epoch {}) failed ({}); tried again in {} ms", n.node(), n.shard(),
                        e.toString(), EVERY_MS);
            } finally {
                repairing.remove(n.shard());
            }
        }
    }

    /** For status: the records with losses by how they stand, and what this instance runs. */
    public Map<String, Object> status(List<Epoch> epochs, long nowMillis) {
        CdcRepairs.Counts c = CdcRepairs.counts(epochs, nowMillis);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("pending", c.pending());
        m.put("running", repairing.size());
        m.put("done", c.repaired());
        m.put("waiting_on_running_epochs", c.open());
        m.put("harmless", c.harmless());
        m.put("repaired_here", done.sum());
        m.put("failed_here", failed.sum());
        return m;
    }
}
