package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.index.VersionRecompute;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.store.Reconciler;
import io.cassandragsi.repair.store.RowsTable;
import io.cassandragsi.repair.store.UnversionedRows;
import java.util.LinkedHashMap;
import java.util.Map;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.repair.store.Versions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the sibling diff for one marker group: reads the versions around the marked tids, asks
 * the pure {@link TablePlan#diff} what to write at each version's TS, and hands that to a sink.
 */
public final class Repairer {
    private static final Logger LOG = LoggerFactory.getLogger(Repairer.class);

    /** What became of a group. */
    public enum Outcome {
        DONE,
        /** Not visible yet: retry later. */
        RETRY,
        DROPPED,
        /**
         * Done with what is visible, but a write of the row may still be in flight (a later write
         * of the row was seen, a range or partition delete, a conditional write): reconcile the
         * row once more a little later.
         */
        AGAIN
    }

    private final Catalog catalog;
    private final ConsistencyLevel read;
    private final ConsistencyLevel serial;
    private final ConsistencyLevel write;

    /** Sends the index writes of every repair (its limit on writes in flight is the process's). */
    private final IndexWriter writer;

    public final LongAdder diffs = new LongAdder();
    public final LongAdder markedDeleted = new LongAdder();
    public final LongAdder upserts = new LongAdder();
    public final LongAdder unknownTables = new LongAdder();
    /** Markers the trigger flagged, by flag: partial updates (rows it could not fully index), conditional writes, deletes. */
    public final LongAdder partialRows = new LongAdder();
    public final LongAdder casWrites = new LongAdder();
    public final LongAdder deletes = new LongAdder();
    /** Diff markers recomputed instead: a version rewritten (with another key, or whole at once), or written below a recompute's cells. */
    public final LongAdder rewrites = new LongAdder();
    /** Rows the trigger left (partly) unindexed for Cassandra's size limits: a key too large, or a batch over the mutation limit. */
    public final LongAdder tooLarge = new LongAdder();
    /** Entry keys the rows tables of unversioned tables forgot ({@link RowReconcile#settled}). */
    public final LongAdder forgotten = new LongAdder();
    /** Diff markers whose rows were read in batches ({@link #prefetch}). */
    public final LongAdder prefetched = new LongAdder();
    /** Per index ("keyspace.table/index"): entries marked deleted [0] and upserted [1]. */
    public final java.util.Map<String, LongAdder[]> perIndex = new java.util.concurrent.ConcurrentHashMap<>();

    public Repairer(Catalog catalog, ConsistencyLevel read, ConsistencyLevel serial, ConsistencyLevel write, IndexWriter writer) {
        this.catalog = catalog;
        this.writer = writer;
        this.read = read;
        this.serial = serial;
        this.write = write;
    }


    /**
     * What one batch read found for a diff marker's row: its versions' neighbourhood (null when the
     * newest versions did not show it whole: the diff reads it alone) and its rows-table record
     * (null: nothing recorded; only when the table has a rows table).
     */
    public record Prefetched(List<Versions.Version> versions, RowsTable.RowRecord record) {}

    /** The newest versions read per row by {@link #prefetch}: a marked version and two before it. */
    static final int PREFETCH_VERSIONS = 3;

    /**
     * Reads, for the plain diff markers among {@code groups} whose rows are whole partitions of a
     * versioned table (one partition-key column, tids stored descending), the newest versions (their
     * entry keys' attributes: a plain diff writes marks only) and
     * the rows-table records of up to {@value BaseTable#ROWS_PER_QUERY} rows per query: two queries
     * per 50 markers instead of three per marker. A marker of an older version, whose neighbourhood
     * the newest versions do not show, reads it alone. Failures leave the groups to their own reads.
     */
    public Map<MarkerGroup, Prefetched> prefetch(List<MarkerGroup> groups) {
        Map<Catalog.Indexed, List<MarkerGroup>> byTable = new java.util.IdentityHashMap<>();
        for (MarkerGroup g : groups) {
            if (g.wholePartition() || g.upsertAll()) {
                continue; // a conditional write, a recompute, or entries to write: the versions whole, read alone
            }
            Catalog.Indexed table = catalog.table(g.keyspace(), g.table());
            if (table == null || table.rows != null || !table.base.readsManyNewest()) {
                continue;
            }
            byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(g);
        }
        Map<MarkerGroup, Prefetched> out = new java.util.IdentityHashMap<>();
        for (Map.Entry<Catalog.Indexed, List<MarkerGroup>> e : byTable.entrySet()) {
            Catalog.Indexed table = e.getKey();
            List<MarkerGroup> all = e.getValue();
            for (int from = 0; from < all.size(); from += io.cassandragsi.repair.store.BaseTable.ROWS_PER_QUERY) {
                List<MarkerGroup> chunk = all.subList(from, Math.min(all.size(), from + io.cassandragsi.repair.store.BaseTable.ROWS_PER_QUERY));
                List<ByteBuffer> keys = chunk.stream().map(MarkerGroup::pk).distinct().toList();
                try {
                    CompletableFuture<Map<ByteBuffer, RowsTable.RowRecord>> records = table.records == null
                            ? CompletableFuture.completedFuture(Map.of()) : table.records.recordsAsync(keys, read).toCompletableFuture();
                    Map<ByteBuffer, List<Versions.Version>> newest = table.base.newestAsync(keys, PREFETCH_VERSIONS, read).join();
                    Map<ByteBuffer, RowsTable.RowRecord> recorded = records.join();
                    for (MarkerGroup g : chunk) {
                        List<Versions.Version> versions = io.cassandragsi.repair.store.BaseTable.neighbourhoodOf(
                                newest.getOrDefault(g.pk(), List.of()), PREFETCH_VERSIONS, g.tidMin(), g.tidMax());
                        out.put(g, new Prefetched(versions, recorded.get(g.pk())));
                    }
                    prefetched.add(chunk.size());
                } catch (RuntimeException x) {
                    LOG.debug("prefetch of {} rows of {} failed; they read alone: {}", keys.size(), table.definition.qualifiedName(), x.toString());
                }
            }
        }
        return out;
    }

    /** Counts what a group of markers was for, once its repair is finished (done, or reconciled for the last time). */
    public void counted(MarkerGroup g) {
        int f = g.flags();
        if ((f & io.cassandragsi.schema.QueueLayout.FLAG_PARTIAL) != 0) {
            partialRows.increment();
        }
        if ((f & io.cassandragsi.schema.QueueLayout.FLAG_CAS) != 0) {
            casWrites.increment();
        }
        if ((f & io.cassandragsi.schema.QueueLayout.FLAG_DELETE) != 0) {
            deletes.increment();
        }
        if ((f & io.cassandragsi.schema.QueueLayout.FLAG_TOO_LARGE) != 0) {
            tooLarge.increment();
        }
    }

    /** Where a repair's index writes go: each statement covers one index partition. */
    @FunctionalInterface
    public interface Sink {
        void write(List<Statement<?>> statements);
    }

    /** Index writes of several groups, to be sent together ({@link CoalescedWrites}). */
    CoalescedWrites coalesced() {
        return new CoalescedWrites(writer);
    }

    /**
     * Repairs a group with what {@link #prefetch} read for it (null: it reads alone); its index
     * writes go to {@code sink} ({@link CoalescedWrites}): the group is repaired only once they
     * are written.
     */
    public Outcome repair(MarkerGroup g, Prefetched pre, Sink sink) {
        Catalog.Indexed table = catalog.table(g.keyspace(), g.table());
        if (table == null) {
            unknownTables.increment();
            LOG.warn("marker for {}.{}, which has no index tables now; dropped", g.keyspace(), g.table());
            return Outcome.DROPPED;
        }
        List<ByteBuffer> pk = table.definition.partitionKey().size() == 1 ? List.of(g.pk()) : Composite.decode(g.pk());
        ConsistencyLevel cl = g.cas() ? serial : read;
        if (table.rows != null) {
            return reconcileUnversioned(table, g, pk, cl, sink);
        }
        if (g.wholePartition() || g.recompute()) {
            return recompute(table, g, pk, cl, sink);
        }
        List<ByteBuffer> rowKey = new ArrayList<>(pk);
        rowKey.addAll(Composite.decode(g.ck()));
        CompletableFuture<RowsTable.RowRecord> record = pre != null || table.records == null
                ? CompletableFuture.completedFuture(pre == null ? null : pre.record())
                : table.records.recordAsync(rowKey, read).toCompletableFuture();
        List<Versions.Version> versions = pre != null && pre.versions() != null ? pre.versions()
                : table.base.neighbourhood(rowKey, g.tidMin(), g.tidMax(), cl);
        if (!contains(versions, g.tidMin()) || !contains(versions, g.tidMax())) {
            return Outcome.RETRY; // not visible yet (batch in flight, CAS not committed) or deleted since (ShardWorker)
        }
        if (sameTick(versions)) {
            return recompute(table, g, pk, cl, sink); // their cells tie at one TS: only writes above them can order them
        }
        RowsTable.RowRecord r = record.join();
        if (r != null && VersionRecompute.needsRecompute(table.plan, versions, timestamps(versions), WriteTimestamps.of(g.tidMin()),
                WriteTimestamps.of(g.tidMax()), r.keyTimes(), r.written(), r.rewrittenAt())) {
            rewrites.increment();
            return recompute(table, g, pk, cl, sink); // a rewrite (another key, or tied projections), or cells of a recompute above these versions
        }
        apply(table, table.plan.diff(versions, g.upsertAll()), sink);
        diffs.increment();
        return Outcome.DONE;
    }

    /**
     * A versioned row (or every row of a partition) that lost versions, or may have (a delete, an
     * expiry, a TTL write): every entry the row has had is recomputed from the versions that remain
     * ({@link VersionRecompute}). Entries are read before the versions, so that a diff landing in
     * between was made from versions this recompute sees too. A trigger's batch applies its
     * mutations one by one, so an entry may name a version whose base row is not visible yet: the
     * first pass leaves such entries alone, and the pass a second later ({@link
     * MarkerGroup#unseenGone}) takes their versions for gone.
     */
    private Outcome recompute(Catalog.Indexed table, MarkerGroup g, List<ByteBuffer> pk, ConsistencyLevel cl, Sink sink) {
        Map<List<ByteBuffer>, RowsTable.RowRecord> records = new LinkedHashMap<>();
        if (g.wholePartition()) {
            if (table.records != null) {
                for (RowsTable.RowRecord r : table.records.records(pk, read).rows()) {
                    records.put(r.rowKey(), r);
                }
            }
        } else {
            List<ByteBuffer> rowKey = new ArrayList<>(pk);
            rowKey.addAll(Composite.decode(g.ck()));
            RowsTable.RowRecord r = table.records == null ? null : table.records.record(rowKey, read);
            records.put(rowKey, r == null ? RowsTable.none(rowKey) : r);
        }
        Map<List<ByteBuffer>, Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>>> before = new LinkedHashMap<>();
        for (RowsTable.RowRecord r : records.values()) {
            before.put(r.rowKey(), entries(table, r.keys(), Map.of()));
        }
        Map<List<ByteBuffer>, List<Versions.Version>> rows = new LinkedHashMap<>();
        if (g.wholePartition()) {
            for (List<Versions.Version> row : table.base.partition(pk, cl)) {
                rows.put(table.base.rowKey(row.get(0)), row);
            }
        } else {
            List<ByteBuffer> rowKey = records.keySet().iterator().next();
            rows.put(rowKey, table.base.versions(rowKey, cl));
        }
        // an expired cell shadows lower timestamps unseen: cells that read as absent are written above the marked version
        long floor = g.tidMax() == null ? Long.MIN_VALUE : WriteTimestamps.of(g.tidMax()) + 1;
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        List<Statement<?>> recordWrites = new ArrayList<>();
        Set<List<ByteBuffer>> rowKeys = new LinkedHashSet<>(records.keySet());
        rowKeys.addAll(rows.keySet());
        for (List<ByteBuffer> rowKey : rowKeys) {
            int rowStart = writes.size();
            List<Versions.Version> versions = rows.getOrDefault(rowKey, List.of());
            RowsTable.RowRecord record = records.getOrDefault(rowKey, RowsTable.none(rowKey));
            Map<String, List<List<ByteBuffer>>> unrecorded = new LinkedHashMap<>();
            List<VersionRecompute.PerVersion> perVersion = perVersion(table, versions, record, g.unseenGone());
            Set<List<ByteBuffer>> writtenAgain = new java.util.HashSet<>();
            perVersion.forEach(pv -> pv.writes().stream().filter(w -> w instanceof TablePlan.Upsert).forEach(w -> writtenAgain.add(w.key())));
            for (IndexPlan plan : table.plan.indexes()) {
                if (plan.perVersion()) {
                    for (Versions.Version v : versions) { // per-version entries of the remaining versions, at their TS
                        writes.addAll(table.plan.diff(List.of(v), true).stream()
                                .filter(w -> w.index() == plan && !writtenAgain.contains(w.key())).toList());
                    }
                    continue;
                }
                for (Versions.Version v : versions) {
                    List<ByteBuffer> key = table.plan.entryKey(plan, v);
                    if (key != null && !record.keys(plan.index().name()).contains(key)) {
                        unrecorded.computeIfAbsent(plan.index().name(), k -> new ArrayList<>()).add(key);
                    }
                }
            }
            // a cell that reads as absent can be an expired one of any version that had a key of the row (the
            // trigger writes each key at its version's TS), or of a recompute's: write it above all of them
            long rowFloor = Math.max(floor, Math.max(record.newestKeyTime(), record.written()) + 1);
            Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> entries = before.getOrDefault(rowKey, new LinkedHashMap<>());
            Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> more = entries(table, Map.of(), unrecorded);
            for (IndexPlan plan : table.plan.indexes()) {
                if (plan.perVersion()) {
                    continue;
                }
                Map<List<ByteBuffer>, RowReconcile.EntryState> known = new LinkedHashMap<>(entries.getOrDefault(plan, Map.of()));
                known.putAll(more.getOrDefault(plan, Map.of()));
                Set<List<ByteBuffer>> keys = new LinkedHashSet<>(record.keys(plan.index().name()));
                keys.addAll(unrecorded.getOrDefault(plan.index().name(), List.of()));
                writes.addAll(VersionRecompute.recompute(table.plan, plan, versions, keys, known, rowFloor, g.unseenGone()));
            }
            if (table.records != null && !unrecorded.isEmpty()) {
                table.records.addKeys(rowKey, unrecorded, 0, write);
            }
            if (table.records != null) {
                // before the corrections: a diff that runs after them must see that they may be above its versions
                long highest = VersionRecompute.highestTimestamp(writes.subList(rowStart, writes.size()));
                for (VersionRecompute.PerVersion pv : perVersion) {
                    highest = Math.max(highest, pv.highest());
                    writes.addAll(pv.writes());
                }
                if (highest != Long.MIN_VALUE) {
                    table.records.recordRecompute(rowKey, highest, write);
                }
                recordWrites.addAll(versionKeys(table, rowKey, perVersion));
            }
        }
        apply(table, writes, sink);
        sink.write(recordWrites);
        diffs.increment();
        return Outcome.AGAIN;
    }

    /**
     * The per-version indexes' part of a row's recompute ({@link VersionRecompute#perVersion}):
     * reads whether the entries of the keys no remaining version has are still there. Empty when
     * the rows table does not record their keys (made before it did).
     */
    private List<VersionRecompute.PerVersion> perVersion(Catalog.Indexed table, List<Versions.Version> versions, RowsTable.RowRecord record,
            boolean unseenGone) {
        List<VersionRecompute.PerVersion> out = new ArrayList<>();
        if (table.records == null || !table.records.recordsVersionKeys()) {
            return out;
        }
        for (IndexPlan plan : table.plan.indexes()) {
            if (plan.perVersion()) {
                Map<List<ByteBuffer>, Long> recorded = record.versionKeys(plan.index().name());
                List<List<ByteBuffer>> gone = VersionRecompute.gone(table.plan, plan, versions, recorded);
                Set<List<ByteBuffer>> absent = gone.isEmpty() ? Set.of() : table.indexTables.get(plan).absentAsync(gone, read).join();
                VersionRecompute.PerVersion pv = VersionRecompute.perVersion(table.plan, plan, versions, recorded, absent, record.written(), unseenGone);
                if (pv.highest() != Long.MIN_VALUE) {
                    out.add(pv);
                }
            }
        }
        return out;
    }

    /** The rows-table writes of a row's per-version recompute: keys recorded at {@code at}, keys forgotten at their own write time. */
    private List<Statement<?>> versionKeys(Catalog.Indexed table, List<ByteBuffer> rowKey, List<VersionRecompute.PerVersion> perVersion) {
        List<Statement<?>> out = new ArrayList<>();
        for (VersionRecompute.PerVersion pv : perVersion) {
            String index = pv.index().index().name();
            Statement<?> add = pv.record().isEmpty() ? null : table.records.addVersionKeys(rowKey, Map.of(index, pv.record()), pv.at(), write);
            if (add != null) {
                out.add(add);
            }
            if (!pv.unrecord().isEmpty()) {
                out.addAll(table.records.forgetVersionKeys(rowKey, Map.of(index, pv.unrecord()), write));
            }
        }
        return out;
    }

    /** The entries of the given keys (per index name), as the index holds them, per index. */
    private Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> entries(Catalog.Indexed table,
            Map<String, Set<List<ByteBuffer>>> recorded, Map<String, List<List<ByteBuffer>>> more) {
        Map<IndexPlan, CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>>> reads = new LinkedHashMap<>();
        for (IndexPlan plan : table.plan.indexes()) {
            if (!plan.perVersion()) {
                Set<List<ByteBuffer>> keys = new LinkedHashSet<>(recorded.getOrDefault(plan.index().name(), Set.of()));
                keys.addAll(more.getOrDefault(plan.index().name(), List.of()));
                reads.put(plan, table.indexTables.get(plan).entryStatesAsync(keys, read));
            }
        }
        Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> out = new LinkedHashMap<>();
        reads.forEach((plan, f) -> out.put(plan, f.join()));
        return out;
    }

    /**
     * An unversioned table: reconciles the marked row (or every row of a partition the rows table
     * knows, for a range or partition delete) with what the base holds now ({@link RowReconcile}).
     * A row write counts as visible once the rows table shows it or a later write of the row.
     */
    private Outcome reconcileUnversioned(Catalog.Indexed table, MarkerGroup g, List<ByteBuffer> pk, ConsistencyLevel cl, Sink sink) {
        UnversionedRows rows = table.rows;
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        List<Statement<?>> forget = new ArrayList<>();
        Outcome outcome;
        if (g.wholePartition()) {
            RowsTable.PartitionRecords records = rows.records().records(pk, read);
            Map<List<ByteBuffer>, UnversionedRows.BaseRow> current = new LinkedHashMap<>();
            for (UnversionedRows.BaseRow r : rows.partition(pk, cl)) {
                current.put(r.rowKey(), r);
            }
            for (RowsTable.RowRecord record : records.rows()) {
                UnversionedRows.BaseRow row = current.remove(record.rowKey());
                reconcileRow(table, record, row == null ? rows.absent(record.rowKey()) : row, records.partitionWritten(), writes, forget);
            }
            for (UnversionedRows.BaseRow row : current.values()) {
                reconcileRow(table, RowsTable.none(row.rowKey()), row, records.partitionWritten(), writes, forget);
            }
            outcome = Outcome.AGAIN;
        } else {
            List<ByteBuffer> rowKey = new ArrayList<>(pk);
            rowKey.addAll(Composite.decode(g.ck()));
            long marked = WriteTimestamps.of(g.tidMax()) / 10;
            RowsTable.RowRecord record = rows.records().record(rowKey, read);
            if (!g.cas() && (record == null || record.written() < marked)) {
                return Outcome.RETRY; // the write is not visible yet (its batch is in flight)
            }
            if (record == null) {
                record = RowsTable.none(rowKey);
            }
            // the hint is this write's own timestamp, not the newest seen: an entry marked later than
            // needed would hide, until the next repair, a write that makes it match again
            reconcileRow(table, record, rows.row(rowKey, cl), marked, writes, forget);
            outcome = g.cas() || record.written() > marked ? Outcome.AGAIN : Outcome.DONE;
        }
        apply(table, writes, sink);
        sink.write(forget);
        diffs.increment();
        return outcome;
    }

    /**
     * Adds the writes that reconcile one row of an unversioned table to {@code writes}, and to
     * {@code forget} the rows-table updates that drop the keys nothing will look for again
     * ({@link RowReconcile#settled}): those updates do not depend on this reconcile's writes.
     */
    private void reconcileRow(Catalog.Indexed table, RowsTable.RowRecord record, UnversionedRows.BaseRow row, long stopHint,
            List<TablePlan.IndexWrite> writes, List<Statement<?>> forget) {
        Map<String, Map<List<ByteBuffer>, Long>> settled = new LinkedHashMap<>();
        // the row's newest write the rows table shows (a range or partition delete's, a conditional write's hint
        // included), read before the row: what the base showed, and what a settled key must be older than
        long newestWrite = Math.max(record.written(), stopHint);
        for (Reconciler.IndexResult r : Reconciler.reconcile(table, table.plan.indexes(), record, row, stopHint, newestWrite, Map.of(), true, read,
                write)) {
            writes.addAll(r.writes());
            String index = r.index().index().name();
            Map<List<ByteBuffer>, Long> times = record.keyTimes(index);
            for (List<ByteBuffer> key : RowReconcile.settled(table.plan, r.index(), row.cells(), times, r.entries(), newestWrite)) {
                settled.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(key, times.get(key));
            }
        }
        if (!settled.isEmpty()) {
            forget.addAll(table.rows.records().forgetKeys(row.rowKey(), settled, write));
            forgotten.add(settled.values().stream().mapToInt(Map::size).sum());
        }
    }

    private static long[] timestamps(List<Versions.Version> versions) {
        long[] out = new long[versions.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = WriteTimestamps.of(versions.get(i).tid());
        }
        return out;
    }

    /** True when two consecutive versions share a 100-ns tick (and so a TS). */
    private static boolean sameTick(List<Versions.Version> versions) {
        for (int i = 1; i < versions.size(); i++) {
            if (WriteTimestamps.of(versions.get(i - 1).tid()) == WriteTimestamps.of(versions.get(i).tid())) {
                return true;
            }
        }
        return false;
    }

    private static boolean contains(List<Versions.Version> versions, UUID tid) {
        for (Versions.Version v : versions) {
            if (Tids.compare(v.tid(), tid) == 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Hands index changes, one statement per index partition, to {@code sink}, and counts them;
     * every write is idempotent, so a failure is retried whole.
     */
    private void apply(Catalog.Indexed table, List<TablePlan.IndexWrite> writes, Sink sink) {
        sink.write(table.statements(writes, write));
        count(table, writes);
    }

    private void count(Catalog.Indexed table, List<TablePlan.IndexWrite> writes) {
        for (TablePlan.IndexWrite w : writes) {
            LongAdder[] counters = perIndex.computeIfAbsent(
                    table.definition.qualifiedName() + "/" + w.index().index().name(), k -> new LongAdder[] {new LongAdder(), new LongAdder()});
            if (w instanceof TablePlan.MarkDeleted || w instanceof TablePlan.Removed) {
                markedDeleted.increment();
                counters[0].increment();
            } else {
                upserts.increment();
                counters[1].increment();
            }
        }
    }
}
