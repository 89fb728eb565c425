package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * An unversioned table ({@code examples/users.json}: {@code by_email} projecting {@code name};
 * {@code by_country} with the range {@code age}, projecting {@code name}), with its index tables, its
 * rows table, the trigger and the repair service, in memory: a discrete-event simulation like
 * {@link VersionedWorld}. The trigger mirrors each base cell into the entries the write carries
 * whole (README, the timestamp rule for unversioned tables: at ten times the cell's timestamp,
 * with its expiry), records the keys and the write's timestamp in the rows table (in the base
 * write's own mutation) and queues the row; a delete of the row (a partition delete: the table has
 * no clustering columns) records its timestamp and queues the partition. The service does what
 * {@code Repairer.reconcileUnversioned} and {@code Reconciler} do around the pure {@link
 * RowReconcile#reconcile} and {@link RowReconcile#settled}: retry until the rows table shows the
 * write, record the key the row has before writing its entry, reconcile again a second later when
 * a later write showed.
 */
final class UnversionedWorld extends Simulation {
    static final TableDef DEF = Definitions.read(Path.of("examples/users.json"));
    static final TablePlan PLAN = TablePlan.of(DEF);
    static final List<String> COLUMNS = List.of("id", "email", "country", "age", "name");
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** ShardWorker gives up on a marker whose write never shows after this long (it cannot happen here: a safety net). */
    private static final long GIVE_UP_MILLIS = 60_000L;

    /** A marker: the row (id), the write's version (null: the whole partition), flags, when written, and whether it is the pass a second later. */
    record Marker(ByteBuffer id, UUID version, int flags, long writtenAt, boolean again) {}

    final LwwTable base;
    final LwwTable rows;
    final IndexModel index;
    /** What the client and the service did, for the report. */
    int statements;
    int deletes;
    int expiring;
    int ties;
    int reconciles;
    int retries;
    /** Every plain write's timestamp, for ties. */
    private final List<Long> plainTimestamps = new ArrayList<>();
    /** The last statement, for a client retry: the same cells at the same timestamp. */
    private Runnable last;

    UnversionedWorld(Random rnd, long startMillis) {
        super(rnd, startMillis);
        this.base = new LwwTable(() -> now);
        this.rows = new LwwTable(() -> now);
        this.index = new IndexModel(PLAN.indexes(), () -> now);
    }

    @Override
    IndexModel index() {
        return index;
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer int4(int v) {
        return ByteBuffer.allocate(4).putInt(0, v);
    }

    // ----- the client

    /**
     * Whether a client timestamp may tie with a write more than a second older than now. Off by
     * default: the rows table then forgets the key of a write whose entry is still landing (see
     * {@code RandomHistoryTest}, the known divergences); {@code -Dgsi.history.old-timestamps=true}
     * turns it on.
     */
    static final boolean OLD_TIMESTAMPS = Boolean.getBoolean("gsi.history.old-timestamps");

    /**
     * Whether a write's index entries may land before its base row (its batch applies one mutation
     * at a time, in any order). Off by default: a reconcile in between then deletes the landing
     * write's projection at exactly its timestamp, for good (see {@code RandomHistoryTest}, the known
     * divergences); {@code -Dgsi.history.entries-first=true} turns it on. Off, the entries land
     * after the base row, still any time within 20 ms.
     */
    static final boolean ENTRIES_FIRST = Boolean.getBoolean("gsi.history.entries-first");

    /**
     * Whether statements that write {@code by_country}'s key attributes (country, age: a key of two
     * cells) may carry a TTL. Off by default: an entry's {@code _tid} then takes its timestamp from
     * one key cell and its TTL from the other, and a reconcile that saw the TTL writes it at the same
     * timestamp as a later one that does not; the expiring cell wins the tie (see {@code
     * RandomHistoryTest}, the known divergences). {@code -Dgsi.history.composite-key-ttl=true} turns
     * it on. Off, TTLs go on statements that write email (a key of one cell) and name.
     */
    static final boolean COMPOSITE_KEY_TTL = Boolean.getBoolean("gsi.history.composite-key-ttl");

    /** A client timestamp: mostly now, up to 20 ms out of order, sometimes tied with an earlier plain write's (of the last second, unless {@link #OLD_TIMESTAMPS}). */
    private long timestamp(boolean expiring) {
        if (!expiring && !plainTimestamps.isEmpty() && rnd.nextInt(10) == 0) {
            long tied = plainTimestamps.get(rnd.nextInt(plainTimestamps.size()));
            if (OLD_TIMESTAMPS || tied > nowMicros() - 900_000) {
                ties++;
                return tied;
            }
        }
        long ts = nowMicros() + rnd.nextInt(40_000) - 20_000;
        if (!expiring) {
            plainTimestamps.add(ts);
        }
        return ts;
    }

    /** One random client statement on rows u0..u{ids-1}. */
    void clientStep(int ids) {
        ByteBuffer id = text("u" + rnd.nextInt(ids));
        ByteBuffer email = text(List.of("a@x", "b@x", "c@x").get(rnd.nextInt(3)));
        ByteBuffer country = text(List.of("fr", "de").get(rnd.nextInt(2)));
        ByteBuffer age = int4(20 + rnd.nextInt(3));
        ByteBuffer name = text("n" + rnd.nextInt(4));
        int op = rnd.nextInt(12);
        Map<String, ByteBuffer> cells = new LinkedHashMap<>();
        int ttl = 0;
        boolean marker = false;
        switch (op) {
            case 0, 1 -> {
                int t = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0;
                ttl = COMPOSITE_KEY_TTL ? t : 0;
                marker = true;
                cells.put("email", email);
                cells.put("country", country);
                cells.put("age", age);
                cells.put("name", name);
            }
            case 2 -> cells.put("email", email);
            case 3 -> {
                int t = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(3) : 0;
                ttl = COMPOSITE_KEY_TTL ? t : 0;
                cells.put("country", country);
                cells.put("age", age);
            }
            case 4 -> cells.put("name", name);
            case 5 -> cells.put("email", null); // SET email = null
            case 6 -> cells.put(rnd.nextBoolean() ? "age" : "name", null); // DELETE age (or name)
            case 7 -> {
                long d = timestamp(false);
                Runnable delete = () -> deleteRow(id, d);
                last = delete;
                delete.run();
                return;
            }
            case 8 -> {
                if (last != null) {
                    last.run(); // a client retry: the same statement, the same timestamp
                }
                return;
            }
            case 9 -> {
                ttl = 1 + rnd.nextInt(3);
                cells.put("email", email);
                if (rnd.nextBoolean()) {
                    cells.put("name", name); // a projection that expires
                }
            }
            default -> {
                cells.put("name", name);
                cells.put("country", country);
            }
        }
        long w = timestamp(ttl > 0);
        int t = ttl;
        boolean m = marker;
        Runnable write = () -> write(id, cells, m, w, t);
        last = write;
        write.run();
    }

    /** A base write as the trigger sees it: the values it carries (null: a tombstone), with the row's key. */
    private record Carried(ByteBuffer[] values, boolean[] has) implements VersionRow {
        @Override
        public boolean has(int attribute) {
            return has[attribute];
        }

        @Override
        public ByteBuffer get(int attribute) {
            return values[attribute];
        }
    }

    /** One statement's write and the trigger's logged batch for it, applied mutation by mutation. */
    void write(ByteBuffer id, Map<String, ByteBuffer> values, boolean marker, long w, int ttl) {
        statements++;
        expiring += ttl > 0 ? 1 : 0;
        if (logging) {
            log("write " + RandomHistoryTest.show(id) + " " + values.entrySet().stream().map(e -> e.getKey() + "=" + RandomHistoryTest.show(e.getValue()))
                    .toList() + (marker ? " (insert)" : "") + " w " + w + " ttl " + ttl);
        }
        Batch b = batch(id, values, marker, w, ttl);
        int baseAt = rnd.nextInt(20);
        at(now + baseAt, b.base());
        for (Runnable e : b.entries()) {
            at(now + (ENTRIES_FIRST ? rnd.nextInt(20) : baseAt + 1 + rnd.nextInt(20)), e);
        }
        queue(b.marker());
    }

    /**
     * What the trigger makes of one statement: the base row with its rows-table record (one
     * mutation: the same partition key), each index entry the write carries whole (a mutation each),
     * and the marker.
     */
    record Batch(Runnable base, List<Runnable> entries, Marker marker) {}

    /** A statement's cells ({@code values}: null writes a tombstone) and the trigger's batch for it. */
    Batch batch(ByteBuffer id, Map<String, ByteBuffer> values, boolean marker, long w, int ttl) {
        long nowSec = nowSec();
        Map<String, Cell> cells = new LinkedHashMap<>();
        values.forEach((c, v) -> cells.put(c, v == null ? Cell.tombstone(w, nowSec) : Cell.written(v, w, ttl, nowSec)));
        ByteBuffer[] carried = new ByteBuffer[COLUMNS.size()];
        boolean[] has = new boolean[COLUMNS.size()];
        carried[0] = id;
        has[0] = true;
        cells.forEach((c, cell) -> {
            carried[COLUMNS.indexOf(c)] = cell.value();
            has[COLUMNS.indexOf(c)] = true;
        });
        TablePlan.Derivation d = PLAN.derive(new Carried(carried, has));
        List<ByteBuffer> rowKey = List.of(id);
        Runnable baseRow = () -> {
            if (marker) {
                base.mergeMarker(id, null, Cell.written(EMPTY, w, ttl, nowSec));
            }
            cells.forEach((c, cell) -> base.merge(id, null, c, cell));
            for (TablePlan.Entry e : d.entries()) {
                rows.mergeElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(e.index().index().name(), e.key()), Cell.live(EMPTY, w));
            }
            rows.merge(rowKey, null, RowsLayout.WRITTEN, Cell.live(VersionedWorld.long8(w), w));
        };
        List<Runnable> entries = new ArrayList<>();
        for (TablePlan.Entry e : d.entries()) {
            entries.add(() -> mirror(e, cells));
        }
        int flags = ttl > 0 ? QueueLayout.FLAG_DELETE : 0;
        if (!d.complete() || d.entries().size() < PLAN.indexes().size()) {
            flags |= QueueLayout.FLAG_PARTIAL;
        }
        return new Batch(baseRow, entries, new Marker(id, Tids.uuid(RowReconcile.tidOfMicros(w)), flags, now, false));
    }

    /** The trigger's entry: every cell mirrors the base cell it comes from (CompiledTable.unversionedEntryMutation). */
    private void mirror(TablePlan.Entry e, Map<String, Cell> cells) {
        IndexPlan p = e.index();
        Cell first = null;
        long newest = Long.MIN_VALUE;
        for (int a : p.keyAttributes()) {
            Cell c = a < 0 ? null : cells.get(COLUMNS.get(a));
            if (c == null) {
                continue; // a primary-key attribute
            }
            newest = Math.max(newest, c.timestamp());
            if (c.isExpiring() && (first == null || c.localDeletionTime() < first.localDeletionTime())) {
                first = c;
            }
        }
        long ts = RowReconcile.ticksOfMicros(newest);
        ByteBuffer tid = RowReconcile.tidOfMicros(newest);
        index.merge(p, e.key(), IndexModel.TID, first == null ? Cell.live(tid, ts) : new Cell(tid, ts, first.ttl(), first.localDeletionTime()));
        int[] proj = p.projAttributes();
        for (int i = 0; i < proj.length; i++) {
            Cell c = cells.get(COLUMNS.get(proj[i]));
            if (c != null) {
                index.merge(p, e.key(), IndexModel.proj(i), new Cell(c.value(), RowReconcile.ticksOfMicros(c.timestamp()), c.ttl(), c.localDeletionTime()));
            }
        }
    }

    /** {@code DELETE FROM users WHERE id = ?}: a partition delete (no clustering columns); its timestamp in the rows table. */
    void deleteRow(ByteBuffer id, long d) {
        statements++;
        deletes++;
        log("delete " + RandomHistoryTest.show(id) + " d " + d);
        at(now + rnd.nextInt(20), () -> {
            base.deletePartition(id, d);
            rows.merge(List.of(id), null, RowsLayout.WRITTEN, Cell.live(VersionedWorld.long8(d), d));
        });
        queue(new Marker(id, null, QueueLayout.FLAG_DELETE, now, false));
    }

    private void queue(Marker m) {
        at(now + rnd.nextInt(20), () -> {
            long read = now + 50 + rnd.nextInt(350);
            at(read, () -> process(m));
            if (rnd.nextInt(10) == 0) {
                at(read + rnd.nextInt(3_000), () -> process(m));
            }
        });
    }

    // ----- the repair service

    enum Outcome { DONE, RETRY, AGAIN }

    private void process(Marker m) {
        int before = log.size();
        Outcome o = repair(m);
        if (logging) {
            log.add(before, now + " marker " + RandomHistoryTest.show(m.id()) + " " + tid(m.version()) + " flags " + m.flags()
                    + (m.again() ? " again" : "") + ": " + o);
        }
        if (o == Outcome.AGAIN && !m.again()) {
            at(now + 1_000 + rnd.nextInt(500), () -> process(new Marker(m.id(), m.version(), m.flags(), m.writtenAt(), true)));
        } else if (o == Outcome.RETRY && now - m.writtenAt() < GIVE_UP_MILLIS) {
            retries++;
            at(now + 100 + rnd.nextInt(400), () -> process(m));
        }
    }

    /** The rows-table record of a row: its keys with their write times, and {@code _w}; null when it has no row. */
    record Record(Map<String, Map<List<ByteBuffer>, Long>> keyTimes, long written) {
        static final Record NONE = new Record(Map.of(), Long.MIN_VALUE);

        Set<List<ByteBuffer>> keys(String index) {
            return keyTimes.getOrDefault(index, Map.of()).keySet();
        }
    }

    Record record(ByteBuffer id) {
        List<ByteBuffer> rowKey = List.of(id);
        if (!rows.exists(rowKey, null)) {
            return null;
        }
        Map<String, Map<List<ByteBuffer>, Long>> times = new LinkedHashMap<>();
        rows.elements(rowKey, null, RowsLayout.KEYS).forEach((element, cell) -> {
            List<ByteBuffer> parts = Composite.decode(element);
            String name = StandardCharsets.UTF_8.decode(parts.get(0).duplicate()).toString();
            times.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(Composite.decode(parts.get(1)), cell.timestamp());
        });
        Cell w = rows.liveCell(rowKey, null, RowsLayout.WRITTEN);
        return new Record(times, w == null ? Long.MIN_VALUE : w.value().getLong(0));
    }

    /** The base row as {@code UnversionedRows} reads it: each cell's value, WRITETIME and TTL (0: none); dead cells read as DEAD. */
    RowReconcile.BaseRow row(ByteBuffer id) {
        RowReconcile.BaseCell[] cells = new RowReconcile.BaseCell[COLUMNS.size()];
        cells[0] = RowReconcile.BaseCell.key(id);
        for (int a = 1; a < COLUMNS.size(); a++) {
            Cell c = base.liveCell(id, null, COLUMNS.get(a));
            Integer ttl = LwwTable.ttlOf(c, nowSec());
            cells[a] = c == null ? RowReconcile.BaseCell.DEAD : new RowReconcile.BaseCell(c.value(), c.timestamp(), ttl == null ? 0 : ttl);
        }
        return new RowReconcile.BaseRow(cells);
    }

    Outcome repair(Marker m) {
        reconciles++;
        if (m.version() == null) {
            Record record = record(m.id());
            reconcileRow(m.id(), record == null ? Record.NONE : record, Long.MIN_VALUE);
            return Outcome.AGAIN;
        }
        long marked = WriteTimestamps.of(m.version()) / 10;
        Record record = record(m.id());
        if (record == null || record.written() < marked) {
            return Outcome.RETRY; // the write is not visible yet
        }
        reconcileRow(m.id(), record, marked);
        return record.written() > marked ? Outcome.AGAIN : Outcome.DONE;
    }

    /** {@code Repairer.reconcileRow} with {@code Reconciler.reconcile}: the keys the row has recorded first, then its entries, then the keys it can forget. */
    private void reconcileRow(ByteBuffer id, Record record, long stopHint) {
        List<ByteBuffer> rowKey = List.of(id);
        RowReconcile.BaseRow row = row(id);
        long newestWrite = Math.max(record.written(), stopHint);
        Map<String, List<ByteBuffer>> newKeys = new LinkedHashMap<>();
        long newest = 0;
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> read = new LinkedHashMap<>();
        for (IndexPlan p : PLAN.indexes()) {
            String name = p.index().name();
            List<ByteBuffer> current = PLAN.entryKey(p, row);
            Set<List<ByteBuffer>> keys = new LinkedHashSet<>(record.keys(name));
            if (current != null && !keys.contains(current)) {
                newKeys.put(name, current);
                for (int a : p.keyAttributes()) {
                    if (a >= 0) {
                        newest = Math.max(newest, row.cells()[a].writetime());
                    }
                }
            }
            if (current != null) {
                keys.add(current);
            }
            Map<List<ByteBuffer>, RowReconcile.EntryState> entries = index.entryStates(p, keys);
            read.put(p, entries);
            writes.addAll(RowReconcile.reconcile(PLAN, p, row, keys, entries, stopHint, newestWrite));
        }
        if (!newKeys.isEmpty()) {
            // above _w: the rows table may have forgotten the key at a write time up to that
            long at = record.written() == Long.MIN_VALUE ? newest : Math.max(newest, record.written() + 1);
            newKeys.forEach((name, key) -> rows.mergeElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(name, key), Cell.live(EMPTY, at)));
        }
        apply(writes);
        for (IndexPlan p : PLAN.indexes()) {
            String name = p.index().name();
            Map<List<ByteBuffer>, Long> times = record.keyTimes().getOrDefault(name, Map.of());
            for (List<ByteBuffer> key : RowReconcile.settled(PLAN, p, row, times, read.get(p), newestWrite)) {
                log("  forget " + name + " " + RandomHistoryTest.show(key) + " at " + times.get(key));
                rows.mergeElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(name, key), Cell.tombstone(times.get(key), nowSec()));
            }
        }
    }
}
