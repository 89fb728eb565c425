package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.BucketEntries;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.store.BucketStores;
import io.cassandragsi.repair.store.BucketsTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;

/**
 * The bucket tables of one table and their states in memory (docs/design.md section 1), behind {@link
 * BucketStores}. A seal writes every column of an entry at the TS of its seal ({@code
 * store.BucketTable}, docs/design.md section 4.7), so a row is replaced whole by a write of a later
 * seal and kept against an earlier one's. Tokens as {@link MemoryTables#token} over the partition
 * key (the label, then the index's partition key). Thread-safe.
 */
final class MemoryBuckets implements BucketStores {
    /** One row of a bucket table. */
    record Row(String label, List<ByteBuffer> key, BucketEntries.Entry entry, UUID seal) {}

    private final Map<IndexPlan, Map<List<Object>, Row>> tables = new IdentityHashMap<>();
    private final Map<IndexPlan, Map<String, BucketsTable.State>> states = new IdentityHashMap<>();
    /** The changes the check recorded, per index name, in order. */
    final List<Map.Entry<String, List<String>>> changes = new CopyOnWriteArrayList<>();
    /** Run once, at the first row a scan hands out (something that happens while the check reads). */
    private volatile Runnable duringScan;

    synchronized void write(IndexPlan p, String label, List<ByteBuffer> key, BucketEntries.Entry e, UUID seal) {
        Map<List<Object>, Row> t = tables.computeIfAbsent(p, x -> new TreeMap<>(MemoryBuckets::compareKeys));
        List<Object> k = List.of(label, List.copyOf(key));
        Row old = t.get(k);
        if (old == null || WriteTimestamps.of(old.seal()) <= WriteTimestamps.of(seal)) {
            t.put(k, new Row(label, List.copyOf(key), e, seal));
        }
    }

    /** Removes a row, as a write around the project (or a lost write) would leave it. */
    synchronized void remove(IndexPlan p, String label, List<ByteBuffer> key) {
        tables.get(p).remove(List.of(label, List.copyOf(key)));
    }

    synchronized void state(IndexPlan p, String label, BucketsTable.State s) {
        states.computeIfAbsent(p, x -> new TreeMap<>()).put(label, s);
    }

    void duringScan(Runnable r) {
        duringScan = r;
    }

    /** The rows a scan hands out before it fails, once (as a node that stops answering does); -1: never, -2: it failed. */
    private final java.util.concurrent.atomic.AtomicInteger failAfter = new java.util.concurrent.atomic.AtomicInteger(-1);

    /** Makes the first scan that has more than {@code rows} rows fail once (a timeout, which the jobs try again) after handing them out. */
    void failOnceAfter(int rows) {
        failAfter.set(rows);
    }

    boolean failed() {
        return failAfter.get() == -2;
    }

    /** When set, every read of the states fails with it (the project keyspace not answering). */
    volatile RuntimeException statesFail;

    @Override
    public synchronized Map<String, BucketsTable.State> states(IndexPlan index) {
        if (statesFail != null) {
            throw statesFail;
        }
        return new TreeMap<>(states.getOrDefault(index, Map.of()));
    }

    @Override
    public boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException {
        List<Row> found = new ArrayList<>();
        synchronized (this) {
            for (Row r : tables.getOrDefault(index, Map.of()).values()) {
                List<ByteBuffer> partition = new ArrayList<>();
                partition.add(StandardCharsets.UTF_8.encode(r.label()));
                partition.addAll(r.key().subList(0, index.partitionSize()));
                long token = MemoryTables.token(partition);
                if (token > start && token <= end) {
                    found.add(r);
                }
            }
        }
        int handed = 0;
        for (Row r : found) {
            if (stop.getAsBoolean()) {
                return false;
            }
            Runnable during = duringScan;
            if (during != null) {
                duringScan = null;
                during.run();
            }
            if (handed++ == failAfter.get() && failAfter.compareAndSet(handed - 1, -2)) {
                throw new com.datastax.oss.driver.api.core.DriverTimeoutException("injected: the node does not answer");
            }
            consumer.accept(r.label(), r.key(), r.entry(), r.seal());
        }
        return true;
    }

    @Override
    public void changed(IndexPlan index, Collection<String> labels) {
        changes.add(Map.entry(index.index().name(), List.copyOf(labels)));
    }

    @SuppressWarnings("unchecked")
    private static int compareKeys(List<Object> a, List<Object> b) {
        int c = ((String) a.get(0)).compareTo((String) b.get(0));
        if (c != 0) {
            return c;
        }
        List<ByteBuffer> x = (List<ByteBuffer>) a.get(1);
        List<ByteBuffer> y = (List<ByteBuffer>) b.get(1);
        for (int i = 0; i < Math.min(x.size(), y.size()); i++) {
            c = x.get(i).compareTo(y.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.size(), y.size());
    }
}
