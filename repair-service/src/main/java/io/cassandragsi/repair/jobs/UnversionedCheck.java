package io.cassandragsi.repair.jobs;

import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.RowRecord;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.maintain.Reconcile;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Check (and fix) of an unversioned table's indexes. Every row is judged by the reconcile the
 * repair service runs ({@link Reconcile}), as a dry run: whatever it would write is drift. The
 * rows come from three scans by token range: the base (rows as they are), the rows table (rows
 * the trigger or the service saw, deleted ones included) and each index table (every entry that
 * claims a match, so that an entry no record explains is judged too: an orphan). A drifting row
 * is reconciled again before it counts (a write may be between its base row and its entries).
 * With fix, the reconcile's writes go out and the row is judged once more: fixed or unfixable.
 */
final class UnversionedCheck {
    private static final Logger LOG = LoggerFactory.getLogger(UnversionedCheck.class);

    private final CqlSession session;
    private final Catalog.Indexed table;
    private final List<IndexPlan> targets;
    private final CheckOptions options;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final IndexWriter writer;
    private final Map<IndexPlan, long[]> counts = new LinkedHashMap<>();
    private final Map<IndexPlan, List<String>> examples = new LinkedHashMap<>();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong entries = new AtomicLong();

    // per index: expected, missing, stale, wrongTid, wrongDeleted, wrongProjection, orphans, transient, fixed, unfixable, tooLarge
    private static final int EXPECTED = 0, MISSING = 1, STALE = 2, WRONG_TID = 3, WRONG_DELETED = 4, WRONG_PROJ = 5, ORPHANS = 6,
            TRANSIENT = 7, FIXED = 8, UNFIXABLE = 9, TOO_LARGE = 10;

    UnversionedCheck(CqlSession session, Catalog.Indexed table, List<IndexPlan> targets, CheckOptions options, IndexWriter writer,
            ConsistencyLevel read, ConsistencyLevel write) {
        this.session = session;
        this.writer = writer;
        this.table = table;
        this.targets = List.copyOf(targets);
        this.options = options;
        this.read = read;
        this.write = write;
        for (IndexPlan p : targets) {
            counts.put(p, new long[11]);
            examples.put(p, new ArrayList<>());
        }
    }

    CheckResult run(String id, int splits, Progress progress, ProgressListener listener, BooleanSupplier cancelled) {
        List<TokenRange> ranges = TokenRanges.split(splits);
        long t0 = System.nanoTime();
        progress.phase("rows");
        progress.start(ranges.size() * (1 + targets.size()), 0);
        LOG.info("check {} of {} (unversioned) {}{}: {} ranges", id, table.definition.qualifiedName(),
                targets.stream().map(p -> p.index().name()).toList(), options.fix() ? " with fix" : "", ranges.size());
        RangeRunner.Outcome o = RangeRunner.run("gsi-check-" + id, ranges, options.parallelism(), cancelled, (range, stop) -> {
            Map<List<ByteBuffer>, RowRecord> records = new LinkedHashMap<>();
            for (RowRecord r : table.records.scan(range.start(), range.end(), options.pageSize(), read)) {
                records.put(r.rowKey(), r);
            }
            Map<List<ByteBuffer>, CurrentRow> base = new LinkedHashMap<>();
            for (CurrentRow r : table.rows.scanBase(range.start(), range.end(), options.pageSize(), read)) {
                base.put(r.rowKey(), r);
            }
            Set<List<ByteBuffer>> keys = new java.util.LinkedHashSet<>(records.keySet());
            keys.addAll(base.keySet());
            for (List<ByteBuffer> rowKey : keys) {
                if (stop.getAsBoolean()) {
                    return false;
                }
                judge(rowKey, records.get(rowKey), Map.of());
            }
            countTooLarge(base.values());
            progress.rows(keys.size());
            progress.rangeDone();
            listener.onProgress(progress.snapshot());
            return true;
        });
        Throwable failure = o.failure();
        int done = o.done();
        if (failure == null && done == ranges.size()) {
            progress.phase("index");
            for (IndexPlan p : targets) {
                IndexEntries scan = new IndexEntries(session, table.definition, p, read, write, options.pageSize());
                RangeRunner.Outcome io = RangeRunner.run("gsi-check-" + id, ranges, options.parallelism(), cancelled,
                        (range, stop) -> indexRange(p, scan, range, stop, progress, listener));
                failure = io.failure();
                done += io.done();
                if (failure != null) {
                    break;
                }
            }
        }
        JobState state = failure != null ? JobState.FAILED : done < ranges.size() * (1 + targets.size()) ? JobState.CANCELLED : JobState.DONE;
        String message = failure == null ? (state == JobState.CANCELLED ? "cancelled" : null)
                : JobFailure.message(failure);
        if (failure != null) {
            LOG.error("check {} failed: {}", id, message, failure);
        }
        progress.finish(state.label());
        List<CheckResult.IndexReport> reports = new ArrayList<>();
        for (IndexPlan p : targets) {
            long[] c = counts.get(p);
            reports.add(new CheckResult.IndexReport(p.index().name(), c[EXPECTED], c[MISSING], c[STALE], c[WRONG_TID], c[WRONG_DELETED],
                    c[WRONG_PROJ], c[ORPHANS], 0, c[TRANSIENT], c[FIXED], c[UNFIXABLE], c[TOO_LARGE], List.copyOf(examples.get(p))));
        }
        return new CheckResult(id, table.definition.keyspace(), table.definition.table(), state, options.fix(), reports, rows.get(),
                entries.get(), Duration.ofNanos(System.nanoTime() - t0), message);
    }

