package io.cassandragsi.index.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.MemoryEntries;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.oracle.LwwTable;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Randomized histories replayed into the one last-write-wins model of Cassandra ({@link LwwTable}),
 * and the index that results compared with the independent oracle ({@link IndexOracle}, which
 * derives the expected index from the final history alone). The sibling-diff histories call the
 * pure core directly; the others run the maintainers as they run: the one repair core ({@link
 * io.cassandragsi.maintain.TableKind#repair}, its reads and writes through the in-memory twins of
 * the storage, {@code io.cassandragsi.maintain.MemoryStores}), driven by {@link Maintainers}, each
 * history twice: on the repair service's storage alone, and with the in-node maintainer taking the
 * plain markers and handing the rest to the service. Zero tolerance: a missing, stale or extra
 * entry, a wrong {@code _tid}, projection or {@code _deleted} fails. The one allowance is
 * docs/design.md section 4.2's approximate {@code _deleted}: it may name a later version of the row
 * that does not have the key (counted and printed).
 *
 * <p>The seed comes from {@code -Dgsi.seed=N} (else a random one) and is printed; history {@code i}
 * of each test runs with seed {@code N + i}, and a failure names that seed: replaying with it runs
 * the failing history first, and a failing history runs again with its log printed (the client's
 * statements, each repair with its outcome and writes, the tables at the end).
 *
 * <p>What it covers:
 * <ul>
 *   <li><b>Sibling diffs</b> ({@link TablePlan#derive}, {@link TablePlan#diff}) on {@code
 *       revisions}: one writer in tid order (exact), and any order: old tids, retries of a tid,
 *       tids 100 ns apart, A-B-A flips, partial writes, diffs run late, twice, in any order.
 *   <li><b>Versioned maintenance</b> ({@link VersionedWorld}: {@code VersionedTable}'s diff,
 *       prefetch, rewrite detection and recompute, whole partitions included) on {@code revisions}:
 *       row, range and partition deletes of versions, versions written with a TTL that expire,
 *       deleted versions written again, retries with the same or another timestamp, late (old)
 *       tids, partial writes, and <b>same-tick tids</b> (two versions of a row in one 100-ns tick,
 *       whose cells tie at one TS: docs/design.md section 6.3). Both indexes are judged: {@code
 *       by_length} (one entry per row across versions, with its projection) and {@code by_tid} (one
 *       entry per version).
 *   <li><b>Unversioned maintenance</b> ({@link UnversionedWorld}: {@code UnversionedTable} and
 *       {@code Reconcile}) on {@code users}: inserts, partial updates, nulls, column and row
 *       deletes, TTLs, client timestamps out of order and tied, retries.
 *   <li><b>The maintainers' schedule</b> ({@link Maintainers}): the trigger's batch lands mutation by
 *       mutation within 20 ms; the service reads markers late, sometimes twice, coalesces them by
 *       row, prefetches the plain ones, retries RETRY with backoff, recomputes a diff still invisible
 *       after 20 s, runs AGAIN once more a second later with {@code withUnseenGone}; the node
 *       maintainer takes plain markers 10 ms after the trigger, in turns, retries, hands off
 *       HANDOFF (and RETRY after 5 s) to the service as a new marker, and runs its AGAIN pass. A
 *       step's writes are sent together once its repairs are computed and land within 20 ms ({@code
 *       -Dgsi.history.land-within=N}), in a random order, some twice, while the client, the trigger
 *       and the other maintainer go on.
 * </ul>
 *
 * <p>What it leaves out, and why:
 * <ul>
 *   <li>the diff-only histories keep every version in a tick of its own: without a recompute, two
 *       tids of one tick tie at one TS and Cassandra's tie rule, not the tid order, decides
 *       (docs/design.md section 4.1); the maintenance histories cover them;
 *   <li>in-place rewrites of a version with other values (docs/limits.md lists the cases the service
 *       leaves to {@code check --fix}), conditional writes (their SERIAL reads have no meaning in one
 *       replica; {@code VersionedTableTest} and {@code UnversionedTableTest} cover their
 *       orchestration), oversized keys and mutations (unit-tested in {@code TablePlanTest}), tables
 *       whose row is not a whole partition (the orchestration tests have one each), two threads of
 *       one maintainer repairing one row at once;
 *   <li>the index is judged once the maintainers have drained and every TTL has run out, not at
 *       moments in between: the service's own rewrites of an unversioned entry outlive its cells by
 *       up to two seconds, and a versioned row whose newest version expired waits for its marker;
 * </ul>
 * Nothing else is shaped: a batch's entries land before or after its base row, within 20 ms;
 * every history found before runs as a regression test ({@link KnownDivergencesTest}); client
 *       timestamps tie earlier writes of any age (with a TTL or not), TTLs go on every kind of
 *       unversioned cell (one-cell and two-cell keys, projections alone), versions are written
 * again with another TTL or none.
 *
 * <p>{@code -Dgsi.history.scale=K} runs K times as many histories (a soak).
 */
