package io.cassandragsi.maintain;

import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRecompute;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A versioned table (every write of a row is a new version named by its tid): a plain marker is a
 * sibling diff of the versions around the marked tids, anything else (a delete, an expiry, a
 * rewrite, versions in one 100-ns tick, a version gone for good) a recompute of the row from the
 * versions that remain (docs/design.md section 6).
 */
public final class VersionedTable implements TableKind {
    /**
     * The newest versions read per row by {@link #prefetch}: a marked version and the one before it,
     * with room for the versions a row gained while its write waited in a backlog (with 3, a fifth
     * of the in-node maintainer's writes under a saturating load were read alone).
     */
    static final int PREFETCH_VERSIONS = 8;
    /** Rows asked for in one batched read at most. */
    public static final int ROWS_PER_READ = 50;

    private final TablePlan plan;
    private final VersionReads versions;
    private final RecordReads records;
    private final EntryReads entries;
    private final Writes.Now now;
    private final RepairCounters counters;
    /** False on storage whose reads are bounded (the in-node maintainer): anything but a plain repair is handed off. */
    private final boolean recomputes;
    private final String name;
    /** Where changes to ended buckets go (null: the table has no bucketed index). */
    private final BucketChanges buckets;

    VersionedTable(TablePlan plan, VersionReads versions, RecordReads records, EntryReads entries, Writes.Now now, boolean recomputes,
            RepairCounters counters, BucketChanges buckets) {
        this.plan = plan;
        this.buckets = buckets;
        this.versions = versions;
        this.records = records;
        this.entries = entries;
        this.now = now;
        this.recomputes = recomputes;
        this.counters = counters;
        this.name = plan.table().qualifiedName();
    }

    @Override
    public TablePlan plan() {
        return plan;
    }

    /**
     * For the plain diff groups whose rows are whole partitions read newest first, the newest
     * versions (enough for a diff's marks) and the rows-table records of up to {@value
     * #ROWS_PER_READ} rows per request: two requests per 50 markers instead of three per marker. A
     * marker of an older version, whose neighbourhood the newest versions do not show, reads alone.
     */
    @Override
    public Map<MarkerGroup, Prefetched> prefetch(List<MarkerGroup> groups) {
        Map<MarkerGroup, Prefetched> out = new IdentityHashMap<>();
        if (!versions.readsManyNewest()) {
            return out;
        }
        List<MarkerGroup> plain = new ArrayList<>();
        for (MarkerGroup g : groups) {
            if (!g.wholePartition() && !g.upsertAll()) {
                plain.add(g);
            }
        }
        for (int from = 0; from < plain.size(); from += ROWS_PER_READ) {
            List<MarkerGroup> chunk = plain.subList(from, Math.min(plain.size(), from + ROWS_PER_READ));
            List<ByteBuffer> keys = chunk.stream().map(MarkerGroup::pk).distinct().toList();
            try {
                CompletableFuture<Map<ByteBuffer, RowRecord>> recorded = records.records(keys);
                Map<ByteBuffer, List<Version>> newest = versions.newest(keys, PREFETCH_VERSIONS).join();
                Map<ByteBuffer, RowRecord> byKey = recorded.join();
                for (MarkerGroup g : chunk) {
                    out.put(g, new Prefetched(neighbourhoodOf(newest.getOrDefault(g.pk(), List.of()), PREFETCH_VERSIONS, g.tidMin(), g.tidMax()),
                            byKey.get(g.pk())));
                }
                counters.prefetched.add(chunk.size());
            } catch (RuntimeException x) {
                // the groups read alone
            }
        }
        return out;
    }

    /**
     * The neighbourhood of tids [min, max] taken from a row's newest versions (newest first,
     * {@code asked} of them asked for), or null when they do not show it whole: a marked tid not
     * among them, or the version before min cut off by the limit.
     */
    static List<Version> neighbourhoodOf(List<Version> newestFirst, int asked, UUID min, UUID max) {
        int iMax = -1;
        int iMin = -1;
        for (int i = 0; i < newestFirst.size(); i++) {
            UUID t = newestFirst.get(i).tid();
            if (Tids.compare(t, max) == 0) {
                iMax = i;
            }
            if (Tids.compare(t, min) == 0) {
                iMin = i;
            }
        }
        boolean exhausted = newestFirst.size() < asked; // the row has no more versions than these
        if (iMax < 0 || iMin < 0 || (iMin + 1 >= newestFirst.size() && !exhausted)) {
            return null;
        }
        List<Version> out = new ArrayList<>(newestFirst.subList(Math.max(iMax - 1, 0), Math.min(iMin + 2, newestFirst.size())));
        Collections.reverse(out);
        return out;
    }