    /** The index pass: every entry that claims a match and that its row's record does not list is judged with its row. */
    private boolean indexRange(IndexPlan p, IndexEntries scan, TokenRange range, BooleanSupplier stop, Progress progress,
            ProgressListener listener) throws InterruptedException {
        int[] rowKeyInEntry = rowKeyPositions(p);
        Map<List<ByteBuffer>, Set<List<ByteBuffer>>> claims = new LinkedHashMap<>();
        boolean complete = scan.scan(range, (key, actual) -> {
            entries.incrementAndGet();
            RowReconcile.EntryState e = new RowReconcile.EntryState(actual.tid() == null ? null : io.cassandragsi.index.Tids.bytes(actual.tid()),
                    actual.deleted() == null ? null : io.cassandragsi.index.Tids.bytes(actual.deleted()), new ByteBuffer[0], new long[0]);
            if (!e.matches()) {
                return;
            }
            List<ByteBuffer> rowKey = new ArrayList<>(rowKeyInEntry.length);
            for (int k : rowKeyInEntry) {
                rowKey.add(key.get(k));
            }
            claims.computeIfAbsent(rowKey, r -> new HashSet<>()).add(key);
        }, stop);
        if (!complete) {
            return false;
        }
        for (Map.Entry<List<ByteBuffer>, Set<List<ByteBuffer>>> c : claims.entrySet()) {
            RowRecord record = table.records.record(c.getKey(), read);
            Set<List<ByteBuffer>> unknown = new HashSet<>(c.getValue());
            if (record != null) {
                unknown.removeAll(record.keys(p.index().name()));
            }
            if (!unknown.isEmpty()) {
                judge(c.getKey(), record, Map.of(p.index().name(), unknown));
            }
        }
        progress.rangeDone();
        listener.onProgress(progress.snapshot());
        return true;
    }

    private int[] rowKeyPositions(IndexPlan p) {
        return io.cassandragsi.schema.IndexLayout.of(p.index()).rowKeyInEntryKey(table.definition);
    }

    /** Judges one row: drift is what a reconcile would write; confirmed by a second look, fixed when asked. */
    private void judge(List<ByteBuffer> rowKey, RowRecord record, Map<String, Set<List<ByteBuffer>>> extra)
            throws InterruptedException {
        rows.incrementAndGet();
        List<Reconcile.IndexResult> first = reconcile(rowKey, record, extra, false);
        if (first.stream().noneMatch(r -> drifts(r))) {
            first.forEach(r -> count(r, null));
            return;
        }
        RowRecord again = table.records.record(rowKey, read);
        List<Reconcile.IndexResult> second = reconcile(rowKey, again, extra, options.fix());
        IndexWriter.Round<List<ByteBuffer>> fixes = writer.round(1);
        for (int i = 0; i < second.size(); i++) {
            Reconcile.IndexResult r = second.get(i);
            if (!drifts(r)) {
                if (drifts(first.get(i))) {
                    synchronized (counts) {
                        counts.get(r.index())[TRANSIENT]++;
                    }
                }
                count(r, null);
                continue;
            }
            count(r, again);
            if (options.fix()) {
                for (Statement<?> st : table.statements(r.writes(), write)) {
                    fixes.send(st, rowKey);
                }
            }
        }
        if (options.fix()) {
            Map<List<ByteBuffer>, Throwable> failed = fixes.await();
            if (!failed.isEmpty()) {
                Throwable t = failed.get(rowKey);
                throw t instanceof RuntimeException e ? e : new JobFailedException("index write failed: " + t, t);
            }
            List<Reconcile.IndexResult> after = reconcile(rowKey, table.records.record(rowKey, read), extra, false);
            for (int i = 0; i < after.size(); i++) {
                Reconcile.IndexResult r = after.get(i);
                if (drifts(second.get(i))) {
                    synchronized (counts) {
                        counts.get(r.index())[drifts(r) ? UNFIXABLE : FIXED]++;
                    }
                }
            }
        }
    }