class RandomHistoryTest {
    private static final long SEED = seed();
    /** A fixed start (2026-01-01T00:00:00Z): histories do not depend on the wall clock. */
    static final long START_MILLIS = 1_767_225_600_000L;

    private static long seed() {
        String s = System.getProperty("gsi.seed", "").trim();
        long seed = s.isEmpty() ? new SecureRandom().nextLong() : Long.parseLong(s);
        System.out.println("RandomHistoryTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    /** {@code -Dgsi.history.scale=K} runs K times as many histories (a longer soak), 1 by default. */
    private static final int SCALE = Integer.getInteger("gsi.history.scale", 1);
    /** Histories per maintainer mode of the versioned and of the unversioned table. */
    private static final int VERSIONED = 1000;
    private static final int UNVERSIONED = 1500;

    /** Runs {@code n} (times the scale) histories, history i with seed SEED + i; a failure names its seed. */
    private static void histories(String what, int n, LongConsumer history) {
        for (int i = 0; i < n * SCALE; i++) {
            long seed = SEED + i;
            try {
                history.accept(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("RandomHistoryTest " + what + ": seed " + seed + " fails (history " + i + " of seed " + SEED
                        + "; -Dgsi.seed=" + seed + " replays it first): " + e.getMessage(), e);
            }
        }
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static String show(List<ByteBuffer> key) {
        List<String> out = new ArrayList<>();
        for (ByteBuffer b : key) {
            out.add(show(b));
        }
        return out.toString();
    }

    static String show(ByteBuffer b) {
        if (b == null) {
            return "null";
        }
        if (b.remaining() == 16 && ((b.get(b.position() + 6) >> 4) & 0xF) == 1) {
            UUID u = Tids.uuid(b);
            return u + "@" + WriteTimestamps.of(u);
        }
        boolean printable = b.remaining() > 0;
        for (int i = b.position(); i < b.limit(); i++) {
            printable &= b.get(i) >= 0x20 && b.get(i) < 0x7f;
        }
        if (printable) {
            return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
        }
        StringBuilder s = new StringBuilder("0x");
        for (int i = b.position(); i < b.limit(); i++) {
            s.append(String.format("%02x", b.get(i)));
        }
        return s.toString();
    }

    private static UUID uuid(ByteBuffer b) {
        return b == null ? null : Tids.uuid(b);
    }

    // ----- sibling diffs alone

    /**
     * One history of sibling diffs; returns how many entries ended with a later non-matching
     * {@code _deleted}. Versions are in distinct ticks (class comment).
     */
    static int diffsOnly(long seed, boolean inOrderSingleWriter) {
        Random rnd = new Random(seed);
        TablePlan plan = VersionedWorld.PLAN;
        IndexOracle oracle = new IndexOracle(VersionedWorld.DEF);
        MemoryEntries model = new MemoryEntries(plan.indexes(), () -> START_MILLIS);
        int keys = 1 + rnd.nextInt(4);
        int writes = 5 + rnd.nextInt(40);
        long clock = 1_000_000;
        Map<List<ByteBuffer>, TreeMap<UUID, VersionRow>> visible = new HashMap<>();
        Map<UUID, Version> complete = new HashMap<>();
        List<Runnable> deferred = new ArrayList<>();
        List<UUID> used = new ArrayList<>();
        Set<Long> ticks = new HashSet<>();
        for (int w = 0; w < writes; w++) {
            String key = "k" + rnd.nextInt(keys);
            UUID tid;
            int pick = rnd.nextInt(10);
            if (!inOrderSingleWriter && pick == 0 && !used.isEmpty()) {
                tid = used.get(rnd.nextInt(used.size())); // a retry of an earlier write: its row, its values
            } else if (!inOrderSingleWriter && pick == 1) {
                long tick = clock - 1 - rnd.nextInt(500); // an old tid, in a tick no other version has
                while (!ticks.add(tick)) {
                    tick--;
                }
                tid = Tids.fromTicks(tick, rnd.nextLong());
            } else {
                clock += pick == 2 ? 1 : 1 + rnd.nextInt(30); // the next tick, or a little later
                ticks.add(clock);
                tid = Tids.fromTicks(clock, rnd.nextLong());
            }
            used.add(tid);
            Version version = complete.get(tid); // a retry writes the same values again
            if (version == null) {
                ByteBuffer[] values = {text(key), Tids.bytes(tid),
                    rnd.nextInt(6) == 0 ? null : ByteBuffer.wrap(BigInteger.valueOf(rnd.nextInt(3)).toByteArray()), text("v" + w)};
                version = VersionedWorld.version(values, false);
                complete.put(tid, version);
            }
            Version carried = version;
            if (rnd.nextInt(8) == 0) { // a partial write: it omits length (the stored version has it)
                carried = VersionedWorld.version(version.values(), true);
            }
            oracle.write(version.values());
            List<ByteBuffer> rowKey = List.of(version.values()[0]);
            Version stored = version;
            Version asWritten = carried;
            UUID t = tid;
            Runnable trigger = () -> {
                visible.computeIfAbsent(rowKey, k -> new TreeMap<>(Tids::compare)).put(t, stored);
                for (TablePlan.Entry e : plan.derive(asWritten).entries()) {
                    model.apply(new TablePlan.Upsert(e, Tids.bytes(t), WriteTimestamps.of(t)));
                }
            };
            boolean partial = carried != version;
            Runnable diff = () -> {
                TreeMap<UUID, VersionRow> versions = visible.get(rowKey);
                List<VersionRow> around = new ArrayList<>();
                Map.Entry<UUID, VersionRow> before = versions.lowerEntry(t);
                if (before != null) {
                    around.add(before.getValue());
                }
                around.add(versions.get(t));
                Map.Entry<UUID, VersionRow> after = versions.higherEntry(t);
                if (after != null) {
                    around.add(after.getValue());
                }
                plan.diff(around, partial).forEach(model::apply);
            };
            trigger.run(); // base and entries: one logged batch
            if (inOrderSingleWriter) {
                diff.run();
            } else {
                deferred.add(diff); // the repair service gets to it later, in any order, maybe twice
                if (rnd.nextInt(5) == 0) {
                    deferred.add(diff);
                }
                if (rnd.nextInt(3) == 0) {
                    Collections.shuffle(deferred, rnd);
                    deferred.remove(0).run();
                }
            }
        }
        Collections.shuffle(deferred, rnd);
        deferred.forEach(Runnable::run);
        return compareVersioned(oracle, model, plan.indexes());
    }

    /**
     * The index model against the oracle, for a versioned table; returns how many entries have a
     * later non-matching {@code _deleted} (the one allowance).
     */
    static int compareVersioned(IndexOracle oracle, MemoryEntries model, List<IndexPlan> indexes) {
        int later = 0;
        for (IndexPlan p : indexes) {
            String name = p.index().name();
            Map<List<ByteBuffer>, IndexOracle.Entry> expected = oracle.expected(name);
            if (p.perVersion()) {
                Set<List<ByteBuffer>> got = new HashSet<>();
                for (List<ByteBuffer> k : model.keys(p)) {
                    if (model.exists(p, k)) {
                        got.add(k);
                    }
                }
                if (!got.equals(expected.keySet())) {
                    Set<String> missing = new LinkedHashSet<>();
                    expected.keySet().stream().filter(k -> !got.contains(k)).forEach(k -> missing.add(show(k)));
                    Set<String> extra = new LinkedHashSet<>();
                    got.stream().filter(k -> !expected.containsKey(k)).forEach(k -> extra.add(show(k)));
                    throw new AssertionError("index " + name + " (one entry per remaining version): missing " + missing + ", extra " + extra);
                }
                continue;
            }
            Set<List<ByteBuffer>> all = new LinkedHashSet<>(expected.keySet());
            all.addAll(model.keys(p));
            for (List<ByteBuffer> k : all) {
                IndexOracle.Entry e = expected.get(k);
                MemoryEntries.Read read = model.read(p, k);
                UUID tid = read.tid();
                UUID deleted = read.deleted();
                boolean matches = IndexOracle.matches(tid, deleted, null);
                String what = "index " + name + " entry " + show(k) + " (_tid " + tid + ", _deleted " + deleted + ")";
                if (e == null) {
                    assertThat(matches).as("%s: no remaining version has the key, yet it matches", what).isFalse();
                    continue;
                }
                assertThat(tid).as("%s: _tid, expected the latest version with the key", what).isEqualTo(e.tid());
                assertThat(matches).as("%s: matches now, expected _deleted %s", what, e.deleted()).isEqualTo(e.deleted() == null);
                if (e.deleted() != null) {
                    IndexOracle.DeletedVerdict verdict = oracle.judgeDeleted(name, k, e, deleted);
                    assertThat(verdict).as("%s: expected _deleted %s", what, e.deleted()).isNotEqualTo(IndexOracle.DeletedVerdict.WRONG);
                    if (verdict == IndexOracle.DeletedVerdict.LATER_NON_MATCHING_VERSION) {
                        later++;
                    }
                }
                List<String> proj = new ArrayList<>();
                List<String> want = new ArrayList<>();
                for (int i = 0; i < e.proj().size(); i++) {
                    proj.add(show(read.proj().get(i)));
                    want.add(show(e.proj().get(i)));
                }
                assertThat(proj).as("%s: projections of the _tid version", what).isEqualTo(want);
            }
        }
        return later;
    }

    @Test
    void should_match_the_oracle_exactly_when_one_writer_writes_in_tid_order() {
        histories("diffs in tid order", 2000, seed -> assertThat(diffsOnly(seed, true)).as("entries with a later _deleted").isZero());
    }

    @Test
    void should_converge_on_tid_and_deleted_when_writes_and_diffs_arrive_in_any_order() {
        int[] later = {0};
        histories("diffs in any order", 3000, seed -> later[0] += diffsOnly(seed, false));
        System.out.println("RandomHistoryTest diffs in any order: entries whose _deleted is a later non-matching version"
                + " (docs/design.md section 4.2, _deleted after late versions): " + later[0]);
    }

    // ----- deletes, expiries, recompute

    /** What the maintainers did over many histories: outcomes on the service's and the node's storage, hand-offs, prefetched groups, rewrites. */
    static final class Repairs {
        final Map<Outcome, Long> service = new EnumMap<>(Outcome.class);
        final Map<Outcome, Long> node = new EnumMap<>(Outcome.class);
        long handedOff;
        long prefetched;
        long rewrites;

        void add(Maintainers m) {
            m.serviceOutcomes.forEach((o, n) -> service.merge(o, (long) n, Long::sum));
            m.nodeOutcomes.forEach((o, n) -> node.merge(o, (long) n, Long::sum));
            handedOff += m.handedOff;
            prefetched += m.counters.prefetched.sum();
            rewrites += m.counters.rewrites.sum();
            assertThat(m.gaveUp).as("groups the service gave up on").isZero();
        }

        @Override
        public String toString() {
            return "service " + service + ", node " + node + ", handed off " + handedOff + ", prefetched " + prefetched + ", rewrites " + rewrites;
        }
    }

    /**
     * What the versioned histories went through, summed and printed, so that a change that stops
     * them from covering something shows: histories, client writes, row, range and partition deletes,
     * versions written with a TTL, same-tick tids written, rows left with two remaining versions in
     * one tick, what the maintainers did, entries judged (one entry per row; per version), entries
     * expected marked, and entries whose {@code _deleted} is a later non-matching version.
     */
    static final class Coverage {
        long histories;
        long writes;
        long deletes;
        long expiring;
        long sameTickWritten;
        long sameTickRemaining;
        final Repairs repairs = new Repairs();
        long entries;
        long perVersionEntries;
        long marked;
        long later;

        @Override
        public String toString() {
            return histories + " histories, " + writes + " writes, " + deletes + " deletes (row, range, partition), " + expiring
                    + " written with a TTL, " + sameTickWritten + " same-tick tids written (" + sameTickRemaining
                    + " rows end with two remaining versions in one tick); repairs: " + repairs + "; judged: " + entries
                    + " entries of by_length (" + marked + " expected marked), " + perVersionEntries + " of by_tid; a later non-matching _deleted: "
                    + later;
        }
    }

    /** One versioned history with deletes and expiries, counted into {@code coverage}. A failure reruns it to print its log. */
    static void versioned(long seed, Maintainers.Mode mode, Coverage coverage) {
        try {
            versioned(seed, mode, coverage, false);
        } catch (AssertionError e) {
            try {
                versioned(seed, mode, new Coverage(), true);
            } catch (AssertionError again) {
                throw new AssertionError(again.getMessage(), e);
            }
            throw new AssertionError(e.getMessage() + "\n(the history did not fail again with its log on)", e);
        }
    }

    private static void versioned(long seed, Maintainers.Mode mode, Coverage coverage, boolean logging) {
        Random rnd = new Random(seed);
        VersionedWorld w = new VersionedWorld(rnd, START_MILLIS, mode);
        w.logging = logging;
        int keys = 1 + rnd.nextInt(3);
        int ops = 5 + rnd.nextInt(50);
        long at = START_MILLIS;
        for (int i = 0; i < ops; i++) {
            at += 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 3_000 : 80);
            int step = i;
            w.at(at, () -> w.clientStep(keys, step));
        }
        w.drain();
        // judged once every TTL has run out and the maintainers have drained
        long last = w.now;
        for (LwwTable t : List.of(w.stores.base.table, w.stores.records.table)) {
            for (LwwTable.Cell c : t.expiringCells()) {
                last = Math.max(last, c.localDeletionTime() * 1000 + 1000);
            }
        }
        w.now = last;
        w.drain();
        IndexOracle oracle = new IndexOracle(VersionedWorld.DEF);
        for (ByteBuffer key : new LinkedHashSet<>(w.written.values().stream().map(v -> v.values()[0]).toList())) {
            for (Version v : w.versions(key)) {
                oracle.write(v.values());
            }
        }
        coverage.histories++;
        coverage.writes += w.writes;
        coverage.deletes += w.deletes;
        coverage.expiring += w.expiring;
        coverage.sameTickWritten += w.sameTicks;
        coverage.repairs.add(w.maintainers);
        for (NavigableMap<UUID, List<ByteBuffer>> versions : oracle.rows().values()) {
            UUID previous = null;
            for (UUID t : versions.keySet()) {
                if (previous != null && WriteTimestamps.of(previous) == WriteTimestamps.of(t)) {
                    coverage.sameTickRemaining++;
                    break;
                }
                previous = t;
            }
        }
        Map<List<ByteBuffer>, IndexOracle.Entry> byLength = oracle.expected("by_length");
        coverage.entries += byLength.size();
        coverage.marked += byLength.values().stream().filter(e -> e.deleted() != null).count();
        coverage.perVersionEntries += oracle.expected("by_tid").size();
        try {
            coverage.later += compareVersioned(oracle, w.stores.entries, VersionedWorld.PLAN.indexes());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + (logging ? "\nhistory (millis, what):\n" + String.join("\n", w.log) + "\nat " + w.now
                    + ", base:\n" + w.stores.base.table + "index:\n" + w.stores.entries + "rows:\n" + w.stores.records.table : ""), e);
        }
    }

    @Test
    void should_match_the_oracle_when_versions_are_deleted_expire_and_come_back_and_the_service_recomputes() {
        Coverage coverage = new Coverage();
        histories("versioned deletes, service", VERSIONED, seed -> versioned(seed, Maintainers.Mode.SERVICE, coverage));
        System.out.println("RandomHistoryTest versioned deletes, service: " + coverage);
        assertThat(coverage.sameTickRemaining).as("histories that end with same-tick siblings").isPositive();
        assertThat(coverage.deletes).isPositive();
        assertThat(coverage.expiring).isPositive();
        assertThat(coverage.repairs.service).containsKeys(Outcome.DONE, Outcome.RETRY, Outcome.AGAIN);
        assertThat(coverage.repairs.prefetched).isPositive();
    }

    @Test
    void should_match_the_oracle_when_the_node_maintainer_diffs_and_hands_the_rest_to_the_service() {
        Coverage coverage = new Coverage();
        histories("versioned deletes, node", VERSIONED, seed -> versioned(seed, Maintainers.Mode.NODE, coverage));
        System.out.println("RandomHistoryTest versioned deletes, node: " + coverage);
        assertThat(coverage.repairs.node).containsKeys(Outcome.DONE, Outcome.RETRY, Outcome.HANDOFF);
        assertThat(coverage.repairs.handedOff).isPositive();
        assertThat(coverage.repairs.rewrites).isPositive();
    }

    @Test
    void should_match_the_oracle_when_the_node_writes_the_entries_after_the_write_in_eventual_indexing() {
        Coverage coverage = new Coverage();
        histories("versioned deletes, eventual", VERSIONED, seed -> versioned(seed, Maintainers.Mode.EVENTUAL, coverage));
        System.out.println("RandomHistoryTest versioned deletes, eventual: " + coverage);
        assertThat(coverage.repairs.node).containsKeys(Outcome.DONE, Outcome.RETRY, Outcome.HANDOFF);
        assertThat(coverage.repairs.handedOff).isPositive();
    }

    // ----- unversioned reconcile

    /** What the unversioned histories went through (see {@link Coverage}). */
    static final class UnversionedCoverage {
        long histories;
        long statements;
        long deletes;
        long expiring;
        long ties;
        final Repairs repairs = new Repairs();
        long entries;
        long notMatching;

        @Override
        public String toString() {
            return histories + " histories, " + statements + " statements, " + deletes + " row deletes, " + expiring + " with a TTL, " + ties
                    + " with a tied timestamp; repairs: " + repairs + "; judged: " + entries + " matching entries, " + notMatching
                    + " entries that must not match";
        }
    }

    /** One unversioned history, counted into {@code coverage}; a failure reruns it to print its log. */
    static void unversioned(long seed, Maintainers.Mode mode, UnversionedCoverage coverage) {
        try {
            unversioned(seed, mode, coverage, false);
        } catch (AssertionError e) {
            try {
                unversioned(seed, mode, new UnversionedCoverage(), true);
            } catch (AssertionError again) {
                throw new AssertionError(again.getMessage(), e);
            }
            throw new AssertionError(e.getMessage() + "\n(the history did not fail again with its log on)", e);
        }
    }

    private static void unversioned(long seed, Maintainers.Mode mode, UnversionedCoverage coverage, boolean logging) {
        Random rnd = new Random(seed);
        UnversionedWorld w = new UnversionedWorld(rnd, START_MILLIS, mode);
        w.logging = logging;
        int ids = 1 + rnd.nextInt(3);
        int ops = 5 + rnd.nextInt(40);
        long at = START_MILLIS;
        for (int i = 0; i < ops; i++) {
            at += 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 3_000 : 80);
            w.at(at, () -> w.clientStep(ids));
        }
        w.drain();
        // judged once every TTL has run out (the service's own rewrites outlive a cell by up to 2 s) and the maintainers have drained
        long last = w.now;
        List<LwwTable> tables = new ArrayList<>(List.of(w.stores.current.table));
        UnversionedWorld.PLAN.indexes().forEach(p -> tables.add(w.stores.entries.table(p)));
        for (LwwTable t : tables) {
            for (LwwTable.Cell c : t.expiringCells()) {
                last = Math.max(last, c.localDeletionTime() * 1000 + 1000);
            }
        }
        w.now = last;
        w.drain();
        IndexOracle oracle = new IndexOracle(UnversionedWorld.DEF);
        for (LwwTable.RowKey r : w.stores.current.table.rows()) {
            List<IndexOracle.Cell> cells = new ArrayList<>();
            cells.add(new IndexOracle.Cell(((List<?>) r.partition()).get(0) instanceof ByteBuffer id ? id : null, Long.MIN_VALUE));
            for (String c : UnversionedWorld.COLUMNS.subList(1, UnversionedWorld.COLUMNS.size())) {
                LwwTable.Cell cell = w.stores.current.table.liveCell(r.partition(), r.clustering(), c);
                cells.add(cell == null ? IndexOracle.Cell.NONE : new IndexOracle.Cell(cell.value(), cell.timestamp()));
            }
            oracle.row(cells);
        }
        coverage.histories++;
        coverage.statements += w.statements;
        coverage.deletes += w.deletes;
        coverage.expiring += w.expiring;
        coverage.ties += w.ties;
        coverage.repairs.add(w.maintainers);
        for (IndexPlan p : UnversionedWorld.PLAN.indexes()) {
            int expected = oracle.expected(p.index().name()).size();
            coverage.entries += expected;
            coverage.notMatching += new HashSet<>(w.stores.entries.keys(p)).size() - expected;
        }
        try {
            compareUnversioned(oracle, w.stores.entries, UnversionedWorld.PLAN.indexes());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + (logging ? "\nhistory (millis, what):\n" + String.join("\n", w.log) + "\nat " + w.now
                    + ", base:\n" + w.stores.current.table + "index:\n" + w.stores.entries + "rows:\n" + w.stores.records.table : ""), e);
        }
    }