    @Override
    public Outcome repair(MarkerGroup g, Prefetched pre, Writes.Sink sink) {
        BucketRule.Change change = buckets == null ? null : BucketRule.change(plan, g.wholePartition() ? null : g.tidMin(), buckets.now());
        if (change != null && !recomputes) {
            return Outcome.HANDOFF; // the repair service records changes to ended buckets
        }
        Outcome outcome = repairRows(g, pre, sink);
        if (change != null && (outcome == Outcome.DONE || outcome == Outcome.AGAIN)) {
            // after the reads that saw the group's versions, before the group counts as done: a seal that
            // started before now may have missed them, and this ends it (docs/design.md section 9.4)
            buckets.record(change);
        }
        return outcome;
    }

    private Outcome repairRows(MarkerGroup g, Prefetched pre, Writes.Sink sink) {
        List<ByteBuffer> pk = partitionKey(g);
        ReadLevel level = g.baseReadLevel();
        if (g.wholePartition() || g.recompute()) {
            return recompute(g, pk, level, sink);
        }
        List<ByteBuffer> rowKey = rowKey(pk, g);
        CompletableFuture<RowRecord> record = pre != null ? CompletableFuture.completedFuture(pre.record()) : records.record(rowKey);
        List<Version> around = pre != null && pre.versions() != null ? pre.versions() : versions.neighbourhood(rowKey, g.tidMin(), g.tidMax(), level);
        if (!contains(around, g.tidMin()) || !contains(around, g.tidMax())) {
            return Outcome.RETRY; // not visible yet (batch in flight, CAS not committed), or deleted since
        }
        if (sameTick(around)) {
            return recompute(g, pk, level, sink); // their cells tie at one TS: only writes above them can order them
        }
        RowRecord r = record.join();
        if (r != null && VersionRecompute.needsRecompute(plan, around, timestamps(around), WriteTimestamps.of(g.tidMin()),
                WriteTimestamps.of(g.tidMax()), r.keyTimes(), r.written(), r.rewrittenAt())) {
            counters.rewrites.increment();
            return recompute(g, pk, level, sink); // a rewrite (another key, or tied projections), or cells of a recompute above these versions
        }
        List<TablePlan.IndexWrite> writes = plan.diff(around, g.upsertAll());
        sink.write(writes, List.of());
        counters.written(name, writes);
        counters.diffs.increment();
        return Outcome.DONE;
    }

    private List<ByteBuffer> partitionKey(MarkerGroup g) {
        return plan.table().partitionKey().size() == 1 ? List.of(g.pk()) : Composite.decode(g.pk());
    }

    private static List<ByteBuffer> rowKey(List<ByteBuffer> pk, MarkerGroup g) {
        List<ByteBuffer> rowKey = new ArrayList<>(pk);
        rowKey.addAll(Composite.decode(g.ck()));
        return rowKey;
    }

