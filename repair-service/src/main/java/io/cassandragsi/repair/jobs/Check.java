package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.EntryRule;
import io.cassandragsi.check.EntryScans;
import io.cassandragsi.check.Expected;
import io.cassandragsi.check.Finding;
import io.cassandragsi.check.Observed;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.check.ScanStores;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.schema.IndexLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares index tables with the base table (docs/design.md section 9.2), in two passes over the
 * ring, on either kind of table (what differs is the table's {@link EntryRule}):
 *
 * <ol>
 *   <li>base to index: every row gives the entries it should have ({@link EntryRule#expected});
 *       each is read from the index by key and judged ({@link EntryRule#judge});
 *   <li>index to base: every index row is traced back to its base row (the entry key holds the
 *       row key); an entry that claims a match and that its row does not explain is an orphan.
 * </ol>
 *
 * Reads go out in batches with a bounded number in flight. A difference counts only once the row
 * and the entry read again still differ (a logged batch is atomic, not isolated). With {@code fix},
 * drifted entries get the rule's fix and orphans its removal ({@link CheckFix}), and each is read
 * again and counted as fixed or unfixable.
 */
final class Check<H extends RowHistory> {
    private static final Logger LOG = LoggerFactory.getLogger(Check.class);
    /** Index keys (or index rows) per batch of concurrent reads. */
    static final int BATCH = 256;

    final EntryRule<H> rule;
    final RowScans<H> rows;
    final EntryScans entries;
    final ScanStores stores;
    final JobWrites writes;
    final List<IndexPlan> targets;
    final CheckOptions options;
    final LongSupplier nowTs;
    final Map<IndexPlan, Tally> tallies = new IdentityHashMap<>();
    private final TableDef def;
    private final Map<IndexPlan, int[]> rowKeyPositions = new IdentityHashMap<>();
    InFlight inFlight;
    Progress progress;

    private Check(EntryRule<H> rule, ScanStores stores, JobWrites writes, List<IndexPlan> targets, CheckOptions options, LongSupplier nowTs) {
        this.rule = rule;
        this.rows = rule.rows(stores);
        this.entries = stores.entries();
        this.stores = stores;
        this.writes = writes;
        this.targets = List.copyOf(targets);
        this.options = options;
        this.nowTs = nowTs;
        this.def = rule.plan().table();
        for (IndexPlan p : targets) {
            tallies.put(p, new Tally(p, options.examples()));
            rowKeyPositions.put(p, IndexLayout.of(p.index()).rowKeyInEntryKey(def));
        }
    }

    /**
     * A check of {@code targets} (indexes of the table {@code rule} is for), reading through {@code
     * stores} and writing its fixes through {@code writes}; {@code nowTs} is the TS of now.
     */
    static <H extends RowHistory> Check<H> of(EntryRule<H> rule, ScanStores stores, JobWrites writes, List<IndexPlan> targets,
            CheckOptions options, LongSupplier nowTs) {
        return new Check<>(rule, stores, writes, targets, options, nowTs);
    }

    /**
     * Rows written at or after this moment (ms; see {@link #recent}) are left to the maintainers
     * (anti-entropy, docs/design.md section 9.3): null, nothing is (a check by hand).
     */
    private LongSupplier horizonMillis;

    /** The check of the bucket tables of the targets that have one (docs/design.md section 9.2); null: none. */
    BucketCheck buckets;

    /** Also compares the bucket tables of {@code bucketed} (those of the targets with a bucket table) with the base, through {@code stores}. */
    Check<H> withBuckets(io.cassandragsi.repair.store.BucketStores stores, List<IndexPlan> bucketed) {
        List<IndexPlan> mine = bucketed.stream().filter(targets::contains).toList();
        this.buckets = mine.isEmpty() ? null : new BucketCheck(rule.plan(), mine, stores, options.examples());
        return this;
    }

    /** The bucket check, when this check has one and it began ({@link BucketCheck#begin}); else null. */
    private BucketCheck bucketsBegun() {
        BucketCheck b = buckets;
        return b != null && b.begun() ? b : null;
    }

    /** Leaves what was written at or after {@code horizonMillis} to the maintainers. */
    Check<H> leavingRecent(LongSupplier horizonMillis) {
        this.horizonMillis = horizonMillis;
        return this;
    }

    /**
     * One range, both passes (base to index, then each index to base), for a caller that walks the
     * ring itself (anti-entropy): false when {@code stop} ended it early.
     */
    boolean runRange(TokenRange range, Progress progress, BooleanSupplier stop) throws InterruptedException {
        this.progress = progress;
        if (inFlight == null) {
            inFlight = new InFlight(options.maxInFlight());
        }
        return inPart((part, r, st) -> {
            if (!baseRange(r, st, part)) {
                return false;
            }
            for (IndexPlan p : targets) {
                if (!indexRange(p, r, st)) {
                    return false;
                }
            }
            for (IndexPlan p : part == null ? List.<IndexPlan>of() : buckets.indexes()) {
                if (!part.scan(p, r, progress, st)) {
                    return false;
                }
            }
            return true;
        }, range, stop);
    }

    /**
     * One pass over one range, without the bucket check: {@code base} the first (base to index),
     * else the second of every target (index to base). For a caller that scans the two passes over
     * different ranges (the targeted repair of lost CDC segments, docs/design.md section 7.11).
     */
    boolean runPass(boolean base, TokenRange range, Progress progress, BooleanSupplier stop) throws InterruptedException {
        this.progress = progress;
        if (inFlight == null) {
            inFlight = new InFlight(options.maxInFlight());
        }
        if (base) {
            return baseRange(range, stop, null);
        }
        for (IndexPlan p : targets) {
            if (!indexRange(p, range, stop)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether a row or an entry was written too recently for this check to fix it: its newest
     * version or cell, or the entry's {@code _tid} or {@code _deleted}, at or after the horizon.
     */
    boolean recent(H row, Observed entry) {
        if (horizonMillis == null) {
            return false;
        }
        long horizon = horizonMillis.getAsLong();
        if (entry != null && (after(entry.tid(), horizon) || after(entry.deleted(), horizon))) {
            return true;
        }
        if (row instanceof io.cassandragsi.check.RowHistory.Versions v) {
            return v.versions().stream().anyMatch(version -> after(version.tid(), horizon));
        }
        if (row instanceof io.cassandragsi.check.RowHistory.Current c) {
            for (io.cassandragsi.index.RowReconcile.BaseCell cell : c.row().cells().cells()) {
                if (cell.writetime() != Long.MIN_VALUE && cell.writetime() / 1000 >= horizon) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean after(java.util.UUID tid, long horizonMillis) {
        return tid != null && io.cassandragsi.index.Tids.instant(tid).toEpochMilli() >= horizonMillis;
    }

    CheckResult run(String id, int splits, Progress progress, ProgressListener listener, BooleanSupplier cancelled) {
        this.progress = progress;
        this.inFlight = new InFlight(options.maxInFlight());
        List<TokenRange> ranges = TokenRanges.split(splits);
        List<IndexPlan> bucketed = buckets == null ? List.of() : buckets.indexes();
        int passes = 1 + targets.size() + bucketed.size();
        progress.start(ranges.size() * passes, 0);
        LOG.info("check {} of {} {}{}: {} ranges per pass, parallelism {}", id, def.qualifiedName(), targets.stream().map(p -> p.index().name())
                .toList(), options.fix() ? " with fix" : "", ranges.size(), options.parallelism());
        Throwable failure = null;
        int done = 0;
        try {
            if (buckets != null) {
                buckets.begin(); // the states before any read (docs/design.md section 9.2)
            }
        } catch (RuntimeException e) {
            failure = e;
        }
        RangeRunner.Outcome o;
        if (failure == null) {
            progress.phase("base");
            o = pass(id, ranges, listener, cancelled, (range, stop) -> inPart((part, r, st) -> baseRange(r, st, part), range, stop));
            failure = o.failure();
            done = o.done();
        }
        for (IndexPlan p : targets) {
            if (failure != null || cancelled.getAsBoolean()) {
                break;
            }
            progress.phase(p.index().name());
            o = pass(id, ranges, listener, cancelled, (range, stop) -> indexRange(p, range, stop));
            failure = o.failure();
            done += o.done();
        }
        for (IndexPlan p : bucketed) {
            if (failure != null || cancelled.getAsBoolean()) {
                break;
            }
            progress.phase("buckets of " + p.index().name());
            o = pass(id, ranges, listener, cancelled, (range, stop) -> inPart((part, r, st) -> part.scan(p, r, progress, st), range, stop));
            failure = o.failure();
            done += o.done();
        }
        List<CheckResult.BucketReport> bucketReports = List.of();
        if (failure == null && done == ranges.size() * passes && buckets != null) {
            try {
                bucketReports = buckets.finish(options.fix());
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        JobState state;
        String message = null;
        if (failure != null) {
            state = JobState.FAILED;
            message = JobFailure.message(failure);
            LOG.error("check {} failed: {}", id, message, failure);
        } else if (done < ranges.size() * passes) {
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
        return new CheckResult(id, def.keyspace(), def.table(), state, options.fix(), reports, s.rows(), s.entries(), s.elapsed(), message,
                bucketReports);
    }

    /** A range's work that adds to the bucket digests through a part of its own. */
    @FunctionalInterface
    private interface PartTask {
        boolean run(BucketCheck.Part part, TokenRange range, BooleanSupplier stop) throws InterruptedException;
    }

    /**
     * Runs {@code task} on a new part of the bucket check (null without one), counted when the range
     * is done: a range tried again starts a new part, so it counts once.
     */
    private boolean inPart(PartTask task, TokenRange range, BooleanSupplier stop) throws InterruptedException {
        BucketCheck b = bucketsBegun();
        BucketCheck.Part part = b == null ? null : b.part();
        boolean complete = task.run(part, range, stop);
        if (complete && b != null) {
            b.commit(part);
        }
        return complete;
    }

    private RangeRunner.Outcome pass(String id, List<TokenRange> ranges, ProgressListener listener, BooleanSupplier cancelled,
            RangeRunner.RangeTask task) {
        return RangeRunner.run("gsi-check-" + id, ranges, options.parallelism(), cancelled, (range, stop) -> {
            boolean complete = task.run(range, stop);
            if (complete) {
                progress.rangeDone();
                listener.onProgress(progress.snapshot());
            }
            return complete;
        });
    }

    // ---------------------------------------------------------------- reads

    /** The rows of these keys, read again (side by side, bounded). */
    Map<List<ByteBuffer>, H> rows(Collection<List<ByteBuffer>> rowKeys) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<H>> reads = new LinkedHashMap<>();
        for (List<ByteBuffer> k : rowKeys) {
            if (!reads.containsKey(k)) {
                reads.put(k, inFlight.submit(() -> rows.row(k)));
            }
        }
        Map<List<ByteBuffer>, H> out = new LinkedHashMap<>();
        reads.forEach((k, f) -> out.put(k, InFlight.join(f)));
        return out;
    }

    /** The entries of these keys as the index holds them; absent ones are left out. */
    Map<List<ByteBuffer>, Observed> observed(IndexPlan p, Collection<List<ByteBuffer>> keys) throws InterruptedException {
        Map<List<ByteBuffer>, CompletableFuture<Observed>> reads = new LinkedHashMap<>();
        for (List<ByteBuffer> key : keys) {
            reads.put(key, inFlight.submit(() -> entries.entry(p, key)));
        }
        Map<List<ByteBuffer>, Observed> out = new LinkedHashMap<>();
        reads.forEach((k, f) -> {
            Observed a = InFlight.join(f);
            if (a != null) {
                out.put(k, a);
            }
        });
        return out;
    }

    // ---------------------------------------------------------------- pass 1: base -> index

    /** One base row and the entries each index should have for it. */
    private record RowWork<H>(H row, Map<IndexPlan, Map<List<ByteBuffer>, Expected>> expected) {}

    /** Pass 1 over one range; each row also goes to {@code part} of the bucket check (null: none). */
    private boolean baseRange(TokenRange range, BooleanSupplier stop, BucketCheck.Part part) throws InterruptedException {
        List<RowWork<H>> batch = new ArrayList<>();
        int[] keys = {0};
        boolean complete = rows.scan(range.start(), range.end(), row -> {
            progress.rows(row.size());
            Map<IndexPlan, Map<List<ByteBuffer>, Expected>> expected = new IdentityHashMap<>();
            for (IndexPlan p : targets) {
                Map<List<ByteBuffer>, Expected> e = rule.expected(p, row);
                expected.put(p, e);
                keys[0] += e.size();
                tallies.get(p).expected.add(e.size());
                tallies.get(p).tooLarge.add(rule.tooLarge(p, row));
            }
            if (part != null) {
                part.expect(row);
            }
            batch.add(new RowWork<>(row, expected));
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

    private void examineRows(List<RowWork<H>> batch) throws InterruptedException {
        // every read of the batch goes out first, then the entries are judged
        Map<IndexPlan, Map<List<ByteBuffer>, CompletableFuture<Observed>>> reads = new IdentityHashMap<>();
        for (IndexPlan p : targets) {
            Map<List<ByteBuffer>, CompletableFuture<Observed>> m = new LinkedHashMap<>();
            for (RowWork<H> w : batch) {
                for (List<ByteBuffer> key : w.expected().get(p).keySet()) {
                    m.put(key, inFlight.submit(() -> entries.entry(p, key)));
                }
            }
            reads.put(p, m);
        }
        Map<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> suspects = new LinkedHashMap<>();
        for (IndexPlan p : targets) {
            Tally tally = tallies.get(p);
            for (RowWork<H> w : batch) {
                for (Map.Entry<List<ByteBuffer>, Expected> e : w.expected().get(p).entrySet()) {
                    Observed a = InFlight.join(reads.get(p).get(e.getKey()));
                    Set<Finding> f = rule.judge(p, e.getKey(), e.getValue(), a, w.row());
                    if (f.stream().anyMatch(Finding::drift)) {
                        suspects.computeIfAbsent(w.row().rowKey(), k -> new IdentityHashMap<>()).computeIfAbsent(p, k -> new LinkedHashSet<>())
                                .add(e.getKey());
                    } else if (!f.isEmpty()) {
                        tally.record(e.getKey(), f, e.getValue(), a);
                    }
                }
            }
        }
        if (!suspects.isEmpty()) {
            new CheckFix<>(this).confirmRows(suspects);
        }
    }

    // ---------------------------------------------------------------- pass 2: index -> base

    private record Seen(List<ByteBuffer> key, Observed observed) {}

    private boolean indexRange(IndexPlan p, TokenRange range, BooleanSupplier stop) throws InterruptedException {
        List<Seen> batch = new ArrayList<>();
        boolean complete = entries.scan(p, range.start(), range.end(), (key, observed) -> {
            progress.entries(1);
            batch.add(new Seen(key, observed));
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

    /** The row key an entry of {@code p} names. */
    List<ByteBuffer> rowKey(IndexPlan p, List<ByteBuffer> entryKey) {
        int[] positions = rowKeyPositions.get(p);
        List<ByteBuffer> key = new ArrayList<>(positions.length);
        for (int pos : positions) {
            key.add(entryKey.get(pos));
        }
        return key;
    }

    private void examineEntries(IndexPlan p, List<Seen> batch) throws InterruptedException {
        Map<List<ByteBuffer>, H> read = rows(batch.stream().map(s -> rowKey(p, s.key())).toList());
        Map<List<ByteBuffer>, Set<List<ByteBuffer>>> explained = new LinkedHashMap<>();
        Set<List<ByteBuffer>> suspects = new LinkedHashSet<>();
        for (Seen s : batch) {
            H row = read.get(rowKey(p, s.key()));
            Set<List<ByteBuffer>> keys = explained.computeIfAbsent(row.rowKey(), k -> rule.expected(p, row).keySet());
            if (!keys.contains(s.key()) && !rule.judge(p, s.key(), null, s.observed(), row).isEmpty()) {
                suspects.add(s.key());
            }
        }
        if (!suspects.isEmpty()) {
            new CheckFix<>(this).confirmOrphans(p, suspects);
        }
    }
}
