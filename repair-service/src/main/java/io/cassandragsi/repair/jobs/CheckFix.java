package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.Expected;
import io.cassandragsi.check.Finding;
import io.cassandragsi.check.Observed;
import io.cassandragsi.check.Rewrite;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.BucketChanges;
import io.cassandragsi.maintain.RowRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The second look of a {@link Check} at what differed (docs/design.md section 9.2), and its fix:
 * suspect rows and entries are read again and judged again; what still differs is counted, and
 * with {@code fix} gets the rule's writes ({@link io.cassandragsi.check.EntryRule#fix}, the
 * removal of orphans), after which it is read and judged once more: fixed, or unfixable.
 */
final class CheckFix<H extends RowHistory> {
    private final Check<H> check;

    CheckFix(Check<H> check) {
        this.check = check;
    }

    /** What one row needs: the keys to fix per index (each with the entry as read), and the orphans to remove. */
    private record RowFix<H>(H row, Map<IndexPlan, Map<List<ByteBuffer>, Observed>> fix, Map<IndexPlan, Map<List<ByteBuffer>, Observed>> orphans) {}

    /** Pass 1's suspects: per row, per index, the entry keys that differed at first sight. */
    void confirmRows(Map<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> suspects) throws InterruptedException {
        Map<List<ByteBuffer>, H> rows = check.rows(suspects.keySet());
        List<RowFix<H>> fixes = new ArrayList<>();
        for (Map.Entry<List<ByteBuffer>, Map<IndexPlan, Set<List<ByteBuffer>>>> s : suspects.entrySet()) {
            H row = rows.get(s.getKey());
            RowFix<H> fix = new RowFix<>(row, new IdentityHashMap<>(), new IdentityHashMap<>());
            for (Map.Entry<IndexPlan, Set<List<ByteBuffer>>> byIndex : s.getValue().entrySet()) {
                judgeAgain(byIndex.getKey(), row, byIndex.getValue(), fix);
            }
            if (!fix.fix().isEmpty() || !fix.orphans().isEmpty()) {
                fixes.add(fix);
            }
        }
        write(fixes);
    }

    /** Pass 2's suspects of one index: entries that no row explained at first sight. */
    void confirmOrphans(IndexPlan p, Set<List<ByteBuffer>> keys) throws InterruptedException {
        Map<List<ByteBuffer>, Set<List<ByteBuffer>>> byRow = new LinkedHashMap<>();
        for (List<ByteBuffer> key : keys) {
            byRow.computeIfAbsent(check.rowKey(p, key), k -> new LinkedHashSet<>()).add(key);
        }
        Map<List<ByteBuffer>, H> rows = check.rows(byRow.keySet());
        List<RowFix<H>> fixes = new ArrayList<>();
        for (Map.Entry<List<ByteBuffer>, Set<List<ByteBuffer>>> r : byRow.entrySet()) {
            RowFix<H> fix = new RowFix<>(rows.get(r.getKey()), new IdentityHashMap<>(), new IdentityHashMap<>());
            judgeAgain(p, fix.row(), r.getValue(), fix);
            if (!fix.orphans().isEmpty() || !fix.fix().isEmpty()) {
                fixes.add(fix);
            }
        }
        write(fixes);
    }

    /** Judges {@code keys} of one index against the row as read again; counts what still differs, and adds it to {@code fix} when asked. */
    private void judgeAgain(IndexPlan p, H row, Set<List<ByteBuffer>> keys, RowFix<H> fix) throws InterruptedException {
        Tally tally = check.tallies.get(p);
        Map<List<ByteBuffer>, Expected> expected = check.rule.expected(p, row);
        Map<List<ByteBuffer>, Observed> actual = check.observed(p, keys);
        for (List<ByteBuffer> key : keys) {
            Expected e = expected.get(key);
            Observed a = actual.get(key);
            Set<Finding> f = check.rule.judge(p, key, e, a, row);
            if (f.stream().anyMatch(Finding::drift) && check.recent(row, a)) {
                tally.leftToMaintainers.increment(); // written since the safe time: the maintainers' work, maybe not done yet
                continue;
            }
            if (f.stream().noneMatch(Finding::drift)) {
                tally.transients.increment();
                if (!f.isEmpty()) {
                    tally.record(key, f, e, a);
                }
                continue;
            }
            tally.record(key, f, e, a);
            if (check.options.fix()) {
                (f.contains(Finding.ORPHAN) ? fix.orphans() : fix.fix()).computeIfAbsent(p, k -> new LinkedHashMap<>()).put(key, a);
            }
        }
    }

