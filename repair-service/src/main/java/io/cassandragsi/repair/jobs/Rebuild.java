package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.EntryRule;
import io.cassandragsi.check.EntryScans;
import io.cassandragsi.check.Observed;
import io.cassandragsi.check.Rewrite;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.check.ScanStores;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.maintain.RowRecord;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backfills index tables from the base table (docs/design.md section 9.1), on either kind of table:
 * the base is streamed by token range, {@code parallelism} ranges at a time; each row's rewrite is
 * its table's {@link EntryRule#rebuild} (the entries its base row explains, at the timestamps of
 * the TS rule, and their keys recorded in the rows table first), sent with a bounded number in
 * flight. A range is recorded in the job ledger once all its writes are acknowledged, so a
 * restarted job skips it.
 *
 * <p>Safe while writes continue: the trigger, the repair service and the rebuild all write at the
 * timestamps of the TS rule, so whatever the order, last-write-wins leaves what the base says. The
 * rebuild only adds and corrects entries; entries no row explains (orphans) are {@code check
 * --fix}'s.
 */
final class Rebuild<H extends RowHistory> {
    private static final Logger LOG = LoggerFactory.getLogger(Rebuild.class);
    /** Rows whose records (and entries) are read together. */
    static final int BATCH = 256;

    private final EntryRule<H> rule;
    private final RowScans<H> rows;
    private final EntryScans entries;
    private final ScanStores stores;
    private final JobWrites writes;
    private final List<IndexPlan> targets;
    private final JobLedger ledger;
    private final RebuildOptions options;
    private InFlight inFlight;

    private Rebuild(EntryRule<H> rule, ScanStores stores, JobWrites writes, List<IndexPlan> targets, JobLedger ledger, RebuildOptions options) {
        this.rule = rule;
        this.rows = rule.rows(stores);
        this.entries = stores.entries();
        this.stores = stores;
        this.writes = writes;
        this.targets = List.copyOf(targets);
        this.ledger = ledger;
        this.options = options;
    }

    /** A rebuild of {@code targets} (indexes of the table {@code rule} is for), reading through {@code stores}, recording in {@code ledger}. */
    static <H extends RowHistory> Rebuild<H> of(EntryRule<H> rule, ScanStores stores, JobWrites writes, List<IndexPlan> targets,
            JobLedger ledger, RebuildOptions options) {
        return new Rebuild<>(rule, stores, writes, targets, ledger, options);
    }

    RebuildResult run(JobLedger.Header job, Progress progress, ProgressListener listener, BooleanSupplier cancelled) {
        this.inFlight = new InFlight(options.maxInFlight());
        List<String> names = targets.stream().map(p -> p.index().name()).toList();
        List<TokenRange> ranges = TokenRanges.split(job.splits());
        Set<TokenRange> finished = new HashSet<>();
        for (JobLedger.RangeDone d : ledger.finished(job.id())) {
            finished.add(d.range());
        }
        List<TokenRange> todo = new ArrayList<>();
        for (TokenRange r : ranges) {
            if (!finished.contains(r)) {
                todo.add(r);
            }
        }
        int skipped = ranges.size() - todo.size();
        if (finished.size() > skipped) {
            LOG.warn("job {}: {} recorded ranges do not match its {} splits; they are ignored", job.id(), finished.size() - skipped, job.splits());
        }
        progress.phase("rebuild");
        progress.start(ranges.size(), skipped);
        LOG.info("rebuild {} of {}.{} {}: {} ranges, {} finished earlier, parallelism {}", job.id(), job.keyspace(), job.table(), names,
                ranges.size(), skipped, options.parallelism());
        long[] totals = new long[2];
        RangeRunner.Outcome outcome = RangeRunner.run("gsi-rebuild-" + job.id(), todo, options.parallelism(), cancelled, (range, stop) -> {
            long[] counts = range(job.id(), range, progress, stop);
            if (counts == null) {
                return false;
            }
            synchronized (totals) {
                totals[0] += counts[0];
                totals[1] += counts[1];
            }
            progress.rangeDone();
            listener.onProgress(progress.snapshot());
            return true;
        });
        Throwable f = outcome.failure();
        int done = skipped + outcome.done();
        JobState state;
        String message = null;
        if (f != null) {
            state = JobState.FAILED;
            message = JobFailure.message(f);
            LOG.error("rebuild {} failed after {}/{} ranges (resume with --job-id {}): {}", job.id(), done, ranges.size(), job.id(), message, f);
        } else if (done < ranges.size()) {
            state = JobState.CANCELLED;
            message = "cancelled after " + done + "/" + ranges.size() + " ranges";
            LOG.info("rebuild {} cancelled after {}/{} ranges", job.id(), done, ranges.size());
        } else {
            state = JobState.DONE;
        }
        try {
            ledger.state(job.id(), state, message);
        } catch (RuntimeException e) {
            LOG.warn("rebuild {}: could not record state {}: {}", job.id(), state, e.toString());
        }
        progress.finish(state.label());
        ProgressSnapshot s = progress.snapshot();
        return new RebuildResult(job.id(), job.keyspace(), job.table(), names, state, ranges.size(), skipped, done, totals[0], totals[1],
                writes.retries(), s.elapsed(), message);
    }

