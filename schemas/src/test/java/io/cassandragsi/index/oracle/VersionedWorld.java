package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRecompute;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.oracle.Timeuuids;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * A versioned table ({@code examples/revisions.json}: {@code by_length}, one entry per row across
 * versions, projecting {@code value}; {@code by_tid}, one entry per version), with its index tables,
 * its rows table, the trigger and the repair service, in memory, on a clock that only the
 * simulation moves. Every table is the one last-write-wins model ({@link LwwTable}). The trigger and
 * the service are written here again from README and from what {@code IndexTrigger}, {@code
 * CompiledTable}, {@code Repairer} and {@code ShardWorker} do, as thin as they are there; every
 * decision about what to write is the pure core's ({@link TablePlan#derive}, {@link TablePlan#diff},
 * {@link VersionRecompute#needsRecompute}, {@link VersionRecompute#recompute}, {@link
 * VersionRecompute#perVersion}).
 *
 * <p>A discrete-event simulation: a client operation's logged batch is applied mutation by mutation
 * (the base row with its rows-table record, each index entry, the marker), each within 20 ms, in any
 * order; the service reads a marker 50 to 400 ms after it lands and sometimes once more later (a
 * sweep, a second instance), retries while the marked version is not visible, takes a version
 * still invisible after 20 s for gone (a recompute), and recomputes a row a second time a second
 * after a recompute ({@code unseenGone}). Each repair's index writes are applied in a random order,
 * some twice.
 */
final class VersionedWorld extends Simulation {
    static final TableDef DEF = Definitions.read(Path.of("examples/revisions.json"));
    static final TablePlan PLAN = TablePlan.of(DEF);
    static final IndexPlan BY_LENGTH = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_length")).findFirst().orElseThrow();
    static final IndexPlan BY_TID = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_tid")).findFirst().orElseThrow();
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);
    /** README: a write more than a second after its tid's time is taken for a rewrite. */
    private static final long REWRITE_AFTER_MICROS = 1_000_000L;
    /** ShardWorker: a marked version still invisible this long after its marker went away. */
    private static final long INVISIBLE_FOR_MILLIS = 20_000L;

    /** A version as a write carries it: values by attribute (key, tid, length, value), and which the write carries. */
    record Version(ByteBuffer[] values, boolean[] has) implements VersionRow {
        @Override
        public boolean has(int attribute) {
            return has[attribute];
        }

        @Override
        public ByteBuffer get(int attribute) {
            return values[attribute];
        }

        UUID tid() {
            return Tids.uuid(values[1]);
        }
    }

    /** A queue marker: the row, the marked tids (null: the whole partition), flags, when it was written, and whether its versions still unseen are gone. */
    record Marker(ByteBuffer key, UUID tidMin, UUID tidMax, int flags, long writtenAt, boolean unseenGone) {
        boolean whole() {
            return tidMin == null;
        }

        boolean recompute() {
            return (flags & QueueLayout.FLAG_DELETE) != 0;
        }

        boolean upsertAll() {
            return (flags & (QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_CAS | QueueLayout.FLAG_DELETE)) != 0;
        }
    }

    final LwwTable base;
    final LwwTable rows;
    final IndexModel index;
    /** What the client and the service did, for the report. */
    int writes;
    int deletes;
    int expiring;
    int sameTicks;
    int diffs;
    int recomputes;
    int retries;
    /** Every version written, by tid: the values a retry writes again, and the TTL it was first written with. */
    final Map<UUID, Version> written = new LinkedHashMap<>();
    final Map<UUID, Integer> ttls = new LinkedHashMap<>();
    /**
     * Whether a version may be written again with another TTL than its first write's (or none).
     * Off by default: a per-version entry then keeps the first write's expiry (see {@code
     * RandomHistoryTest}, the known divergence); {@code -Dgsi.history.ttl-rewrites=true} turns it on.
     */
    static final boolean TTL_REWRITES = Boolean.getBoolean("gsi.history.ttl-rewrites");
    final List<UUID> deleted = new ArrayList<>();
    private final Set<Long> ticksUsed = new HashSet<>();

    VersionedWorld(Random rnd, long startMillis) {
        super(rnd, startMillis);
        this.base = new LwwTable(() -> now, (Comparator<UUID>) Timeuuids::compare);
        this.rows = new LwwTable(() -> now);
        this.index = new IndexModel(PLAN.indexes(), () -> now);
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    // ----- the client

    /** A tid in a fresh 100-ns tick near now (or {@code ago} ticks before). */
    UUID freshTid(long ago) {
        long tick = now * 10_000L + rnd.nextInt(10_000) - ago;
        while (!ticksUsed.add(tick)) {
            tick--;
        }
        return Tids.fromTicks(tick, rnd.nextLong());
    }

    /** A tid in the tick of {@code other}: the same TS. */
    UUID sameTick(UUID other) {
        return Tids.fromTicks(WriteTimestamps.of(other), rnd.nextLong());
    }

    /** One random client operation on rows k0..k{keys-1}. */
    void clientStep(int keys, int step) {
        String key = "k" + rnd.nextInt(keys);
        List<UUID> ofKey = written.keySet().stream().filter(t -> written.get(t).values()[0].equals(text(key))).toList();
        int op = rnd.nextInt(100);
        long w = nowMicros();
        if (op < 8 && !ofKey.isEmpty()) { // a retry: the same version, the same timestamp or a new one
            UUID tid = ofKey.get(rnd.nextInt(ofKey.size()));
            Version v = written.get(tid);
            write(v, rnd.nextBoolean() ? w : w - rnd.nextInt(3_000_000), againTtl(tid));
        } else if (op < 16 && !ofKey.isEmpty()) {
            UUID tid = ofKey.get(rnd.nextInt(ofKey.size()));
            deletes++;
            deleteVersion(text(key), tid, w);
        } else if (op < 19 && ofKey.size() >= 2) {
            List<UUID> sorted = new ArrayList<>(ofKey);
            sorted.sort(Tids::compare);
            int a = rnd.nextInt(sorted.size());
            int b = a + rnd.nextInt(sorted.size() - a);
            deletes++;
            deleteRange(text(key), sorted.get(a), sorted.get(b), w);
        } else if (op < 21) {
            deletes++;
            deletePartition(text(key), w);
        } else if (op < 25 && !deleted.isEmpty()) { // a deleted version written again
            UUID tid = deleted.get(rnd.nextInt(deleted.size()));
            write(written.get(tid), w, againTtl(tid));
        } else {
            UUID tid;
            if (op < 32 && !ofKey.isEmpty()) {
                tid = sameTick(ofKey.get(rnd.nextInt(ofKey.size())));
                sameTicks++;
            } else if (op < 40) {
                tid = freshTid(rnd.nextInt(30_000_000)); // up to 3 s old: a late version
            } else {
                tid = freshTid(0);
            }
            ByteBuffer length = rnd.nextInt(6) == 0 ? null : varint(rnd.nextInt(3));
            boolean partial = rnd.nextInt(14) == 0; // UPDATE ... SET value = ?: no length
            ByteBuffer[] values = {text(key), Tids.bytes(tid), partial ? null : length, text("v" + step)};
            Version v = new Version(values, new boolean[] {true, true, !partial, true});
            written.put(tid, v);
            int ttl = newTtl();
            ttls.put(tid, ttl);
            write(v, w, ttl);
        }
    }

    private int newTtl() {
        return rnd.nextInt(7) == 0 ? 1 + rnd.nextInt(4) : 0;
    }

    /** The TTL of a version written again: its first write's, unless {@link #TTL_REWRITES}. */
    private int againTtl(UUID tid) {
        return TTL_REWRITES ? newTtl() : ttls.get(tid);
    }

    /** The trigger's logged batch for a write of one version, applied mutation by mutation. */
    void write(Version v, long w, int ttl) {
        writes++;
        expiring += ttl > 0 ? 1 : 0;
        if (logging) {
            log("write " + RandomHistoryTest.show(v.values()[0]) + " " + tid(v.tid()) + " length " + (v.has(2) ? RandomHistoryTest.show(v.get(2)) : "(none)")
                    + " value " + RandomHistoryTest.show(v.get(3)) + " w " + w + " ttl " + ttl);
        }
        Batch b = batch(v, w, ttl);
        at(now + rnd.nextInt(20), b.base());
        b.entries().forEach(e -> at(now + rnd.nextInt(20), e));
        queue(b.marker(), now);
        if (b.expiry() != null) {
            queue(b.expiry(), b.expiryDue());
        }
    }

    /**
     * What the trigger makes of one write: the base row with its rows-table record (one mutation:
     * the same partition key), each index entry (a mutation each), the marker, and for a version
     * written with a TTL the marker due at its expiry.
     */
    record Batch(Runnable base, List<Runnable> entries, Marker marker, Marker expiry, long expiryDue) {}

    Batch batch(Version v, long w, int ttl) {
        long nowSec = nowSec();
        ByteBuffer key = v.values()[0];
        UUID tid = v.tid();
        long ts = WriteTimestamps.of(tid);
        boolean insert = v.has(2); // an INSERT carries every attribute; the partial write is an UPDATE of value
        TablePlan.Derivation d = PLAN.derive(v);
        Runnable baseRow = () -> {
            if (insert) {
                base.mergeMarker(key, tid, Cell.written(EMPTY, w, ttl, nowSec));
                base.merge(key, tid, "length", v.get(2) == null ? Cell.tombstone(w, nowSec) : Cell.written(v.get(2), w, ttl, nowSec));
            }
            base.merge(key, tid, "value", Cell.written(v.get(3), w, ttl, nowSec));
            List<ByteBuffer> rowKey = List.of(key);
            for (TablePlan.Entry e : d.entries()) {
                String column = e.index().perVersion() ? RowsLayout.VERSION_KEYS : RowsLayout.KEYS;
                rows.mergeElement(rowKey, null, column, RowsLayout.element(e.index().index().name(), e.key()), Cell.live(EMPTY, ts));
            }
            if (d.keysKnown()) {
                rows.merge(rowKey, null, RowsLayout.NEWEST_HI, Cell.live(long8(w), ts));
                rows.merge(rowKey, null, RowsLayout.NEWEST_LO, Cell.live(long8(RowsLayout.newestLo(w)), ts));
            }
        };
        // each index entry: its cells at the version's TS, expiring with the version (CompiledTable.entryMutation)
        List<Runnable> entries = new ArrayList<>();
        for (TablePlan.Entry e : d.entries()) {
            entries.add(() -> {
                boolean expiring = ttl > 0 && (insert || !e.index().perVersion());
                Cell live = expiring ? Cell.expiring(EMPTY, ts, ttl, nowSec) : Cell.live(EMPTY, ts);
                index.mergeMarker(e.index(), e.key(), live);
                for (int i = 0; i < e.proj().length; i++) {
                    if (e.projKnown()[i]) {
                        ByteBuffer p = e.proj()[i];
                        index.merge(e.index(), e.key(), IndexModel.proj(i), p == null ? Cell.tombstone(ts, nowSec) : Cell.written(p, ts, ttl, nowSec));
                    }
                }
                if (!e.index().perVersion()) {
                    index.merge(e.index(), e.key(), IndexModel.TID, expiring ? Cell.expiring(Tids.bytes(tid), ts, ttl, nowSec)
                            : Cell.live(Tids.bytes(tid), ts));
                }
            });
        }
        int flags = 0;
        if (ttl > 0 || w - ts / 10 > REWRITE_AFTER_MICROS) {
            flags |= QueueLayout.FLAG_DELETE;
        }
        if (!d.complete()) {
            flags |= QueueLayout.FLAG_PARTIAL;
            if (!insert) {
                flags |= QueueLayout.FLAG_DELETE; // carries the projected value without every indexed attribute
            }
        }
        Marker expiry = ttl > 0 ? new Marker(key, tid, tid, QueueLayout.FLAG_DELETE, now, false) : null;
        return new Batch(baseRow, entries, new Marker(key, tid, tid, flags, now, false), expiry, (nowSec + ttl) * 1000 + 1000);
    }

    static ByteBuffer long8(long v) {
        return ByteBuffer.allocate(8).putLong(0, v);
    }

    void deleteVersion(ByteBuffer key, UUID tid, long d) {
        log("delete " + RandomHistoryTest.show(key) + " " + tid(tid) + " d " + d);
        deleted.add(tid);
        at(now + rnd.nextInt(20), () -> base.deleteRow(key, tid, d));
        queue(new Marker(key, tid, tid, QueueLayout.FLAG_DELETE, now, false), now);
    }

    void deleteRange(ByteBuffer key, UUID from, UUID to, long d) {
        log("delete range " + RandomHistoryTest.show(key) + " " + tid(from) + ".." + tid(to) + " d " + d);
        written.keySet().stream().filter(t -> written.get(t).values()[0].equals(key) && Tids.compare(t, from) >= 0 && Tids.compare(t, to) <= 0)
                .forEach(deleted::add);
        at(now + rnd.nextInt(20), () -> base.deleteRange(key, from, true, to, true, d));
        queue(new Marker(key, null, null, QueueLayout.FLAG_DELETE, now, false), now);
    }

    void deletePartition(ByteBuffer key, long d) {
        log("delete partition " + RandomHistoryTest.show(key) + " d " + d);
        written.keySet().stream().filter(t -> written.get(t).values()[0].equals(key)).forEach(deleted::add);
        at(now + rnd.nextInt(20), () -> base.deletePartition(key, d));
        queue(new Marker(key, null, null, QueueLayout.FLAG_DELETE, now, false), now);
    }

    /** The marker lands with the batch (within 20 ms); the service reads it 50 to 400 ms after it is due, sometimes twice. */
    private void queue(Marker m, long due) {
        at(now + rnd.nextInt(20), () -> {
            long read = Math.max(now, due) + 50 + rnd.nextInt(350);
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
            log.add(before, now + " marker " + RandomHistoryTest.show(m.key()) + " " + tid(m.tidMin()) + " flags " + m.flags()
                    + (m.unseenGone() ? " unseen gone" : "") + ": " + o);
        }
        if (o == Outcome.AGAIN && !m.unseenGone()) {
            at(now + 1_000 + rnd.nextInt(500), () -> process(new Marker(m.key(), m.tidMin(), m.tidMax(), m.flags(), m.writtenAt(), true)));
        } else if (o == Outcome.RETRY) {
            retries++;
            if (!m.recompute() && now - m.writtenAt() > INVISIBLE_FOR_MILLIS) {
                at(now, () -> process(new Marker(m.key(), m.tidMin(), m.tidMax(), m.flags() | QueueLayout.FLAG_DELETE, m.writtenAt(), false)));
            } else {
                at(now + 100 + rnd.nextInt(400), () -> process(m));
            }
        }
    }

    /** A version as the base holds it now (every attribute), or null when it is not visible. */
    private Version stored(ByteBuffer key, UUID tid) {
        if (!base.exists(key, tid)) {
            return null;
        }
        ByteBuffer[] values = {key, Tids.bytes(tid), base.value(key, tid, "length"), base.value(key, tid, "value")};
        return new Version(values, new boolean[] {true, true, true, true});
    }

    /** The visible versions of a row, ascending. */
    List<Version> versions(ByteBuffer key) {
        List<Version> out = new ArrayList<>();
        for (Object c : base.clusterings(key)) {
            Version v = stored(key, (UUID) c);
            if (v != null) {
                out.add(v);
            }
        }
        out.sort((a, b) -> Tids.compare(a.tid(), b.tid()));
        return out;
    }

    /** The rows-table record of a row as {@code RowsTable} reads it; null when it has no row. */
    record Record(Map<String, Map<List<ByteBuffer>, Long>> keyTimes, Map<String, Map<List<ByteBuffer>, Long>> versionKeys, long written,
            long rewrittenAt) {
        static final Record NONE = new Record(Map.of(), Map.of(), Long.MIN_VALUE, Long.MIN_VALUE);

        Set<List<ByteBuffer>> keys(String index) {
            return keyTimes.getOrDefault(index, Map.of()).keySet();
        }

        long newestKeyTime() {
            long out = Long.MIN_VALUE;
            for (Map<List<ByteBuffer>, Long> times : keyTimes.values()) {
                for (long t : times.values()) {
                    out = Math.max(out, t);
                }
            }
            return out;
        }
    }

    private static Map<String, Map<List<ByteBuffer>, Long>> elements(Map<ByteBuffer, Cell> cells) {
        Map<String, Map<List<ByteBuffer>, Long>> out = new LinkedHashMap<>();
        cells.forEach((element, cell) -> {
            List<ByteBuffer> parts = Composite.decode(element);
            String name = StandardCharsets.UTF_8.decode(parts.get(0).duplicate()).toString();
            out.computeIfAbsent(name, k -> new LinkedHashMap<>()).put(Composite.decode(parts.get(1)), cell.timestamp());
        });
        return out;
    }

    Record record(ByteBuffer key) {
        List<ByteBuffer> rowKey = List.of(key);
        if (!rows.exists(rowKey, null)) {
            return null;
        }
        Cell w = rows.liveCell(rowKey, null, RowsLayout.WRITTEN);
        Cell hi = rows.liveCell(rowKey, null, RowsLayout.NEWEST_HI);
        Cell lo = rows.liveCell(rowKey, null, RowsLayout.NEWEST_LO);
        long rewrittenAt = hi != null && lo != null && hi.value().getLong(0) != RowsLayout.newestLo(lo.value().getLong(0)) ? hi.timestamp()
                : Long.MIN_VALUE;
        return new Record(elements(rows.elements(rowKey, null, RowsLayout.KEYS)), elements(rows.elements(rowKey, null, RowsLayout.VERSION_KEYS)),
                w == null ? Long.MIN_VALUE : w.value().getLong(0), rewrittenAt);
    }

    Outcome repair(Marker m) {
        if (m.whole() || m.recompute()) {
            return recompute(m);
        }
        List<Version> all = versions(m.key());
        int iMin = -1;
        int iMax = -1;
        for (int i = 0; i < all.size(); i++) {
            if (Tids.compare(all.get(i).tid(), m.tidMin()) == 0) {
                iMin = i;
            }
            if (Tids.compare(all.get(i).tid(), m.tidMax()) == 0) {
                iMax = i;
            }
        }
        if (iMin < 0 || iMax < 0) {
            return Outcome.RETRY; // not visible yet, or deleted since
        }
        List<Version> around = all.subList(Math.max(0, iMin - 1), Math.min(all.size(), iMax + 2));
        for (int i = 1; i < around.size(); i++) {
            if (WriteTimestamps.of(around.get(i - 1).tid()) == WriteTimestamps.of(around.get(i).tid())) {
                return recompute(m); // their cells tie at one TS: only writes above them can order them
            }
        }
        Record r = record(m.key());
        long[] ts = around.stream().mapToLong(v -> WriteTimestamps.of(v.tid())).toArray();
        if (r != null && VersionRecompute.needsRecompute(PLAN, around, ts, WriteTimestamps.of(m.tidMin()), WriteTimestamps.of(m.tidMax()),
                r.keyTimes(), r.written(), r.rewrittenAt())) {
            return recompute(m);
        }
        apply(PLAN.diff(around, m.upsertAll()));
        diffs++;
        return Outcome.DONE;
    }

    /** {@code Repairer.recompute} for one row (a row here is a whole partition). */
    private Outcome recompute(Marker m) {
        recomputes++;
        ByteBuffer key = m.key();
        List<ByteBuffer> rowKey = List.of(key);
        Record record = record(key);
        if (record == null) {
            record = Record.NONE;
        }
        // the entries before the versions
        Map<IndexPlan, Map<List<ByteBuffer>, RowReconcile.EntryState>> before = new LinkedHashMap<>();
        for (IndexPlan p : PLAN.indexes()) {
            if (!p.perVersion()) {
                before.put(p, index.entryStates(p, record.keys(p.index().name())));
            }
        }
        List<Version> versions = versions(key);
        if (logging) {
            log("  recompute: versions " + versions.stream().map(v -> tid(v.tid())).toList() + ", _w " + record.written() + ", keys "
                    + record.keyTimes() + ", version keys " + record.versionKeys().values().stream().map(Map::values).toList());
        }
        long floor = m.tidMax() == null ? Long.MIN_VALUE : WriteTimestamps.of(m.tidMax()) + 1;
        List<TablePlan.IndexWrite> writes = new ArrayList<>();
        List<VersionRecompute.PerVersion> perVersion = new ArrayList<>();
        for (IndexPlan p : PLAN.indexes()) {
            if (p.perVersion()) {
                Map<List<ByteBuffer>, Long> recorded = record.versionKeys().getOrDefault(p.index().name(), Map.of());
                List<List<ByteBuffer>> gone = VersionRecompute.gone(PLAN, p, versions, recorded);
                Set<List<ByteBuffer>> absent = new HashSet<>();
                for (List<ByteBuffer> k : gone) {
                    if (!index.exists(p, k)) {
                        absent.add(k);
                    }
                }
                VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, p, versions, recorded, absent, record.written(), m.unseenGone());
                if (pv.highest() != Long.MIN_VALUE) {
                    perVersion.add(pv);
                }
            }
        }
        Set<List<ByteBuffer>> writtenAgain = new HashSet<>();
        perVersion.forEach(pv -> pv.writes().stream().filter(x -> x instanceof TablePlan.Upsert).forEach(x -> writtenAgain.add(x.key())));
        Map<String, List<List<ByteBuffer>>> unrecorded = new LinkedHashMap<>();
        for (IndexPlan p : PLAN.indexes()) {
            if (p.perVersion()) {
                for (Version v : versions) {
                    writes.addAll(PLAN.diff(List.of(v), true).stream().filter(x -> x.index() == p && !writtenAgain.contains(x.key())).toList());
                }
                continue;
            }
            for (Version v : versions) {
                List<ByteBuffer> k = PLAN.entryKey(p, v);
                if (k != null && !record.keys(p.index().name()).contains(k)) {
                    unrecorded.computeIfAbsent(p.index().name(), x -> new ArrayList<>()).add(k);
                }
            }
        }
        long rowFloor = Math.max(floor, Math.max(record.newestKeyTime(), record.written()) + 1);
        for (IndexPlan p : PLAN.indexes()) {
            if (p.perVersion()) {
                continue;
            }
            Map<List<ByteBuffer>, RowReconcile.EntryState> known = new LinkedHashMap<>(before.get(p));
            List<List<ByteBuffer>> more = unrecorded.getOrDefault(p.index().name(), List.of());
            known.putAll(index.entryStates(p, more));
            Set<List<ByteBuffer>> keys = new LinkedHashSet<>(record.keys(p.index().name()));
            keys.addAll(more);
            writes.addAll(VersionRecompute.recompute(PLAN, p, versions, keys, known, rowFloor, m.unseenGone()));
        }
        // the rows table first: the keys a later repair must find, and _w before the corrections above the versions
        unrecorded.forEach((name, keys) -> keys.forEach(k -> rows.mergeElement(rowKey, null, RowsLayout.KEYS, RowsLayout.element(name, k),
                Cell.live(EMPTY, 0))));
        long highest = VersionRecompute.highestTimestamp(writes);
        for (VersionRecompute.PerVersion pv : perVersion) {
            highest = Math.max(highest, pv.highest());
            writes.addAll(pv.writes());
        }
        if (highest != Long.MIN_VALUE) {
            rows.merge(rowKey, null, RowsLayout.WRITTEN, Cell.live(long8(highest), highest));
        }
        apply(writes);
        for (VersionRecompute.PerVersion pv : perVersion) {
            String name = pv.index().index().name();
            for (List<ByteBuffer> k : pv.record()) {
                rows.mergeElement(rowKey, null, RowsLayout.VERSION_KEYS, RowsLayout.element(name, k), Cell.live(EMPTY, pv.at()));
            }
            pv.unrecord().forEach((k, t) -> rows.mergeElement(rowKey, null, RowsLayout.VERSION_KEYS, RowsLayout.element(name, k),
                    Cell.tombstone(t, nowSec())));
        }
        return Outcome.AGAIN;
    }

    @Override
    IndexModel index() {
        return index;
    }
}
