package io.cassandragsi.maintain;

import io.cassandragsi.index.TablePlan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The in-memory twin of one indexed table's storage ({@link Stores}, docs/design.md section 6): the
 * base table ({@link MemoryVersions} or {@link MemoryCurrent}), the rows table ({@link
 * MemoryRecords}) and the index tables ({@link MemoryEntries}), every one on the one
 * last-write-wins model, on a clock the test moves. {@link #node} is the same tables seen as the
 * in-node maintainer sees them ({@link #recomputes} false); {@link #recomputes} true is the repair
 * service's.
 *
 * <p>Every write that reaches the storage is kept, in order, in {@link #sent}: the rows-table
 * writes sent at once ({@link #now}) and what a repair hands its sink ({@link #sink}), so that a
 * test can tell which came first. {@link #now} applies its writes at once; {@link #sink} too (a
 * test that lands them otherwise writes its own sink and calls {@link #apply}).
 */
public final class MemoryStores implements Stores {
    /** One write as it reached the storage: at once ({@code now}: rows-table writes only), or through a sink. */
    public record Sent(boolean now, List<TablePlan.IndexWrite> index, List<RowsWrite> rows) {}

    public final TablePlan plan;
    /** The versioned base (null for an unversioned table). */
    public final MemoryVersions base;
    /** The unversioned base (null for a versioned table). */
    public final MemoryCurrent current;
    public final MemoryRecords records;
    public final MemoryEntries entries;
    /** What reached the storage, in order; shared by every view of these tables. */
    public final List<Sent> sent;
    private final boolean recomputes;
    private final LongSupplier nowMillis;

    private MemoryStores(TablePlan plan, MemoryVersions base, MemoryCurrent current, MemoryRecords records, MemoryEntries entries,
            List<Sent> sent, boolean recomputes, LongSupplier nowMillis, List<io.cassandragsi.index.BucketRule.Change> bucketChanges) {
        this.nowMillis = nowMillis;
        this.bucketChanges = bucketChanges;
        this.plan = plan;
        this.base = base;
        this.current = current;
        this.records = records;
        this.entries = entries;
        this.sent = sent;
        this.recomputes = recomputes;
    }

    /** Empty tables for {@code plan}'s table and indexes, as the repair service's storage. */
    public static MemoryStores of(TablePlan plan, LongSupplier nowMillis) {
        boolean versioned = plan.versioned();
        return new MemoryStores(plan, versioned ? new MemoryVersions(plan, nowMillis) : null, versioned ? null : new MemoryCurrent(plan, nowMillis),
                new MemoryRecords(plan.table(), nowMillis), new MemoryEntries(plan.indexes(), nowMillis), new ArrayList<>(), true, nowMillis, new java.util.concurrent.CopyOnWriteArrayList<>());
    }

    /** The same tables, as the in-node maintainer's storage: no recomputes. */
    public MemoryStores node() {
        return new MemoryStores(plan, base, current, records, entries, sent, false, nowMillis, bucketChanges);
    }

    /** The same tables, as the repair service's storage. */
    public MemoryStores service() {
        return new MemoryStores(plan, base, current, records, entries, sent, true, nowMillis, bucketChanges);
    }

    @Override
    public VersionReads versions() {
        if (base == null) {
            throw new IllegalStateException(plan.table().qualifiedName() + " is unversioned: it has no versions to read");
        }
        return base;
    }

    @Override
    public CurrentReads current() {
        if (current == null) {
            throw new IllegalStateException(plan.table().qualifiedName() + " is versioned: it has no current rows to read");
        }
        return current;
    }

    @Override
    public RecordReads records() {
        return records;
    }

    @Override
    public EntryReads entries() {
        return entries;
    }

    @Override
    public Writes.Now now() {
        return rows -> {
            sent.add(new Sent(true, List.of(), List.copyOf(rows)));
            rows.forEach(records::apply);
        };
    }

    @Override
    public boolean recomputes() {
        return recomputes;
    }

    /** The changes to ended buckets recorded so far, in order; shared by every view of these tables. */
    public final List<io.cassandragsi.index.BucketRule.Change> bucketChanges;

    @Override
    public BucketChanges buckets() {
        return new BucketChanges() {
            @Override
            public java.time.Instant now() {
                return java.time.Instant.ofEpochMilli(nowMillis.getAsLong());
            }

            @Override
            public void record(io.cassandragsi.index.BucketRule.Change change) {
                if (!recomputes) {
                    throw new IllegalStateException("the in-node maintainer hands changes to ended buckets to the repair service");
                }
                bucketChanges.add(change);
            }
        };
    }

    /** A sink that keeps what it is handed in {@link #sent} and applies it at once. */
    public Writes.Sink sink() {
        return (index, rows) -> {
            sent.add(new Sent(false, List.copyOf(index), List.copyOf(rows)));
            index.forEach(entries::apply);
            rows.forEach(records::apply);
        };
    }

    /** Applies an index write. */
    public void apply(TablePlan.IndexWrite w) {
        entries.apply(w);
    }

    /** Applies a rows-table write. */
    public void apply(RowsWrite w) {
        records.apply(w);
    }

    /** Every index write handed to a sink so far, in order. */
    public List<TablePlan.IndexWrite> indexWrites() {
        List<TablePlan.IndexWrite> out = new ArrayList<>();
        sent.stream().filter(s -> !s.now()).forEach(s -> out.addAll(s.index()));
        return out;
    }
}
