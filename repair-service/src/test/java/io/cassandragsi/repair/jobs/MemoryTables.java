package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.EntryRule;
import io.cassandragsi.check.EntryScans;
import io.cassandragsi.check.Observed;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.check.ScanStores;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * One indexed table in memory for the jobs (docs/design.md section 1): its base table, its index tables and
 * its rows table, each the tests' one last-write-wins model ({@link LwwTable}: per-cell
 * last-write-wins with Cassandra's tie rule, row markers, row deletions, TTLs on a clock the test
 * holds), behind the jobs' storage interfaces ({@link ScanStores}, {@link JobWrites}). Index and
 * rows-table writes mean here what their statements mean on a node ({@code store.IndexTable},
 * {@code store.RowsTable}). Tokens are a hash of the partition key of its own: ranges cut the rows
 * as Murmur3 would, not at the same places. Thread-safe (the jobs scan ranges side by side).
 */
final class MemoryTables implements ScanStores {
    final TableDef def;
    final TablePlan plan;
    final EntryRule<?> rule;
    private final LwwTable base;
    private final LwwTable rows;
    private final Map<IndexPlan, LwwTable> indexes = new IdentityHashMap<>();
    /** Every write each index table took, by entry key, so that an entry can be made never to have been written ({@link #forget}). */
    private final Map<IndexPlan, List<Map.Entry<List<ByteBuffer>, java.util.function.Consumer<LwwTable>>>> log = new IdentityHashMap<>();
    private final long nowMillis;
    private final List<String> names;
    private final int tid;
    private final int[] rowKeyAttributes;
    /** When set, every write after this many more fails (a node that stops answering). */
    private final AtomicInteger failAfter = new AtomicInteger(-1);
    /** Rows the base scans handed out, by row key: what a job read. */
    final List<List<ByteBuffer>> scanned = new ArrayList<>();

    MemoryTables(TableDef def, long nowMillis) {
        this.def = def;
        this.plan = TablePlan.of(def);
        this.rule = EntryRule.of(plan);
        this.base = new LwwTable(() -> nowMillis);
        this.rows = new LwwTable(() -> nowMillis);
        this.nowMillis = nowMillis;
        for (IndexPlan p : plan.indexes()) {
            indexes.put(p, new LwwTable(() -> nowMillis));
            log.put(p, new ArrayList<>());
        }
        this.names = new ArrayList<>(def.attributes().keySet());
        this.tid = plan.tidAttribute();
        this.rowKeyAttributes = RowsLayout.rowKeyAttributes(def);
    }

    IndexPlan index(String name) {
        return plan.indexes().stream().filter(p -> p.index().name().equals(name)).findFirst().orElseThrow();
    }

    /** A partition key's token: a 64-bit hash, never Long.MIN_VALUE (as no Murmur3 token is). */
    static long token(List<ByteBuffer> partitionKey) {
        long h = 0x9E3779B97F4A7C15L;
        for (ByteBuffer b : partitionKey) {
            for (int i = b.position(); i < b.limit(); i++) {
                h = (h ^ b.get(i)) * 0x100000001B3L;
            }
            h = Long.rotateLeft(h, 31) * 0xBF58476D1CE4E5B9L;
        }
        h ^= h >>> 29;
        return h == Long.MIN_VALUE ? Long.MAX_VALUE : h;
    }

    private static boolean in(long token, long start, long end) {
        return token > start && token <= end;
    }

    // ---------------------------------------------------------------- the base table

    private List<ByteBuffer> partitionKey(ByteBuffer[] values) {
        return def.partitionKey().stream().map(c -> values[names.indexOf(c.name())]).toList();
    }

    private List<ByteBuffer> clustering(ByteBuffer[] values) {
        return def.clustering().stream().map(c -> values[names.indexOf(c.name())]).toList();
    }

    /** Writes a complete version ({@code INSERT}: a row marker and every cell, a null as a tombstone) at {@code ts} microseconds. */
    synchronized void insert(long ts, ByteBuffer... values) {
        base.insertMarker(partitionKey(values), clustering(values), ts, 0);
        for (int a = 0; a < names.size(); a++) {
            if (!def.isPrimaryKey(names.get(a))) {
                base.write(partitionKey(values), clustering(values), names.get(a), values[a], ts, 0);
            }
        }
    }

    /** Writes one cell of a row (its primary-key values in {@code key}, by attribute) at {@code ts}, with a TTL (0: none); null deletes it. */
    synchronized void write(ByteBuffer[] key, String attribute, ByteBuffer value, long ts, int ttl) {
        base.write(partitionKey(key), clustering(key), attribute, value, ts, ttl);
    }

    /** Deletes a row (a version of a versioned table) at {@code ts}. */
    synchronized void delete(ByteBuffer[] key, long ts) {
        base.deleteRow(partitionKey(key), clustering(key), ts);
    }

