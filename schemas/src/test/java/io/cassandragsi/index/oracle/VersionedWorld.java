package io.cassandragsi.index.oracle;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.MemoryStores;
import io.cassandragsi.maintain.MemoryTrigger;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.ReadLevel;
import io.cassandragsi.maintain.TableKind;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * A versioned table ({@code examples/revisions.json}: {@code by_length}, one entry per row across
 * versions, projecting {@code value}; {@code by_tid}, one entry per version) in the in-memory twins
 * ({@link MemoryStores}: the base, its rows table and its index tables, each the one last-write-wins
 * model), the trigger's writes ({@link MemoryTrigger}) and the maintainers ({@link Maintainers}:
 * the repair service, and in {@link Maintainers.Mode#NODE} the in-node maintainer, both running the
 * one repair core, {@link TableKind#repair}), on a clock that only the simulation moves.
 *
 * <p>A discrete-event simulation: a client operation's logged batch is applied mutation by mutation
 * (the base row with its rows-table record, each index entry, the marker), each within 20 ms, in any
 * order; the maintainers read the markers later, retry, hand off and repair again as {@link
 * Maintainers} says, and their writes land within 20 ms of a step, in a random order, some twice.
 */
final class VersionedWorld extends Simulation {
    static final TableDef DEF = Definitions.read(Path.of("examples/revisions.json"));
    static final TablePlan PLAN = TablePlan.of(DEF);
    static final IndexPlan BY_LENGTH = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_length")).findFirst().orElseThrow();
    static final IndexPlan BY_TID = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_tid")).findFirst().orElseThrow();
    /** A partial write ({@code UPDATE ... SET value = ?}): key, tid and value, no length. */
    private static final BitSet PARTIAL = BitSet.valueOf(new long[] {0b1011});

    final MemoryStores stores;
    final MemoryTrigger trigger;
    final Maintainers maintainers;
    /** What the client did, for the report. */
    int writes;
    int deletes;
    int expiring;
    int sameTicks;
    /** Every version written, by tid: the values a retry writes again, and the TTL it was first written with. */
    final Map<UUID, Version> written = new LinkedHashMap<>();
    final Map<UUID, Integer> ttls = new LinkedHashMap<>();
    final List<UUID> deleted = new ArrayList<>();
    private final Set<Long> ticksUsed = new HashSet<>();

    VersionedWorld(Random rnd, long startMillis, Maintainers.Mode mode) {
        super(rnd, startMillis);
        this.stores = MemoryStores.of(PLAN, () -> now);
        this.trigger = new MemoryTrigger(stores, () -> now);
        this.maintainers = new Maintainers(this, stores, trigger, mode);
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    /** A version of row {@code key}: complete, or a partial write's (no length). */
    static Version version(ByteBuffer[] values, boolean partial) {
        return new Version(values, 1, partial ? PARTIAL : null);
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
            Version v = version(values, partial);
            written.put(tid, v);
            int ttl = newTtl();
            ttls.put(tid, ttl);
            write(v, w, ttl);
        }
    }

    private int newTtl() {
        return rnd.nextInt(7) == 0 ? 1 + rnd.nextInt(4) : 0;
    }

    /** The TTL of a version written again: another than its first write's (or none), now and then. */
    private int againTtl(UUID tid) {
        return rnd.nextBoolean() ? newTtl() : ttls.get(tid);
    }

    /** The trigger's logged batch for a write of one version, applied mutation by mutation. */
    void write(Version v, long w, int ttl) {
        writes++;
        expiring += ttl > 0 ? 1 : 0;
        if (logging) {
            log("write " + RandomHistoryTest.show(v.values()[0]) + " " + tid(v.tid()) + " length " + (v.has(2) ? RandomHistoryTest.show(v.get(2)) : "(none)")
                    + " value " + RandomHistoryTest.show(v.get(3)) + " w " + w + " ttl " + ttl);
        }
        MemoryTrigger.Batch b = batch(v, w, ttl);
        if (maintainers.mode() == Maintainers.Mode.EVENTUAL) {
            at(now + rnd.nextInt(20), b.write());
            maintainers.eventual(b);
        } else {
            for (Runnable m : b.entries()) {
                at(now + rnd.nextInt(20), m);
            }
            at(now + rnd.nextInt(20), b.base());
            maintainers.marker(b.marker());
        }
        if (b.expiry() != null) {
            maintainers.queue(b.expiry(), b.expiryDue());
        }
    }

    /** What the trigger makes of one write: an {@code INSERT} of a complete version, an {@code UPDATE} of a partial one. */
    MemoryTrigger.Batch batch(Version v, long w, int ttl) {
        return trigger.write(v, v.has(2), w, ttl);
    }

    void deleteVersion(ByteBuffer key, UUID tid, long d) {
        log("delete " + RandomHistoryTest.show(key) + " " + tid(tid) + " d " + d);
        deleted.add(tid);
        land(trigger.deleteVersion(List.of(key), tid, d));
    }

    void deleteRange(ByteBuffer key, UUID from, UUID to, long d) {
        log("delete range " + RandomHistoryTest.show(key) + " " + tid(from) + ".." + tid(to) + " d " + d);
        written.keySet().stream().filter(t -> written.get(t).values()[0].equals(key) && Tids.compare(t, from) >= 0 && Tids.compare(t, to) <= 0)
                .forEach(deleted::add);
        land(trigger.deleteRange(List.of(key), from, to, d));
    }

    void deletePartition(ByteBuffer key, long d) {
        log("delete partition " + RandomHistoryTest.show(key) + " d " + d);
        written.keySet().stream().filter(t -> written.get(t).values()[0].equals(key)).forEach(deleted::add);
        land(trigger.deletePartition(List.of(key), d));
    }

    /** A delete's batch: the base mutation within 20 ms (the row's batches may still be landing), and its marker. */
    private void land(MemoryTrigger.Batch b) {
        if (maintainers.mode() == Maintainers.Mode.EVENTUAL) {
            at(now + rnd.nextInt(20), b.write());
            maintainers.eventual(b);
        } else {
            at(now + rnd.nextInt(20), b.base());
            maintainers.marker(b.marker());
        }
    }

    // ----- reads and repairs outside the maintainers' own schedule

    /** The visible versions of a row, ascending. */
    List<Version> versions(ByteBuffer key) {
        return stores.base.versions(List.of(key), ReadLevel.READ);
    }

    /** One repair of a marker by the repair service now (its writes land as a repair's do). */
    Outcome repair(Marker m) {
        return repair(MarkerGroup.coalesce(List.of(m)).get(0));
    }

    Outcome repair(MarkerGroup g) {
        return TableKind.of(PLAN, stores, maintainers.counters).repair(g, null, sink(stores));
    }
}
