package io.cassandragsi.repair.jobs;

import io.cassandragsi.maintain.Version;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.VersionRecompute;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.schema.IndexLayout;
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
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares index tables with the base table, in two passes over the ring:
 *
 * <ol>
 *   <li>base to index: every row's versions give the entries it should have ({@link
 *       EntryCheck#expected}); each is read from the index by key and judged: missing, wrong
 *       {@code _tid}, wrong {@code _deleted}, wrong projection, or an approximate {@code _deleted}
 *       (legitimate);
 *   <li>index to base: every index row is traced back to its base row (the index key holds the
 *       base key except the tid), whose versions must explain it, else it is an orphan.
 * </ol>
 *
 * Reads go out in batches with a bounded number in flight. A difference is confirmed by reading
 * the row and the entry again before it counts (a write can be between its base row and its
 * index rows: a logged batch is atomic, not isolated). With {@code fix}, missing and stale entries
 * get the rebuild's writes for their row at each version's TS, orphans a tombstone above every TS
 * that could have written them ({@link EntryCheck#orphanDeleteTimestamp}); each fixed entry is
 * read again and counted as fixed or unfixable.
 */
final class Check {
    private static final Logger LOG = LoggerFactory.getLogger(Check.class);
    /** Index keys (or index rows) per batch of concurrent reads. */
    static final int BATCH = 256;

    private final CqlSession session;
    private final Catalog.Indexed table;
    private final List<IndexPlan> targets;
    private final CheckOptions options;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final IndexWriter writer;
    private final Map<IndexPlan, EntryCheck> checkers = new IdentityHashMap<>();
    private final Map<IndexPlan, IndexEntries> entries = new IdentityHashMap<>();
    private final Map<IndexPlan, Tally> tallies = new IdentityHashMap<>();
    private final Map<IndexPlan, int[]> rowKeyPositions = new IdentityHashMap<>();
    private BaseReads base;
    private InFlight inFlight;
    private Progress progress;

    Check(CqlSession session, Catalog.Indexed table, List<IndexPlan> targets, CheckOptions options, IndexWriter writer,
            ConsistencyLevel read, ConsistencyLevel write) {
        this.session = session;
        this.writer = writer;
        this.table = table;
        this.targets = List.copyOf(targets);
        this.options = options;
        this.read = read;
        this.write = write;
        for (IndexPlan p : targets) {
            checkers.put(p, new EntryCheck(table.plan, p));
            tallies.put(p, new Tally(p, options.examples()));
            rowKeyPositions.put(p, IndexLayout.of(p.index()).rowKeyInEntryKey(table.definition));
        }
    }

    CheckResult run(String id, int splits, Progress progress, ProgressListener listener, BooleanSupplier cancelled) {
        this.progress = progress;
        this.base = new BaseReads(session, table.definition, read, options.pageSize());
        this.inFlight = new InFlight(options.maxInFlight());
        for (IndexPlan p : targets) {
            entries.put(p, new IndexEntries(session, table.definition, p, read, write, options.pageSize()));
        }
        List<TokenRange> ranges = TokenRanges.split(splits);
        progress.start(ranges.size() * (1 + targets.size()), 0);
        List<String> names = targets.stream().map(p -> p.index().name()).toList();
        LOG.info("check {} of {} {}{}: {} ranges per pass, parallelism {}", id, table.definition.qualifiedName(), names,
                options.fix() ? " with fix" : "", ranges.size(), options.parallelism());

        Throwable failure;
        int done;
        progress.phase("base");
        RangeRunner.Outcome o = RangeRunner.run("gsi-check-" + id, ranges, options.parallelism(), cancelled, (range, stop) -> {
            boolean complete = baseRange(range, stop);
            if (complete) {
                progress.rangeDone();
                listener.onProgress(progress.snapshot());
            }
            return complete;
        });
        failure = o.failure();
        done = o.done();
        for (IndexPlan p : targets) {
            if (failure != null || cancelled.getAsBoolean()) {
                break;
            }
            progress.phase(p.index().name());
            o = RangeRunner.run("gsi-check-" + id, ranges, options.parallelism(), cancelled, (range, stop) -> {
                boolean complete = indexRange(p, range, stop);
                if (complete) {
                    progress.rangeDone();
                    listener.onProgress(progress.snapshot());
                }
                return complete;
            });
            failure = o.failure();
            done += o.done();
        }
        JobState state;
        String message = null;
        if (failure != null) {
            state = JobState.FAILED;
            message = JobFailure.message(failure);
            LOG.error("check {} failed: {}", id, message, failure);
        } else if (done < ranges.size() * (1 + targets.size())) {
            state = JobState.CANCELLED;
            message = "cancelled: counts cover part of the ring";
        } else {
            state = JobState.DONE;
        }
        progress.finish(state.label());
        List<CheckResult.IndexReport> reports = new ArrayList<>();
        for (IndexPlan p : targets) {
            reports.add(tallies.get(p).report());
        }
        ProgressSnapshot s = progress.snapshot();
        return new CheckResult(id, table.definition.keyspace(), table.definition.table(), state, options.fix(), reports, s.rows(),
                s.entries(), s.elapsed(), message);
    }

    // ---------------------------------------------------------------- pass 1: base -> index

    /** One base row and the entries each index should have for it. */
    private record RowWork(List<ByteBuffer> rowKey, List<Version> versions, Map<IndexPlan, Map<List<ByteBuffer>, EntryCheck.Expected>> expected) {}

    private boolean baseRange(TokenRange range, BooleanSupplier stop) throws InterruptedException {
        List<RowWork> batch = new ArrayList<>();
        int[] keys = {0};
        boolean complete = base.scan(range, (rowKey, versions) -> {
            progress.rows(versions.size());
            Map<IndexPlan, Map<List<ByteBuffer>, EntryCheck.Expected>> expected = new IdentityHashMap<>();
            for (IndexPlan p : targets) {
                Map<List<ByteBuffer>, EntryCheck.Expected> e = checkers.get(p).expected(versions);
                expected.put(p, e);
                keys[0] += e.size();
                tallies.get(p).expected.add(e.size());
                for (Version v : versions) {
                    if (table.plan.keyTooLarge(p, v)) {
                        tallies.get(p).tooLarge.increment();
                    }
                }
            }
            batch.add(new RowWork(rowKey, versions, expected));
            if (keys[0] >= BATCH || batch.size() >= BATCH) {
                examineRows(batch);
                batch.clear();
                keys[0] = 0;
            }
        }, stop);
        if (complete && !batch.isEmpty()) {
            examineRows(batch);
        }
        return complete;
    }

    /** Reads the entries of these keys; absent ones are left out of the map. */
    private Map<List<ByteBuffer>, EntryCheck.Actual> actuals(IndexPlan p, Iterable<List<ByteBuffer>> keys) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<EntryCheck.Actual>> reads = new LinkedHashMap<>();
        IndexEntries e = entries.get(p);
        for (List<ByteBuffer> key : keys) {
            reads.put(key, inFlight.submit(() -> e.read(key)));
        }
        Map<List<ByteBuffer>, EntryCheck.Actual> out = new LinkedHashMap<>();
        for (Map.Entry<List<ByteBuffer>, CompletableFuture<EntryCheck.Actual>> r : reads.entrySet()) {
            EntryCheck.Actual a = join(r.getValue());
            if (a != null) {
                out.put(r.getKey(), a);
            }
        }
        return out;
    }

    private static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            throw new JobFailedException("read failed after " + InFlight.ATTEMPTS + " attempts: " + e.getCause(), e.getCause());
        }
    }

    private void examineRows(List<RowWork> batch) throws InterruptedException {
        // fire every read of the batch first, then judge
        Map<IndexPlan, Map<List<ByteBuffer>, CompletableFuture<EntryCheck.Actual>>> reads = new IdentityHashMap<>();
        for (IndexPlan p : targets) {
            Map<List<ByteBuffer>, CompletableFuture<EntryCheck.Actual>> m = new LinkedHashMap<>();
            IndexEntries e = entries.get(p);
            for (RowWork w : batch) {
                for (List<ByteBuffer> key : w.expected().get(p).keySet()) {
                    m.put(key, inFlight.submit(() -> e.read(key)));
                }
            }
            reads.put(p, m);
        }
        Map<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> suspects = new LinkedHashMap<>();
        for (IndexPlan p : targets) {
            EntryCheck checker = checkers.get(p);
            Tally tally = tallies.get(p);
            for (RowWork w : batch) {
                Map<List<ByteBuffer>, EntryCheck.Expected> expected = w.expected().get(p);
                Map<List<ByteBuffer>, EntryCheck.Actual> actual = new LinkedHashMap<>();
                for (List<ByteBuffer> key : expected.keySet()) {
                    EntryCheck.Actual a = join(reads.get(p).get(key));
                    if (a != null) {
                        actual.put(key, a);
                    }
                }
                for (Map.Entry<List<ByteBuffer>, Set<EntryCheck.Finding>> f : checker.compare(expected, actual, w.versions()).entrySet()) {
                    if (f.getValue().stream().anyMatch(EntryCheck.Finding::drift)) {
                        suspects.computeIfAbsent(w.rowKey(), k -> new IdentityHashMap<>()).computeIfAbsent(p, k -> new HashSet<>()).add(f.getKey());
                    } else {
                        tally.record(f.getKey(), f.getValue(), expected.get(f.getKey()), actual.get(f.getKey()));
                    }
                }
            }
        }
        if (!suspects.isEmpty()) {
            confirmRows(suspects);
        }
    }

    /** Reads each suspect row and its suspect entries again; counts what still differs, fixes it if asked. */
    private void confirmRows(Map<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> suspects) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<List<Version>>> rows = new LinkedHashMap<>();
        for (List<ByteBuffer> rowKey : suspects.keySet()) {
            rows.put(rowKey, inFlight.submit(() -> base.row(rowKey)));
        }
        IndexWriter.Round<List<ByteBuffer>> fixes = writer.round(InFlight.ATTEMPTS);
        List<Runnable> verify = new ArrayList<>();
        for (Map.Entry<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> row : suspects.entrySet()) {
            List<Version> versions = join(rows.get(row.getKey()));
            Map<IndexPlan, Set<List<ByteBuffer>>> toFix = new IdentityHashMap<>();
            for (Map.Entry<IndexPlan, Set<List<ByteBuffer>>> s : row.getValue().entrySet()) {
                IndexPlan p = s.getKey();
                EntryCheck checker = checkers.get(p);
                Tally tally = tallies.get(p);
                Map<List<ByteBuffer>, EntryCheck.Expected> expected = checker.expected(versions);
                Map<List<ByteBuffer>, EntryCheck.Actual> actual = actuals(p, s.getValue());
                for (List<ByteBuffer> key : s.getValue()) {
                    Set<EntryCheck.Finding> f = checker.judge(key, expected.get(key), actual.get(key), versions);
                    if (f.stream().noneMatch(EntryCheck.Finding::drift)) {
                        tally.transients.increment();
                        if (!f.isEmpty()) {
                            tally.record(key, f, expected.get(key), actual.get(key));
                        }
                        continue;
                    }
                    tally.record(key, f, expected.get(key), actual.get(key));
                    if (options.fix()) {
                        toFix.computeIfAbsent(p, k -> new HashSet<>()).add(key);
                    }
                }
            }
            if (!toFix.isEmpty()) {
                fixRow(row.getKey(), versions, toFix, fixes);
                verify.add(() -> verifyRow(row.getKey(), toFix));
            }
        }
        InFlight.await(fixes);
        for (Runnable v : verify) {
            v.run();
        }
    }

    /**
     * The writes that fix one row's entries (missing, stale, or orphaned by key): a per-version
     * index gets the rebuild's writes at each version's TS; any other gets the repair service's
     * recompute ({@link VersionRecompute}), which writes above the cells it corrects, so that an
     * entry a recompute or a delete left with later timestamps is fixed too.
     */
    private void fixRow(List<ByteBuffer> rowKey, List<Version> versions, Map<IndexPlan, Set<List<ByteBuffer>>> toFix,
            IndexWriter.Round<List<ByteBuffer>> pending)
            throws InterruptedException {
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        for (TablePlan.IndexWrite w : table.plan.diff(versions, true)) {
            Set<List<ByteBuffer>> keys = toFix.get(w.index());
            if (w.index().perVersion() && keys != null && keys.contains(w.key())) {
                writes.add(w);
            }
        }
        for (Map.Entry<IndexPlan, Set<List<ByteBuffer>>> e : toFix.entrySet()) {
            if (e.getKey().perVersion()) {
                continue;
            }
            Map<List<ByteBuffer>, RowReconcile.EntryState> entries = table.indexTables.get(e.getKey()).entryStatesAsync(e.getValue(), read).join();
            // a cell that reads as absent may be an expired one whose timestamp cannot be read: write it above now
            writes.addAll(VersionRecompute.recompute(table.plan, e.getKey(), versions, e.getValue(), entries, Tids.ticks(Instant.now()), true));
        }
        long highest = VersionRecompute.highestTimestamp(writes);
        if (highest != Long.MIN_VALUE) {
            // later diffs of this row's versions recompute it (docs/design.md section 6)
            table.stores(new io.cassandragsi.repair.store.Levels(read, read, write)).now()
                    .write(List.of(new io.cassandragsi.maintain.RowsWrite.RecordRecompute(rowKey, highest)));
        }
        List<Statement<?>> statements = new ArrayList<>(table.statements(writes, write));
        statements.addAll(table.records.versionKeysOf(rowKey, writes, write)); // so that a delete of the version finds the entry
        for (Statement<?> st : statements) {
            pending.send(st, rowKey);
        }
        progress.writes(writes.size());
    }

    private void verifyRow(List<ByteBuffer> rowKey, Map<IndexPlan, Set<List<ByteBuffer>>> fixed) {
        try {
            List<Version> versions = join(inFlight.submit(() -> base.row(rowKey)));
            for (Map.Entry<IndexPlan, Set<List<ByteBuffer>>> e : fixed.entrySet()) {
                IndexPlan p = e.getKey();
                EntryCheck checker = checkers.get(p);
                Map<List<ByteBuffer>, EntryCheck.Expected> expected = checker.expected(versions);
                Map<List<ByteBuffer>, EntryCheck.Actual> actual = actuals(p, e.getValue());
                for (List<ByteBuffer> key : e.getValue()) {
                    Set<EntryCheck.Finding> f = checker.judge(key, expected.get(key), actual.get(key), versions);
                    if (f.stream().anyMatch(EntryCheck.Finding::drift)) {
                        tallies.get(p).unfixable(key, f, expected.get(key), actual.get(key));
                    } else {
                        tallies.get(p).fixed.increment();
                    }
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new JobFailedException("interrupted", ex);
        }
    }

    // ---------------------------------------------------------------- pass 2: index -> base

    private record Seen(List<ByteBuffer> key, EntryCheck.Actual actual) {}

    private boolean indexRange(IndexPlan p, TokenRange range, BooleanSupplier stop) throws InterruptedException {
        List<Seen> batch = new ArrayList<>();
        boolean complete = entries.get(p).scan(range, (key, actual) -> {
            progress.entries(1);
            batch.add(new Seen(key, actual));
            if (batch.size() >= BATCH) {
                examineEntries(p, batch);
                batch.clear();
            }
        }, stop);
        if (complete && !batch.isEmpty()) {
            examineEntries(p, batch);
        }
        return complete;
    }

    private List<ByteBuffer> rowKey(IndexPlan p, List<ByteBuffer> entryKey) {
        int[] positions = rowKeyPositions.get(p);
        List<ByteBuffer> key = new ArrayList<>(positions.length);
        for (int pos : positions) {
            key.add(entryKey.get(pos));
        }
        return key;
    }

    private Map<List<ByteBuffer>, List<Version>> rows(Iterable<List<ByteBuffer>> rowKeys) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<List<Version>>> reads = new LinkedHashMap<>();
        for (List<ByteBuffer> k : rowKeys) {
            if (!reads.containsKey(k)) {
                reads.put(k, inFlight.submit(() -> base.row(k)));
            }
        }
        Map<List<ByteBuffer>, List<Version>> out = new LinkedHashMap<>();
        for (Map.Entry<List<ByteBuffer>, CompletableFuture<List<Version>>> r : reads.entrySet()) {
            out.put(r.getKey(), join(r.getValue()));
        }
        return out;
    }

    private void examineEntries(IndexPlan p, List<Seen> batch) throws InterruptedException {
        EntryCheck checker = checkers.get(p);
        Tally tally = tallies.get(p);
        List<List<ByteBuffer>> rowKeys = new ArrayList<>();
        for (Seen s : batch) {
            rowKeys.add(rowKey(p, s.key()));
        }
        Map<List<ByteBuffer>, List<Version>> versions = rows(rowKeys);
        Map<List<ByteBuffer>, Set<List<ByteBuffer>>> explained = new LinkedHashMap<>();
        List<Seen> suspects = new ArrayList<>();
        for (int i = 0; i < batch.size(); i++) {
            Seen s = batch.get(i);
            List<ByteBuffer> rk = rowKeys.get(i);
            Set<List<ByteBuffer>> keys = explained.computeIfAbsent(rk, k -> checker.expected(versions.get(k)).keySet());
            if (!keys.contains(s.key())) {
                suspects.add(s);
            }
        }
        if (suspects.isEmpty()) {
            return;
        }
        // confirm: the row again (a version may have been in flight) and the entry again
        Map<List<ByteBuffer>, List<Version>> fresh = rows(suspects.stream().map(s -> rowKey(p, s.key())).toList());
        Map<List<ByteBuffer>, EntryCheck.Actual> still = actuals(p, suspects.stream().map(Seen::key).toList());
        IndexWriter.Round<List<ByteBuffer>> deletes = writer.round(InFlight.ATTEMPTS);
        List<Seen> deleted = new ArrayList<>();
        long nowTs = Tids.ticks(Instant.now());
        for (Seen s : suspects) {
            List<Version> vs = fresh.get(rowKey(p, s.key()));
            EntryCheck.Actual a = still.get(s.key());
            if (a == null || checker.expected(vs).containsKey(s.key())) {
                tally.transients.increment();
                continue;
            }
            if (a.effectiveDeleted() != null) {
                continue; // marked deleted after its _tid: how a repair leaves the entry of a version that went away
            }
            tally.record(s.key(), java.util.EnumSet.of(EntryCheck.Finding.ORPHAN), null, a);
            if (options.fix()) {
                long newest = vs.isEmpty() ? Long.MIN_VALUE : WriteTimestamps.of(vs.get(vs.size() - 1).tid());
                long ts = EntryCheck.orphanDeleteTimestamp(newest, a.maxWritetime(), nowTs);
                IndexEntries e = entries.get(p);
                deletes.send(e.delete(s.key(), ts), s.key());
                progress.writes(1);
                deleted.add(s);
            }
        }
        InFlight.await(deletes);
        if (!deleted.isEmpty()) {
            Map<List<ByteBuffer>, EntryCheck.Actual> after = actuals(p, deleted.stream().map(Seen::key).toList());
            for (Seen s : deleted) {
                EntryCheck.Actual a = after.get(s.key());
                if (a == null) {
                    tally.fixed.increment();
                } else {
                    tally.unfixable(s.key(), java.util.EnumSet.of(EntryCheck.Finding.ORPHAN), null, a);
                }
            }
        }
    }
}