    @SuppressWarnings("unchecked")
    private ByteBuffer[] values(LwwTable.RowKey k) {
        List<ByteBuffer> pk = (List<ByteBuffer>) k.partition();
        List<ByteBuffer> ck = (List<ByteBuffer>) k.clustering();
        ByteBuffer[] values = new ByteBuffer[names.size()];
        for (int i = 0; i < pk.size(); i++) {
            values[names.indexOf(def.partitionKey().get(i).name())] = pk.get(i);
        }
        for (int i = 0; i < ck.size(); i++) {
            values[names.indexOf(def.clustering().get(i).name())] = ck.get(i);
        }
        for (int a = 0; a < names.size(); a++) {
            if (!def.isPrimaryKey(names.get(a))) {
                values[a] = base.value(pk, ck, names.get(a));
            }
        }
        return values;
    }

    private List<ByteBuffer> rowKey(ByteBuffer[] values) {
        return Arrays.stream(rowKeyAttributes).mapToObj(a -> values[a]).toList();
    }

    /** The live rows of the base by row key, in token order: a versioned row with its versions, an unversioned one alone. */
    private synchronized Map<List<ByteBuffer>, List<LwwTable.RowKey>> live(long start, long end) {
        Map<List<ByteBuffer>, List<LwwTable.RowKey>> out = new LinkedHashMap<>();
        List<LwwTable.RowKey> all = new ArrayList<>(base.liveRows());
        all.sort((a, b) -> Long.compare(token(castKey(a.partition())), token(castKey(b.partition()))));
        for (LwwTable.RowKey k : all) {
            if (in(token(castKey(k.partition())), start, end)) {
                out.computeIfAbsent(rowKey(values(k)), x -> new ArrayList<>()).add(k);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<ByteBuffer> castKey(Object o) {
        return (List<ByteBuffer>) o;
    }

    private synchronized RowHistory.Versions versions(List<ByteBuffer> rowKey, List<LwwTable.RowKey> keys) {
        List<Version> vs = new ArrayList<>();
        for (LwwTable.RowKey k : keys) {
            vs.add(new Version(values(k), tid));
        }
        return new RowHistory.Versions(rowKey, vs);
    }

    private synchronized RowHistory.Current current(List<ByteBuffer> rowKey, List<LwwTable.RowKey> keys) {
        if (keys.isEmpty()) {
            return new RowHistory.Current(CurrentRow.absent(rowKey, rowKeyAttributes, names.size()));
        }
        LwwTable.RowKey k = keys.get(0);
        ByteBuffer[] values = values(k);
        RowReconcile.BaseCell[] cells = new RowReconcile.BaseCell[names.size()];
        for (int a = 0; a < names.size(); a++) {
            if (def.isPrimaryKey(names.get(a))) {
                cells[a] = RowReconcile.BaseCell.key(values[a]);
            } else if (values[a] == null) {
                cells[a] = RowReconcile.BaseCell.DEAD;
            } else {
                Integer ttl = base.ttl(k.partition(), k.clustering(), names.get(a));
                cells[a] = new RowReconcile.BaseCell(values[a], base.writetime(k.partition(), k.clustering(), names.get(a)), ttl == null ? 0 : ttl);
            }
        }
        return new RowHistory.Current(new CurrentRow(rowKey, new RowReconcile.BaseRow(cells)));
    }

    private <H extends RowHistory> RowScans<H> scans(java.util.function.BiFunction<List<ByteBuffer>, List<LwwTable.RowKey>, H> row) {
        return new RowScans<>() {
            @Override
            public boolean scan(long start, long end, RowConsumer<H> consumer, BooleanSupplier stop) throws InterruptedException {
                for (Map.Entry<List<ByteBuffer>, List<LwwTable.RowKey>> r : live(start, end).entrySet()) {
                    if (stop.getAsBoolean()) {
                        return false;
                    }
                    synchronized (MemoryTables.this) {
                        scanned.add(r.getKey());
                    }
                    consumer.accept(row.apply(r.getKey(), r.getValue()));
                }
                return true;
            }

            @Override
            public CompletableFuture<H> row(List<ByteBuffer> rowKey) {
                List<LwwTable.RowKey> keys = live(Long.MIN_VALUE, Long.MAX_VALUE).getOrDefault(rowKey, List.of());
                return CompletableFuture.completedFuture(row.apply(rowKey, keys));
            }
        };
    }

    /** The changes to ended buckets the fixes recorded, in order. */
    final List<io.cassandragsi.index.BucketRule.Change> bucketChanges = new java.util.concurrent.CopyOnWriteArrayList<>();

    @Override
    public io.cassandragsi.maintain.BucketChanges buckets() {
        return io.cassandragsi.maintain.BucketChanges.of(bucketChanges::add);
    }

    @Override
    public RowScans<RowHistory.Versions> versions() {
        return scans(this::versions);
    }

    @Override
    public RowScans<RowHistory.Current> current() {
        return scans(this::current);
    }

    // ---------------------------------------------------------------- the index tables

    /** The entry of {@code key} as a read returns it, or null when the index has no row for it. */
    synchronized Observed entry(IndexPlan p, List<ByteBuffer> key) {
        LwwTable t = indexes.get(p);
        if (!t.exists(key, null)) {
            return null;
        }
        List<Column> proj = p.index().proj();
        ByteBuffer[] values = new ByteBuffer[proj.size()];
        long[] times = new long[proj.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = t.value(key, null, proj.get(i).name());
            times[i] = time(t, key, proj.get(i).name());
        }
        if (p.perVersion()) {
            return new Observed(null, null, Arrays.asList(values), Long.MIN_VALUE, Long.MIN_VALUE, times);
        }
        return new Observed(uuid(t.value(key, null, Index.TID_COLUMN)), uuid(t.value(key, null, Index.DELETED_COLUMN)), Arrays.asList(values),
                time(t, key, Index.TID_COLUMN), time(t, key, Index.DELETED_COLUMN), times);
    }

    private static long time(LwwTable t, List<ByteBuffer> key, String column) {
        Long w = t.writetime(key, null, column);
        return w == null ? Long.MIN_VALUE : w;
    }

    private static java.util.UUID uuid(ByteBuffer b) {
        return b == null ? null : Tids.uuid(b);
    }

    /** Every entry of an index that a read finds, by key. */
    @SuppressWarnings("unchecked")
    synchronized Map<List<ByteBuffer>, Observed> entries(IndexPlan p) {
        Map<List<ByteBuffer>, Observed> out = new LinkedHashMap<>();
        for (LwwTable.RowKey k : indexes.get(p).liveRows()) {
            out.put((List<ByteBuffer>) k.partition(), entry(p, (List<ByteBuffer>) k.partition()));
        }
        return out;
    }

    /** Writes to an index table as an outside writer would ({@code damage} writes cells of {@code key} at chosen timestamps). */
    synchronized void damage(IndexPlan p, List<ByteBuffer> key, java.util.function.Consumer<LwwTable> damage) {
        List<ByteBuffer> k = List.copyOf(key);
        log.get(p).add(Map.entry(k, damage));
        damage.accept(indexes.get(p));
    }

    /** Makes the index as if no write of {@code key} ever reached it (a lost write; TRUNCATE and the others written again). */
    synchronized void forget(IndexPlan p, List<ByteBuffer> key) {
        LwwTable fresh = new LwwTable(() -> nowMillis);
        log.get(p).removeIf(e -> e.getKey().equals(key));
        log.get(p).forEach(e -> e.getValue().accept(fresh));
        indexes.put(p, fresh);
    }

    @Override
    public EntryScans entries() {
        return new EntryScans() {
            @Override
            public boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException {
                List<Map.Entry<List<ByteBuffer>, Observed>> found = new ArrayList<>();
                for (Map.Entry<List<ByteBuffer>, Observed> e : entries(index).entrySet()) {
                    if (in(token(e.getKey().subList(0, index.partitionSize())), start, end)) {
                        found.add(e);
                    }
                }
                for (Map.Entry<List<ByteBuffer>, Observed> e : found) {
                    if (stop.getAsBoolean()) {
                        return false;
                    }
                    consumer.accept(e.getKey(), e.getValue());
                }
                return true;
            }

            @Override
            public CompletableFuture<Observed> entry(IndexPlan index, List<ByteBuffer> key) {
                return CompletableFuture.completedFuture(MemoryTables.this.entry(index, key));
            }
        };
    }

    /** Applies one index write as its statement does on a node. */
    synchronized void apply(TablePlan.IndexWrite w) {
        damage(w.index(), w.key(), t -> apply(t, w));
    }

    private static void apply(LwwTable t, TablePlan.IndexWrite w) {
        List<ByteBuffer> key = List.copyOf(w.key());
        if (w instanceof TablePlan.Upsert u) {
            t.insertMarker(key, null, u.timestamp(), 0);
            if (!u.index().perVersion()) {
                t.write(key, null, Index.TID_COLUMN, u.tid(), u.timestamp(), 0);
            }
            List<Column> proj = u.index().index().proj();
            for (int i = 0; i < proj.size(); i++) {
                if (u.entry().projKnown()[i]) {
                    t.write(key, null, proj.get(i).name(), u.entry().proj()[i], u.timestamp(), 0);
                }
            }
        } else if (w instanceof TablePlan.MarkDeleted m) {
            t.write(key, null, Index.DELETED_COLUMN, m.deletedAt(), m.timestamp(), 0);
        } else if (w instanceof TablePlan.Reconciled r) {
            if (r.tid() != null) {
                t.write(key, null, Index.TID_COLUMN, r.tid(), r.timestamp(), r.ttl());
            }
            List<Column> proj = r.index().index().proj();
            for (int i = 0; i < proj.size(); i++) {
                TablePlan.ProjCell c = r.proj()[i];
                if (c != null) {
                    t.write(key, null, proj.get(i).name(), c.value(), c.timestamp(), c.value() == null ? 0 : c.ttl());
                }
            }
        } else {
            t.deleteRow(key, null, w.timestamp());
        }
    }

    // ---------------------------------------------------------------- the rows table

    /** Applies one rows-table write as its statements do on a node. */
    synchronized void apply(RowsWrite w) {
        List<ByteBuffer> rowKey = List.copyOf(w.rowKey());
        if (w instanceof RowsWrite.AddKeys a) {
            a.keys().forEach((index, keys) -> keys.forEach(k -> rows.addElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(index, k), a.at(), 0)));
        } else if (w instanceof RowsWrite.ForgetKeys f) {
            f.keys().forEach((index, keys) -> keys.forEach((k, t) -> rows.removeElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(index, k), t)));
        } else if (w instanceof RowsWrite.AddVersionKeys a) {
            a.keys().forEach((index, keys) -> keys.forEach(k -> rows.addElement(rowKey, null, RowsLayout.VERSION_KEYS, RowsLayout.element(index, k),
                    a.at(), 0)));
        } else if (w instanceof RowsWrite.ForgetVersionKeys f) {
            f.keys().forEach((index, keys) -> keys.forEach((k, t) -> rows.removeElement(rowKey, null, RowsLayout.VERSION_KEYS,
                    RowsLayout.element(index, k), t)));
        } else {
            RowsWrite.RecordRecompute r = (RowsWrite.RecordRecompute) w;
            rows.write(rowKey, null, RowsLayout.WRITTEN, ByteBuffer.allocate(8).putLong(0, r.ts()), r.ts(), 0);
        }
    }

    /** The entry keys of a set of the rows table ({@link RowsLayout#KEYS} or {@link RowsLayout#VERSION_KEYS}), per index, with their write times. */
    synchronized Map<String, Map<List<ByteBuffer>, Long>> recorded(List<ByteBuffer> rowKey, String column) {
        Map<String, Map<List<ByteBuffer>, Long>> out = new LinkedHashMap<>();
        rows.elements(rowKey, null, column).forEach((element, cell) -> {
            List<ByteBuffer> parts = Composite.decode(element);
            String index = StandardCharsets.UTF_8.decode(parts.get(0).duplicate()).toString();
            out.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(Composite.decode(parts.get(1)), cell.timestamp());
        });
        return out;
    }

    @Override
    public synchronized CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey) {
        Map<String, Map<List<ByteBuffer>, Long>> times = recorded(rowKey, RowsLayout.KEYS);
        ByteBuffer w = rows.value(rowKey, null, RowsLayout.WRITTEN);
        if (times.isEmpty() && w == null) {
            return CompletableFuture.completedFuture(null);
        }
        Map<String, Set<List<ByteBuffer>>> keys = new LinkedHashMap<>();
        times.forEach((index, t) -> keys.put(index, new LinkedHashSet<>(t.keySet())));
        return CompletableFuture.completedFuture(new RowRecord(rowKey, keys, w == null ? Long.MIN_VALUE : w.getLong(w.position()), times, Map.of(),
                Long.MIN_VALUE));
    }

    // ---------------------------------------------------------------- writes

    /** Fails every write after {@code n} more (-1: never). */
    void failAfter(int n) {
        failAfter.set(n);
    }

    /** The jobs' writes, applied at once (as acknowledged ones are). */
    JobWrites writes() {
        return new JobWrites() {
            @Override
            public Round round() {
                return new Round() {
                    private RuntimeException failed;

                    @Override
                    public void send(List<TablePlan.IndexWrite> index, List<RowsWrite> rows) {
                        for (Object w : concat(index, rows)) {
                            if (failAfter.get() == 0) {
                                failed = failed != null ? failed : new IllegalStateException("node down");
                                continue;
                            }
                            failAfter.updateAndGet(n -> n > 0 ? n - 1 : n);
                            if (w instanceof TablePlan.IndexWrite iw) {
                                apply(iw);
                            } else {
                                apply((RowsWrite) w);
                            }
                        }
                    }

                    @Override
                    public void check() {
                        if (failed != null) {
                            throw InFlight.failed(failed);
                        }
                    }

                    @Override
                    public void await() {
                        check();
                    }
                };
            }

            @Override
            public long retries() {
                return 0;
            }
        };
    }

    private static List<Object> concat(Collection<?> a, Collection<?> b) {
        List<Object> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