    private List<Reconcile.IndexResult> reconcile(List<ByteBuffer> rowKey, RowRecord record,
            Map<String, Set<List<ByteBuffer>>> extra, boolean recordKeys) {
        CurrentRow row = table.rows.row(rowKey, read);
        io.cassandragsi.maintain.Stores stores = table.stores(new io.cassandragsi.repair.store.Levels(read, read, write));
        return Reconcile.row(table.plan, stores.entries(), targets, record == null ? RowRecord.none(rowKey) : record, row, Long.MIN_VALUE,
                Long.MAX_VALUE, extra, recordKeys ? stores.now() : null);
    }

    /** True when the reconcile would change the entry state (rewriting what is already there is not drift). */
    private static boolean drifts(Reconcile.IndexResult r) {
        for (TablePlan.IndexWrite w : r.writes()) {
            if (w instanceof TablePlan.MarkDeleted || kind((TablePlan.Reconciled) w, r.entries().get(w.key())) != null) {
                return true;
            }
        }
        return false;
    }

    /** How an entry differs from what the base says it should be, or null when it does not. */
    private static String kind(TablePlan.Reconciled w, RowReconcile.EntryState e) {
        if (e == null || !e.matches()) {
            return "missing";
        }
        if (WriteTimestamps.ofSerialized(e.tid()) < w.timestamp()) {
            return "wrong_tid";
        }
        for (int i = 0; i < w.proj().length; i++) {
            TablePlan.ProjCell c = w.proj()[i];
            if (c != null && (c.value() == null ? e.proj()[i] != null : !c.value().equals(e.proj()[i]))) {
                return "wrong_projection";
            }
        }
        return null;
    }

    private static String hex(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return "0x" + java.util.HexFormat.of().formatHex(bytes);
    }

    /** Counts the rows whose entry key is too large to store, per index (no entry by design). */
    private void countTooLarge(java.util.Collection<CurrentRow> rows) {
        synchronized (counts) {
            for (CurrentRow row : rows) {
                for (IndexPlan p : targets) {
                    if (table.plan.keyTooLarge(p, row.cells())) {
                        counts.get(p)[TOO_LARGE]++;
                    }
                }
            }
        }
    }

    private void count(Reconcile.IndexResult r, RowRecord record) {
        synchronized (counts) {
            long[] c = counts.get(r.index());
            if (r.current() != null) {
                c[EXPECTED]++;
            }
            if (record == null && !drifts(r)) {
                return;
            }
            for (TablePlan.IndexWrite w : r.writes()) {
                String kind;
                if (w instanceof TablePlan.MarkDeleted) {
                    boolean known = record != null && record.keys(r.index().index().name()).contains(w.key());
                    kind = known ? "stale" : "orphan";
                    c[known ? STALE : ORPHANS]++;
                    if (known) {
                        c[WRONG_DELETED]++;
                    }
                } else {
                    kind = kind((TablePlan.Reconciled) w, r.entries().get(w.key()));
                    if (kind == null) {
                        continue;
                    }
                    switch (kind) {
                        case "missing" -> c[MISSING]++;
                        case "wrong_tid" -> {
                            c[STALE]++;
                            c[WRONG_TID]++;
                        }
                        default -> {
                            c[STALE]++;
                            c[WRONG_PROJ]++;
                        }
                    }
                }
                List<String> ex = examples.get(r.index());
                if (ex.size() < options.examples()) {
                    ex.add(kind + ": entry " + w.key().stream().map(UnversionedCheck::hex).toList());
                }
            }
        }
    }
}