    /** The index model against the oracle, for an unversioned table. */
    static void compareUnversioned(IndexOracle oracle, MemoryEntries model, List<IndexPlan> indexes) {
        for (IndexPlan p : indexes) {
            String name = p.index().name();
            Map<List<ByteBuffer>, IndexOracle.Entry> expected = oracle.expected(name);
            Set<List<ByteBuffer>> all = new LinkedHashSet<>(expected.keySet());
            all.addAll(model.keys(p));
            for (List<ByteBuffer> k : all) {
                IndexOracle.Entry e = expected.get(k);
                MemoryEntries.Read read = model.read(p, k);
                UUID tid = read.tid();
                UUID deleted = read.deleted();
                boolean matches = IndexOracle.matches(tid, deleted, null);
                String what = "index " + name + " entry " + show(k) + " (_tid " + Simulation.tid(tid) + ", _deleted " + Simulation.tid(deleted) + ")";
                if (e == null) {
                    assertThat(matches).as("%s: the row does not have the key, yet it matches", what).isFalse();
                    continue;
                }
                assertThat(matches).as("%s: the row has the key", what).isTrue();
                long ticks = WriteTimestamps.of(tid);
                boolean natural = ticks == e.versionTicks();
                boolean afterMark = deleted != null && WriteTimestamps.of(deleted) >= e.versionTicks() && ticks == WriteTimestamps.of(deleted) + 1;
                assertThat(natural || afterMark).as("%s: _tid, expected tick %d (ten times the newest key cell's timestamp), or one after a mark"
                        + " at or after it", what, e.versionTicks()).isTrue();
                List<String> proj = new ArrayList<>();
                List<String> want = new ArrayList<>();
                for (int i = 0; i < e.proj().size(); i++) {
                    proj.add(show(read.proj().get(i)));
                    want.add(show(e.proj().get(i)));
                }
                assertThat(proj).as("%s: projections", what).isEqualTo(want);
            }
        }
    }