    /**
     * A row (or every row of a partition) that lost versions, or may have (a delete, an expiry, a
     * TTL write): every entry the row has had is recomputed from the versions that remain ({@link
     * VersionRecompute}). Entries are read before the versions, so that a diff landing in between
     * was made from versions this recompute sees too. A trigger's batch applies its mutations one
     * by one, so an entry may name a version whose base row is not visible yet: the first pass
     * leaves such entries alone, and the pass a second later ({@link MarkerGroup#unseenGone})
     * takes their versions for gone.
     */
    private Outcome recompute(MarkerGroup g, List<ByteBuffer> pk, ReadLevel level, Writes.Sink sink) {
        if (!recomputes) {
            return Outcome.HANDOFF;
        }
        Map<List<ByteBuffer>, RowRecord> recorded = new LinkedHashMap<>();
        if (g.wholePartition()) {
            for (RowRecord r : records.partition(pk).rows()) {
                recorded.put(r.rowKey(), r);
            }
        } else {
            List<ByteBuffer> rowKey = rowKey(pk, g);
            RowRecord r = records.record(rowKey).join();
            recorded.put(rowKey, r == null ? RowRecord.none(rowKey) : r);
        }
        Map<List<ByteBuffer>, Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>>> before = new LinkedHashMap<>();
        for (RowRecord r : recorded.values()) {
            before.put(r.rowKey(), entries(r.keys(), Map.of()));
        }
        Map<List<ByteBuffer>, List<Version>> rows = new LinkedHashMap<>();
        if (g.wholePartition()) {
            for (List<Version> row : versions.partition(pk, level)) {
                rows.put(versions.rowKey(row.get(0)), row);
            }
        } else {
            List<ByteBuffer> rowKey = recorded.keySet().iterator().next();
            rows.put(rowKey, versions.versions(rowKey, level));
        }
        // an expired cell shadows lower timestamps unseen: cells that read as absent are written above the marked version
        long floor = g.tidMax() == null ? Long.MIN_VALUE : WriteTimestamps.of(g.tidMax()) + 1;
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        List<RowsWrite> after = new ArrayList<>();
        Set<List<ByteBuffer>> rowKeys = new LinkedHashSet<>(recorded.keySet());
        rowKeys.addAll(rows.keySet());
        for (List<ByteBuffer> rowKey : rowKeys) {
            recomputeRow(rowKey, rows.getOrDefault(rowKey, List.of()), recorded.getOrDefault(rowKey, RowRecord.none(rowKey)),
                    before.getOrDefault(rowKey, new LinkedHashMap<>()), floor, g.unseenGone(), writes, after);
        }
        sink.write(writes, after);
        counters.written(name, writes);
        counters.diffs.increment();
        return Outcome.AGAIN;
    }

    /** Adds one row's recompute to {@code writes} and {@code after}; writes the rows-table updates it depends on now. */
    private void recomputeRow(List<ByteBuffer> rowKey, List<Version> remaining, RowRecord record,
            Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> entriesBefore, long floor, boolean unseenGone,
            List<TablePlan.IndexWrite> writes, List<RowsWrite> after) {
        int rowStart = writes.size();
        Map<String, List<List<ByteBuffer>>> unrecorded = new LinkedHashMap<>();
        List<VersionRecompute.PerVersion> perVersion = perVersion(remaining, record, unseenGone);
        Set<List<ByteBuffer>> writtenAgain = new HashSet<>();
        perVersion.forEach(pv -> pv.writes().stream().filter(w -> w instanceof TablePlan.Upsert).forEach(w -> writtenAgain.add(w.key())));
        for (IndexPlan index : plan.indexes()) {
            if (index.perVersion()) {
                for (Version v : remaining) { // per-version entries of the remaining versions, at their TS
                    writes.addAll(plan.diff(List.of(v), true).stream().filter(w -> w.index() == index && !writtenAgain.contains(w.key())).toList());
                }
                continue;
            }
            for (Version v : remaining) {
                List<ByteBuffer> key = plan.entryKey(index, v);
                if (key != null && !record.keys(index.index().name()).contains(key)) {
                    unrecorded.computeIfAbsent(index.index().name(), k -> new ArrayList<>()).add(key);
                }
            }
        }
        // a cell that reads as absent can be an expired one of any version that had a key of the row (the
        // trigger writes each key at its version's TS), or of a recompute's: write it above all of them
        long rowFloor = Math.max(floor, Math.max(record.newestKeyTime(), record.written()) + 1);
        Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> more = entries(Map.of(), unrecorded);
        for (IndexPlan index : plan.indexes()) {
            if (index.perVersion()) {
                continue;
            }
            Map<List<ByteBuffer>, RowReconcile.EntryState> known = new LinkedHashMap<>(entriesBefore.getOrDefault(index, Map.of()));
            known.putAll(more.getOrDefault(index, Map.of()));
            Set<List<ByteBuffer>> keys = new LinkedHashSet<>(record.keys(index.index().name()));
            keys.addAll(unrecorded.getOrDefault(index.index().name(), List.of()));
            writes.addAll(VersionRecompute.recompute(plan, index, remaining, keys, known, rowFloor, unseenGone));
        }
        List<RowsWrite> first = new ArrayList<>();
        if (!unrecorded.isEmpty()) {
            first.add(new RowsWrite.AddKeys(rowKey, unrecorded, 0));
        }
        // before the corrections: a diff that runs after them must see that they may be above its versions
        long highest = VersionRecompute.highestTimestamp(writes.subList(rowStart, writes.size()));
        for (VersionRecompute.PerVersion pv : perVersion) {
            highest = Math.max(highest, pv.highest());
            writes.addAll(pv.writes());
        }
        if (highest != Long.MIN_VALUE) {
            first.add(new RowsWrite.RecordRecompute(rowKey, highest));
        }
        if (!first.isEmpty()) {
            now.write(first);
        }
        for (VersionRecompute.PerVersion pv : perVersion) {
            String index = pv.index().index().name();
            if (!pv.record().isEmpty()) {
                after.add(new RowsWrite.AddVersionKeys(rowKey, Map.of(index, pv.record()), pv.at()));
            }
            if (!pv.unrecord().isEmpty()) {
                after.add(new RowsWrite.ForgetVersionKeys(rowKey, Map.of(index, pv.unrecord())));
            }
        }
    }

