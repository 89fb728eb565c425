package io.cassandragsi.repair.jobs;

import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.Catalog;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the buckets of every bucketed index sealed (docs/design.md section 9.4), on one thread of
 * the repair service, while {@code mayRun} says so (one instance: the owner of shard 0, as for
 * anti-entropy). Every {@code interval} it seals, per index, the last bucket that may be sealed if
 * it has no valid seal, and every earlier bucket whose seal a change ended a {@link
 * BucketRule#MARGIN} or more ago. Buckets older than the last one that were never sealed (an index
 * whose bucket was added without a rebuild) are left to {@code rebuild}.
 */
public final class BucketSealer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BucketSealer.class);
    /** How often the sealer looks (system property {@code gsi.buckets.seal_interval_ms}). */
    static final Duration INTERVAL = Duration.ofMillis(Long.getLong("gsi.buckets.seal_interval_ms", 60_000));

    private final Catalog catalog;
    private final Jobs jobs;
    private final BooleanSupplier mayRun;
    private final Thread thread;
    private volatile boolean closed;
    /** Buckets sealed, and seals that failed, since start. */
    public final LongAdder sealed = new LongAdder();
    public final LongAdder failures = new LongAdder();

    BucketSealer(Catalog catalog, Jobs jobs, BooleanSupplier mayRun) {
        this.catalog = catalog;
        this.jobs = jobs;
        this.mayRun = mayRun;
        this.thread = new Thread(this::loop, "gsi-bucket-sealer");
        this.thread.setDaemon(true);
    }

    public BucketSealer start() {
        thread.start();
        return this;
    }

    private void loop() {
        while (!closed) {
            try {
                Thread.sleep(INTERVAL.toMillis());
                if (mayRun.getAsBoolean()) {
                    round(Instant.now());
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                failures.increment();
                LOG.warn("bucket sealer: {}", e.toString());
            }
        }
    }

    /** One look at every bucketed index at {@code now}. */
    void round(Instant now) {
        for (Catalog.Indexed table : catalog.tables().values()) {
            for (Map.Entry<IndexPlan, io.cassandragsi.repair.store.BucketTable> e : table.bucketTables.entrySet()) {
                if (closed) {
                    return;
                }
                NavigableSet<String> due = due(table, e.getKey(), now);
                if (!due.isEmpty()) {
                    sealed.add(jobs.seal(table, e.getKey()).run(due, due.last(), TokenRanges.split(Jobs.SEAL_SPLITS), 1, new Progress(),
                            () -> closed || !mayRun.getAsBoolean()).size());
                }
            }
        }
    }

    /** The buckets of {@code index} to seal at {@code now}. */
    static NavigableSet<String> due(Catalog.Indexed table, IndexPlan index, Instant now) {
        String last = BucketSeal.lastSealable(index.index().bucket(), now);
        Map<String, BucketsTable.State> states = table.buckets().all(table.definition.keyspace(), table.definition.table(), index.index().name(),
                com.datastax.oss.driver.api.core.ConsistencyLevel.LOCAL_QUORUM);
        return due(states, last, BucketRule.micros(now));
    }

    /**
     * Pure: the buckets up to {@code last} (the states {@code states} knows, and {@code last}
     * itself) without a valid seal whose latest change, if any, is more than a margin old.
     */
    static NavigableSet<String> due(Map<String, BucketsTable.State> states, String last, long nowMicros) {
        Map<String, BucketsTable.State> all = new TreeMap<>(states);
        all.putIfAbsent(last, new BucketsTable.State(null, null, 0));
        long margin = BucketRule.MARGIN.toNanos() / 1000;
        NavigableSet<String> out = new TreeSet<>();
        all.forEach((label, s) -> {
            boolean settled = s.changedMicros() == null || s.changedMicros() + margin < nowMicros;
            if (label.compareTo(last) <= 0 && !s.valid() && settled) {
                out.add(label);
            }
        });
        return out;
    }

    /**
     * Per bucketed index ({@code keyspace.table/index}): its period, how many of its buckets that
     * may be sealed by now have a valid seal and how many do not (reads in them use the index
     * table), and the newest bucket with a valid seal (docs/design.md section 9.4).
     */
    public Map<String, Object> status() {
        Map<String, Object> out = new java.util.TreeMap<>();
        Instant now = Instant.now();
        for (Catalog.Indexed table : catalog.tables().values()) {
            for (IndexPlan index : table.bucketTables.keySet()) {
                String name = table.definition.qualifiedName() + "/" + index.index().name();
                try {
                    String last = BucketSeal.lastSealable(index.index().bucket(), now);
                    Map<String, BucketsTable.State> states = table.buckets().all(table.definition.keyspace(), table.definition.table(),
                            index.index().name(), com.datastax.oss.driver.api.core.ConsistencyLevel.LOCAL_QUORUM);
                    int valid = 0;
                    int notValid = 0;
                    String newest = null;
                    for (Map.Entry<String, BucketsTable.State> e : states.entrySet()) {
                        if (e.getKey().compareTo(last) > 0) {
                            continue;
                        }
                        if (e.getValue().valid()) {
                            valid++;
                            newest = e.getKey();
                        } else {
                            notValid++;
                        }
                    }
                    Map<String, Object> s = new java.util.LinkedHashMap<>();
                    s.put("period", index.index().bucket().jsonName());
                    s.put("sealed", valid);
                    s.put("not_sealed", notValid);
                    s.put("newest_sealed", newest);
                    out.put(name, s);
                } catch (RuntimeException e) {
                    out.put(name, Map.of("error", String.valueOf(e.getMessage())));
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