    @Test
    void should_match_the_oracle_when_unversioned_rows_are_rewritten_deleted_and_expire_and_the_service_reconciles() {
        UnversionedCoverage coverage = new UnversionedCoverage();
        histories("unversioned reconcile, service", UNVERSIONED, seed -> unversioned(seed, Maintainers.Mode.SERVICE, coverage));
        System.out.println("RandomHistoryTest unversioned reconcile, service: " + coverage);
        assertThat(coverage.repairs.service).containsKeys(Outcome.DONE, Outcome.AGAIN);
    }

    @Test
    void should_match_the_oracle_when_the_node_maintainer_reconciles_and_hands_the_rest_to_the_service() {
        UnversionedCoverage coverage = new UnversionedCoverage();
        histories("unversioned reconcile, node", UNVERSIONED, seed -> unversioned(seed, Maintainers.Mode.NODE, coverage));
        System.out.println("RandomHistoryTest unversioned reconcile, node: " + coverage);
        assertThat(coverage.repairs.node).containsKeys(Outcome.DONE, Outcome.RETRY, Outcome.AGAIN);
    }

    @Test
    void should_match_the_oracle_when_the_node_writes_the_entries_after_the_write_and_reconciles_in_eventual_indexing() {
        UnversionedCoverage coverage = new UnversionedCoverage();
        histories("unversioned reconcile, eventual", UNVERSIONED, seed -> unversioned(seed, Maintainers.Mode.EVENTUAL, coverage));
        System.out.println("RandomHistoryTest unversioned reconcile, eventual: " + coverage);
        assertThat(coverage.repairs.node).containsKeys(Outcome.DONE, Outcome.AGAIN);
    }
}