    /**
     * The per-version indexes' part of a row's recompute ({@link VersionRecompute#perVersion}):
     * reads whether the entries of the keys no remaining version has are still there, and whether
     * those of the remaining versions are.
     */
    private List<VersionRecompute.PerVersion> perVersion(List<Version> remaining, RowRecord record, boolean unseenGone) {
        List<VersionRecompute.PerVersion> out = new ArrayList<>();
        for (IndexPlan index : plan.indexes()) {
            if (index.perVersion()) {
                Map<List<ByteBuffer>, Long> keys = record.versionKeys(index.index().name());
                // the gone keys' entries, and those of the remaining versions (one may have expired though its version remains)
                Set<List<ByteBuffer>> read = new LinkedHashSet<>(VersionRecompute.gone(plan, index, remaining, keys));
                for (Version v : remaining) {
                    List<ByteBuffer> key = plan.entryKey(index, v);
                    if (key != null) {
                        read.add(key);
                    }
                }
                Set<List<ByteBuffer>> absent = read.isEmpty() ? Set.of() : entries.absent(index, read).join();
                VersionRecompute.PerVersion pv = VersionRecompute.perVersion(plan, index, remaining, keys, absent, record.written(), unseenGone);
                if (pv.highest() != Long.MIN_VALUE) {
                    out.add(pv);
                }
            }
        }
        return out;
    }

    /** The entries of the given keys (per index name), as the index holds them, per index, read side by side. */
    private Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> entries(Map<String, Set<List<ByteBuffer>>> recorded,
            Map<String, List<List<ByteBuffer>>> more) {
        Map<IndexPlan, CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>>> reads = new LinkedHashMap<>();
        for (IndexPlan index : plan.indexes()) {
            if (!index.perVersion()) {
                Set<List<ByteBuffer>> keys = new LinkedHashSet<>(recorded.getOrDefault(index.index().name(), Set.of()));
                keys.addAll(more.getOrDefault(index.index().name(), List.of()));
                reads.put(index, entries.entryStates(index, keys));
            }
        }
        Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> out = new LinkedHashMap<>();
        reads.forEach((index, f) -> out.put(index, f.join()));
        return out;
    }

    private static long[] timestamps(List<Version> versions) {
        long[] out = new long[versions.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = WriteTimestamps.of(versions.get(i).tid());
        }
        return out;
    }

    /** True when two consecutive versions share a 100-ns tick (and so a TS). */
    private static boolean sameTick(List<Version> versions) {
        for (int i = 1; i < versions.size(); i++) {
            if (WriteTimestamps.of(versions.get(i - 1).tid()) == WriteTimestamps.of(versions.get(i).tid())) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(List<Version> versions, UUID tid) {
        for (Version v : versions) {
            if (Tids.compare(v.tid(), tid) == 0) {
                return true;
            }
        }
        return false;
    }
}