    /**
     * Sends the fixes of these rows: the rows-table writes they depend on first (acknowledged), then
     * the index writes; then judges every fixed entry again.
     */
    private void write(List<RowFix<H>> fixes) throws InterruptedException {
        if (fixes.isEmpty()) {
            return;
        }
        Map<List<ByteBuffer>, CompletableFuture<RowRecord>> records = new LinkedHashMap<>();
        for (RowFix<H> f : fixes) {
            List<ByteBuffer> rowKey = f.row().rowKey();
            records.put(rowKey, f.fix().isEmpty() ? CompletableFuture.completedFuture(null) : check.inFlight.submit(() -> check.stores.record(rowKey)));
        }
        long now = check.nowTs.getAsLong();
        List<Rewrite> rewrites = new ArrayList<>();
        for (RowFix<H> f : fixes) {
            Rewrite rw = Rewrite.NONE;
            RowRecord record = InFlight.join(records.get(f.row().rowKey()));
            for (Map.Entry<IndexPlan, Map<List<ByteBuffer>, Observed>> e : f.fix().entrySet()) {
                Map<List<ByteBuffer>, Observed> seen = new LinkedHashMap<>(e.getValue());
                seen.values().removeIf(o -> o == null);
                rw = rw.plus(check.rule.fix(e.getKey(), f.row(), record, seen, e.getValue().keySet(), now));
            }
            List<TablePlan.IndexWrite> removals = new ArrayList<>();
            f.orphans().forEach((p, keys) -> keys.forEach((key, a) -> removals.add(check.rule.removeOrphan(p, key, a, f.row(), now))));
            rewrites.add(rw.plus(new Rewrite(List.of(), removals, List.of())));
        }
        JobWrites.Round first = check.writes.round();
        for (Rewrite rw : rewrites) {
            first.send(List.of(), rw.first());
        }
        first.await();
        JobWrites.Round rest = check.writes.round();
        for (Rewrite rw : rewrites) {
            rest.send(rw.index(), rw.after());
            check.progress.writes(rw.index().size());
        }
        rest.await();
        recordBucketChanges(fixes);
        verify(fixes);
    }

    /**
     * A fixed row of a table with buckets had a history the seals may not have seen (a write that
     * bypassed the trigger, section 9.3): its change is recorded from its first version on, or for
     * every bucket when it has none left (docs/design.md section 9.4).
     */
    private void recordBucketChanges(List<RowFix<H>> fixes) {
        TablePlan plan = check.rule.plan();
        if (!plan.hasBuckets()) {
            return;
        }
        BucketChanges buckets = check.stores.buckets();
        Set<BucketRule.Change> changes = new LinkedHashSet<>();
        for (RowFix<H> f : fixes) {
            UUID first = f.row() instanceof RowHistory.Versions v && !v.versions().isEmpty() ? v.versions().get(0).tid() : null;
            BucketRule.Change c = BucketRule.change(plan, first, buckets.now());
            if (c != null) {
                changes.add(c);
            }
        }
        changes.forEach(buckets::record);
    }

    private void verify(List<RowFix<H>> fixes) throws InterruptedException {
        Map<List<ByteBuffer>, H> rows = check.rows(fixes.stream().map(f -> f.row().rowKey()).toList());
        for (RowFix<H> f : fixes) {
            H row = rows.get(f.row().rowKey());
            Map<IndexPlan, Set<List<ByteBuffer>>> fixed = new IdentityHashMap<>();
            f.fix().forEach((p, keys) -> fixed.computeIfAbsent(p, k -> new LinkedHashSet<>()).addAll(keys.keySet()));
            f.orphans().forEach((p, keys) -> fixed.computeIfAbsent(p, k -> new LinkedHashSet<>()).addAll(keys.keySet()));
            for (Map.Entry<IndexPlan, Set<List<ByteBuffer>>> e : fixed.entrySet()) {
                IndexPlan p = e.getKey();
                Map<List<ByteBuffer>, Expected> expected = check.rule.expected(p, row);
                Map<List<ByteBuffer>, Observed> actual = check.observed(p, e.getValue());
                for (List<ByteBuffer> key : e.getValue()) {
                    Set<Finding> found = check.rule.judge(p, key, expected.get(key), actual.get(key), row);
                    if (found.stream().anyMatch(Finding::drift)) {
                        check.tallies.get(p).unfixable(key, found, expected.get(key), actual.get(key));
                    } else {
                        check.tallies.get(p).fixed.increment();
                    }
                }
            }
        }
    }
}