    /**
     * One range, for a caller that walks the ring itself (a job on Spark, docs/design.md section
     * 9.5): its {rows, writes}, or null when {@code stop} ended it early; recorded in the ledger
     * like any range.
     */
    long[] runRange(String jobId, TokenRange range, Progress progress, BooleanSupplier stop) throws InterruptedException {
        if (inFlight == null) {
            inFlight = new InFlight(options.maxInFlight());
        }
        return range(jobId, range, progress, stop);
    }

    /** Streams one range and writes its rows' rewrites; returns {rows, writes}, or null when stopped before the end. */
    private long[] range(String jobId, TokenRange range, Progress progress, BooleanSupplier stop) throws InterruptedException {
        JobWrites.Round pending = writes.round();
        long[] counts = new long[2];
        List<H> batch = new ArrayList<>();
        boolean complete = rows.scan(range.start(), range.end(), row -> {
            batch.add(row);
            if (batch.size() >= BATCH) {
                write(batch, pending, counts, progress);
                batch.clear();
            }
        }, stop);
        if (complete && !batch.isEmpty()) {
            write(batch, pending, counts, progress);
        }
        pending.await();
        if (!complete) {
            return null;
        }
        ledger.finished(jobId, new JobLedger.RangeDone(range, counts[0], counts[1], Instant.now()));
        return counts;
    }

    /**
     * The rewrites of a batch of rows: their records (and, where the rule needs them, their
     * expected entries as they are) read side by side; the rows-table writes sent and acknowledged
     * first, then the index writes added to the range's {@code pending} ones.
     */
    private void write(List<H> batch, JobWrites.Round pending, long[] counts, Progress progress) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<RowRecord>> records = new LinkedHashMap<>();
        List<Map<IndexPlan, Map<List<ByteBuffer>, CompletableFuture<Observed>>>> reads = new ArrayList<>();
        for (H row : batch) {
            records.put(row.rowKey(), inFlight.submit(() -> stores.record(row.rowKey())));
            Map<IndexPlan, Map<List<ByteBuffer>, CompletableFuture<Observed>>> byIndex = new IdentityHashMap<>();
            if (rule.rebuildReadsEntries()) {
                for (IndexPlan p : targets) {
                    Map<List<ByteBuffer>, CompletableFuture<Observed>> m = new LinkedHashMap<>();
                    for (List<ByteBuffer> key : rule.expected(p, row).keySet()) {
                        m.put(key, inFlight.submit(() -> entries.entry(p, key)));
                    }
                    byIndex.put(p, m);
                }
            }
            reads.add(byIndex);
        }
        List<Rewrite> rewrites = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            H row = batch.get(i);
            Map<IndexPlan, Map<List<ByteBuffer>, Observed>> seen = new IdentityHashMap<>();
            reads.get(i).forEach((p, m) -> {
                Map<List<ByteBuffer>, Observed> found = new LinkedHashMap<>();
                m.forEach((key, f) -> {
                    Observed a = InFlight.join(f);
                    if (a != null) {
                        found.put(key, a);
                    }
                });
                seen.put(p, found);
            });
            rewrites.add(rule.rebuild(row, InFlight.join(records.get(row.rowKey())), targets, seen));
        }
        JobWrites.Round first = writes.round();
        for (Rewrite rw : rewrites) {
            first.send(List.of(), rw.first());
        }
        first.await(); // a key is recorded before its entry is written, so that later repairs find it
        for (int i = 0; i < batch.size(); i++) {
            Rewrite rw = rewrites.get(i);
            pending.send(rw.index(), rw.after());
            counts[0] += batch.get(i).size();
            counts[1] += rw.index().size();
            progress.rows(batch.get(i).size());
            progress.writes(rw.index().size());
        }
        pending.check();
    }
}
