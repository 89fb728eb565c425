package io.cassandragsi.repair.jobs;

import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.RowRecord;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.maintain.Reconcile;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backfills index tables from every stored version (docs/design.md section 9.1): the base table is
 * streamed by token range, {@code parallelism} ranges at a time; the versions of each row go
 * through the pure {@link TablePlan#diff} with every entry upserted, and the writes for the chosen
 * indexes go out at each version's TS with a bounded number in flight. A range is recorded in the
 * job ledger once all its writes are acknowledged, so a restarted job skips it.
 *
 * <p>Safe while writes continue: the trigger, the repair service and the rebuild all write TS(t)
 * for version t, so whatever the order, last-write-wins leaves what the full history says. A row
 * that changes while its range is streamed is left to the trigger and the queue, which see the new
 * version anyway. The rebuild only adds and corrects entries; rows that no version explains
 * (orphans) are {@code check --fix}'s business.
 */
final class Rebuild {
    private static final Logger LOG = LoggerFactory.getLogger(Rebuild.class);

    private final CqlSession session;
    private final Catalog.Indexed table;
    private final List<IndexPlan> targets;
    private final Set<IndexPlan> targetSet = Collections.newSetFromMap(new IdentityHashMap<>());
    private final JobLedger ledger;
    private final RebuildOptions options;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final IndexWriter writer;

    Rebuild(CqlSession session, Catalog.Indexed table, List<IndexPlan> targets, JobLedger ledger, RebuildOptions options,
            IndexWriter writer, ConsistencyLevel read, ConsistencyLevel write) {
        this.session = session;
        this.writer = writer;
        this.table = table;
        this.targets = List.copyOf(targets);
        this.targetSet.addAll(targets);
        this.ledger = ledger;
        this.options = options;
        this.read = read;
        this.write = write;
    }

    RebuildResult run(JobLedger.Header job, Progress progress, ProgressListener listener, BooleanSupplier cancelled) {
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

        BaseReads base = table.rows != null ? null : new BaseReads(session, table.definition, read, options.pageSize());
        long[] totals = new long[2];
        RangeRunner.Outcome outcome = RangeRunner.run("gsi-rebuild-" + job.id(), todo, options.parallelism(), cancelled, (range, stop) -> {
            long[] counts = range(job.id(), range, base, progress, stop);
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
                writer.retries(), s.elapsed(), message);
    }

    /**
     * One range of an unversioned table: every row of the base and of the rows table (deleted rows
     * keep their entry keys there) is reconciled as the repair service does ({@link Reconcile}).
     */
    private long[] unversionedRange(String jobId, TokenRange range, IndexWriter.Round<TokenRange> pending, Progress progress,
            BooleanSupplier stop) throws InterruptedException {
        long[] counts = new long[2];
        Map<List<ByteBuffer>, RowRecord> records = new LinkedHashMap<>();
        for (RowRecord r : table.records.scan(range.start(), range.end(), options.pageSize(), read)) {
            records.put(r.rowKey(), r);
        }
        Set<List<ByteBuffer>> rows = new LinkedHashSet<>(records.keySet());
        for (CurrentRow r : table.rows.scanBase(range.start(), range.end(), options.pageSize(), read)) {
            rows.add(r.rowKey());
        }
        for (List<ByteBuffer> rowKey : rows) {
            if (stop.getAsBoolean()) {
                InFlight.await(pending);
                return null;
            }
            RowRecord record = records.getOrDefault(rowKey, RowRecord.none(rowKey));
            List<TablePlan.IndexWrite> writes = new ArrayList<>();
            io.cassandragsi.maintain.Stores stores = table.stores(new io.cassandragsi.repair.store.Levels(read, read, write));
            for (Reconcile.IndexResult r : Reconcile.row(table.plan, stores.entries(), targets, record, table.rows.row(rowKey, read), Long.MIN_VALUE,
                    Long.MAX_VALUE, Map.of(), stores.now())) {
                writes.addAll(r.writes());
            }
            for (Statement<?> st : table.statements(writes, write)) {
                pending.send(st, range);
            }
            counts[0]++;
            counts[1] += writes.size();
            progress.rows(1);
            progress.writes(writes.size());
            if (!pending.failures().isEmpty()) {
                InFlight.await(pending); // throws
            }
        }
        InFlight.await(pending);
        ledger.finished(jobId, new JobLedger.RangeDone(range, counts[0], counts[1], Instant.now()));
        return counts;
    }

    /** Streams one range and writes its entries; returns {rows, writes}, or null when stopped before the end. */
    private long[] range(String jobId, TokenRange range, BaseReads base, Progress progress, BooleanSupplier stop)
            throws InterruptedException {
        IndexWriter.Round<TokenRange> pending = writer.round(InFlight.ATTEMPTS);
        long[] counts = new long[2];
        if (table.rows != null) {
            return unversionedRange(jobId, range, pending, progress, stop);
        }
        boolean complete = base.scan(range, (rowKey, versions) -> {
            counts[0] += versions.size();
            progress.rows(versions.size());
            List<TablePlan.IndexWrite> writes = new ArrayList<>();
            Map<String, List<List<ByteBuffer>>> keys = new LinkedHashMap<>();
            for (TablePlan.IndexWrite w : table.plan.diff(versions, true)) {
                if (targetSet.contains(w.index())) {
                    writes.add(w);
                    if (w instanceof TablePlan.Upsert && !w.index().perVersion()) {
                        keys.computeIfAbsent(w.index().index().name(), k -> new ArrayList<>()).add(w.key());
                    }
                }
            }
            if (!keys.isEmpty()) {
                // so that deletes of these versions find their entries
                table.stores(new io.cassandragsi.repair.store.Levels(read, read, write)).now()
                        .write(List.of(new io.cassandragsi.maintain.RowsWrite.AddKeys(rowKey, keys, 0)));
            }
            List<Statement<?>> statements = new ArrayList<>(table.statements(writes, write));
            statements.addAll(table.records.versionKeysOf(rowKey, writes, write)); // the same for per-version entries
            for (Statement<?> st : statements) {
                pending.send(st, range);
            }
            counts[1] += writes.size();
            progress.writes(writes.size());
            if (!pending.failures().isEmpty()) {
                InFlight.await(pending); // throws
            }
        }, stop);
        InFlight.await(pending);
        if (!complete) {
            return null;
        }
        ledger.finished(jobId, new JobLedger.RangeDone(range, counts[0], counts[1], Instant.now()));
        return counts;
    }
}
