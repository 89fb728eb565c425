package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.check.BucketEntries;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketTable;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.schema.BucketPeriod;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seals buckets of one index (docs/design.md section 9.4): a seal g first records a change that
 * ends every earlier seal of its buckets, then streams the base by token range and writes each
 * row's entries in those buckets ({@link BucketEntries}) under g, at the TS of g; once every range
 * is written, it records g as each bucket's seal. A seal that stops early records nothing: its
 * buckets stay without a valid seal, and reads use the index table, until a later seal.
 */
public final class BucketSeal {
    private static final Logger LOG = LoggerFactory.getLogger(BucketSeal.class);

    private final Catalog.Indexed table;
    private final IndexPlan index;
    private final BucketTable bucketTable;
    private final RowScans<RowHistory.Versions> rows;
    private final IndexWriter writer;
    private final ConsistencyLevel write;

    BucketSeal(Catalog.Indexed table, IndexPlan index, RowScans<RowHistory.Versions> rows, IndexWriter writer, ConsistencyLevel write) {
        this.table = table;
        this.index = index;
        this.bucketTable = table.bucketTables.get(index);
        if (bucketTable == null) {
            throw new IllegalStateException("index " + index.index().name() + " of " + table.definition.qualifiedName()
                    + " has no bucket table: run ./gsi schema apply");
        }
        this.rows = rows;
        this.writer = writer;
        this.write = write;
    }

    /** The last bucket that may be sealed at {@code now}: the one before the bucket of {@code now} less the margin (docs/design.md section 9.4). */
    public static String lastSealable(BucketPeriod period, Instant now) {
        String current = period.label(now.minus(io.cassandragsi.index.BucketRule.MARGIN));
        return period.label(period.start(current).minusNanos(1));
    }

    /**
     * Seals {@code labels} (null: every bucket up to {@code lastEnded}, from the first version's),
     * on {@code ranges}, {@code parallelism} at a time, until {@code cancelled}; returns the buckets
     * sealed (none when it stopped early).
     */
    public List<String> run(NavigableSet<String> labels, String lastEnded, List<TokenRange> ranges, int parallelism, Progress progress,
            BooleanSupplier cancelled) {
        java.util.UUID g = Tids.fromTicks(Tids.ticks(Instant.now()), ThreadLocalRandom.current().nextLong());
        BucketsTable states = table.buckets();
        String ks = table.definition.keyspace();
        String t = table.definition.table();
        String name = index.index().name();
        BucketPeriod period = index.index().bucket();
        boolean all = labels == null;
        String lo = all ? "0000" : labels.first();
        String hi = all ? lastEnded : labels.last();
        states.beginSeal(ks, t, name, all ? List.of(BucketsTable.ALL) : labels, g, write);
        Map<String, LongAdder> counts = new ConcurrentHashMap<>();
        LongAdder rowsRead = new LongAdder();
        LongAdder written = new LongAdder();
        progress.phase("seal " + name + " " + (all ? "to " + hi : lo + (lo.equals(hi) ? "" : " to " + hi)));
        progress.start(ranges.size(), 0);
        RangeRunner.Outcome outcome = RangeRunner.run("gsi-seal-" + name, ranges, parallelism, cancelled, (range, stop) -> {
            IndexWriter.Round<Object> round = writer.round(InFlight.ATTEMPTS);
            boolean complete = rows.scan(range.start(), range.end(), row -> {
                Map<String, Map<List<java.nio.ByteBuffer>, BucketEntries.Entry>> entries = BucketEntries.of(table.plan, index, row.versions(), lo, hi,
                        all ? l -> true : labels::contains);
                for (Statement<?> st : bucketTable.statements(entries, g, write)) {
                    round.send(st, range);
                }
                rowsRead.increment();
                progress.rows(1);
                entries.forEach((label, byKey) -> {
                    counts.computeIfAbsent(label, l -> new LongAdder()).add(byKey.size());
                    written.add(byKey.size());
                    progress.writes(byKey.size());
                });
            }, stop);
            InFlight.await(round);
            if (complete) {
                progress.rangeDone();
            }
            return complete;
        });
        if (outcome.failure() != null || outcome.done() < ranges.size()) {
            LOG.warn("seal {} of {}.{} {} stopped after {}/{} ranges{}; its buckets keep no valid seal until the next", g, ks, t, name,
                    outcome.done(), ranges.size(), outcome.failure() == null ? "" : ": " + outcome.failure());
            if (outcome.failure() != null) {
                throw new JobFailedException("sealing the buckets of " + ks + "." + t + " " + name + " failed: " + JobFailure.message(outcome.failure()),
                        outcome.failure());
            }
            return List.of();
        }
        NavigableSet<String> sealed = new TreeSet<>();
        if (all) {
            String first = counts.isEmpty() ? hi : java.util.Collections.min(counts.keySet());
            for (String l = first; l.compareTo(hi) <= 0; l = period.next(l)) {
                sealed.add(l);
            }
        } else {
            sealed.addAll(labels);
        }
        for (String label : sealed) {
            LongAdder c = counts.get(label);
            states.sealed(ks, t, name, label, g, c == null ? 0 : c.sum(), write);
        }
        LOG.info("sealed {} bucket(s) of {}.{} {} ({} to {}) as {}: {} rows read, {} entries", sealed.size(), ks, t, name, sealed.first(),
                sealed.last(), g, rowsRead.sum(), written.sum());
        return List.copyOf(sealed);
    }
}
