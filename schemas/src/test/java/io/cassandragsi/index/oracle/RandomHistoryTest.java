package io.cassandragsi.index.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.oracle.LwwTable;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
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
 * Randomized histories replayed through the pure core into the one last-write-wins model of
 * Cassandra ({@link LwwTable}), and the index that results compared with the independent oracle
 * ({@link IndexOracle}, which derives the expected index from the final history alone). Zero
 * tolerance: a missing, stale or extra entry, a wrong {@code _tid}, projection or {@code _deleted}
 * fails. The one allowance is README's "{@code _deleted} after late versions": a {@code _deleted}
 * may name a later version of the row that does not have the key (counted and printed).
 *
 * <p>The seed comes from {@code -Dgsi.seed=N} (else a random one) and is printed; history {@code i}
 * of each test runs with seed {@code N + i}, and a failure names that seed: replaying with it runs
 * the failing history first.
 *
 * <p>What it covers:
 * <ul>
 *   <li><b>Sibling diffs</b> ({@link TablePlan#derive}, {@link TablePlan#diff}) on {@code
 *       revisions}: one writer in tid order (exact), and any order: old tids, retries of a tid,
 *       tids 100 ns apart, A-B-A flips, partial writes, diffs run late, twice, in any order.
 *   <li><b>Deletes, expiries and recompute</b> ({@link VersionedWorld}: {@code
 *       VersionRecompute.needsRecompute}, {@code recompute}, {@code perVersion}, and the diff): row,
 *       range and partition deletes of versions, versions written with a TTL that expire, deleted
 *       versions written again, retries with the same or another timestamp, late (old) tids, partial
 *       writes, and <b>same-tick tids</b> (two versions of a row in one 100-ns tick, whose cells tie
 *       at one TS: the diff hands such rows to a recompute, README "Rewrites and ties"). The trigger's
 *       batch lands mutation by mutation, markers are read late, twice, retried, taken for gone after
 *       20 s, recomputed again a second later; the service's writes land in any order, some twice.
 *       Both indexes of {@code revisions} are judged: {@code by_length} (one entry per row across
 *       versions, with its projection) and {@code by_tid} (one entry per version).
 *   <li><b>Unversioned reconcile</b> ({@link UnversionedWorld}: {@code RowReconcile.reconcile} and
 *       {@code settled}) on {@code users}: inserts, partial updates, nulls, column and row deletes,
 *       TTLs, client timestamps out of order and tied, retries; mirrored entries from the trigger
 *       and the service's reconciles, in any order.
 * </ul>
 *
 * <p>What it leaves out, and why:
 * <ul>
 *   <li>the diff-only histories keep every version in a tick of its own: without a recompute, two
 *       tids of one tick tie at one TS and Cassandra's tie rule, not the tid order, decides (README);
 *       the recompute histories cover them;
 *   <li>in-place rewrites of a version with other values (the README's Limits list the cases the
 *       service leaves to {@code check --fix}), conditional writes (their SERIAL reads are the
 *       service's, not the core's), oversized keys and mutations (unit-tested in {@code
 *       TablePlanTest}), tables whose row is not a whole partition;
 *   <li>the index is judged once the service has drained and every TTL has run out, not at moments
 *       in between: the service's own rewrites of an unversioned entry outlive its cells by up to
 *       two seconds (README), and a versioned row whose newest version expired waits for its marker;
 *   <li>four interleavings that make the index disagree with the base for good today, each reduced
 *       to a few steps in {@link KnownDivergencesTest} (disabled) and off by default here, with a
 *       flag that puts it back: a version written again with a longer TTL or none after a write
 *       with a TTL ({@code -Dgsi.history.ttl-rewrites=true}: its per-version entry expires with the
 *       first write); a client timestamp tied with a write more than a second older ({@code
 *       -Dgsi.history.old-timestamps=true}: the rows table forgets the key of a write whose entry is
 *       still landing); an unversioned write's entry landing before its base row ({@code
 *       -Dgsi.history.entries-first=true}: a reconcile in between deletes its projection for good);
 *       TTLs on the cells of a two-cell unversioned key ({@code
 *       -Dgsi.history.composite-key-ttl=true}: an entry's {@code _tid} written at one timestamp with
 *       and without a TTL expires). Off, unversioned entries land after their base row (still
 *       within 20 ms, in any order among themselves), tied timestamps come from the last 0.9 s, and
 *       unversioned TTLs go on statements that write email (and name), not country or age.
 * </ul>
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
        IndexModel model = new IndexModel(plan.indexes(), () -> START_MILLIS);
        int keys = 1 + rnd.nextInt(4);
        int writes = 5 + rnd.nextInt(40);
        long clock = 1_000_000;
        Map<List<ByteBuffer>, TreeMap<UUID, VersionRow>> visible = new HashMap<>();
        Map<UUID, VersionedWorld.Version> complete = new HashMap<>();
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
            VersionedWorld.Version version = complete.get(tid); // a retry writes the same values again
            if (version == null) {
                ByteBuffer[] values = {text(key), Tids.bytes(tid),
                    rnd.nextInt(6) == 0 ? null : ByteBuffer.wrap(BigInteger.valueOf(rnd.nextInt(3)).toByteArray()), text("v" + w)};
                version = new VersionedWorld.Version(values, new boolean[] {true, true, true, true});
                complete.put(tid, version);
            }
            VersionedWorld.Version carried = version;
            if (rnd.nextInt(8) == 0) { // a partial write: it omits length (the stored version has it)
                carried = new VersionedWorld.Version(version.values(), new boolean[] {true, true, false, true});
            }
            oracle.write(version.values());
            List<ByteBuffer> rowKey = List.of(version.values()[0]);
            VersionedWorld.Version stored = version;
            VersionedWorld.Version asWritten = carried;
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
    static int compareVersioned(IndexOracle oracle, IndexModel model, List<IndexPlan> indexes) {
        int later = 0;
        for (IndexPlan p : indexes) {
            String name = p.index().name();
            Map<List<ByteBuffer>, IndexOracle.Entry> expected = oracle.expected(name);
            LwwTable t = model.table(p);
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
                UUID tid = uuid(t.value(k, null, IndexModel.TID));
                UUID deleted = uuid(t.value(k, null, IndexModel.DELETED));
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
                    proj.add(show(t.value(k, null, IndexModel.proj(i))));
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
                + " (README, _deleted after late versions): " + later[0]);
    }

    // ----- deletes, expiries, recompute

    /**
     * What the versioned histories went through, summed and printed, so that a change that stops
     * them from covering something shows: histories, client writes, row, range and partition deletes,
     * versions written with a TTL, same-tick tids written, rows left with two remaining versions in
     * one tick, diffs, recomputes, entries judged (one entry per row; per version), entries expected
     * marked, and entries whose {@code _deleted} is a later non-matching version.
     */
    static final class Coverage {
        long histories;
        long writes;
        long deletes;
        long expiring;
        long sameTickWritten;
        long sameTickRemaining;
        long diffs;
        long recomputes;
        long entries;
        long perVersionEntries;
        long marked;
        long later;

        @Override
        public String toString() {
            return histories + " histories, " + writes + " writes, " + deletes + " deletes (row, range, partition), " + expiring
                    + " written with a TTL, " + sameTickWritten + " same-tick tids written (" + sameTickRemaining
                    + " rows end with two remaining versions in one tick); service: " + diffs + " diffs, " + recomputes + " recomputes; judged: "
                    + entries + " entries of by_length (" + marked + " expected marked), " + perVersionEntries + " of by_tid; a later"
                    + " non-matching _deleted: " + later;
        }
    }

    /** One versioned history with deletes and expiries, counted into {@code coverage}. A failure reruns it to print its log. */
    static void versioned(long seed, Coverage coverage) {
        try {
            versioned(seed, coverage, false);
        } catch (AssertionError e) {
            try {
                versioned(seed, new Coverage(), true);
            } catch (AssertionError again) {
                throw new AssertionError(again.getMessage(), e);
            }
            throw new AssertionError(e.getMessage() + "\n(the history did not fail again with its log on)", e);
        }
    }

    private static void versioned(long seed, Coverage coverage, boolean logging) {
        Random rnd = new Random(seed);
        VersionedWorld w = new VersionedWorld(rnd, START_MILLIS);
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
        // judged once every TTL has run out and the service has drained
        long last = w.now;
        for (LwwTable t : List.of(w.base, w.rows)) {
            for (LwwTable.Cell c : t.expiringCells()) {
                last = Math.max(last, c.localDeletionTime() * 1000 + 1000);
            }
        }
        w.now = last;
        w.drain();
        IndexOracle oracle = new IndexOracle(VersionedWorld.DEF);
        for (LwwTable.RowKey r : w.base.rows()) {
            if (w.base.exists(r.partition(), r.clustering())) {
                ByteBuffer key = (ByteBuffer) r.partition();
                UUID tid = (UUID) r.clustering();
                oracle.write(key, Tids.bytes(tid), w.base.value(key, tid, "length"), w.base.value(key, tid, "value"));
            }
        }
        coverage.histories++;
        coverage.writes += w.writes;
        coverage.deletes += w.deletes;
        coverage.expiring += w.expiring;
        coverage.sameTickWritten += w.sameTicks;
        coverage.diffs += w.diffs;
        coverage.recomputes += w.recomputes;
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
            coverage.later += compareVersioned(oracle, w.index, VersionedWorld.PLAN.indexes());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + (logging ? "\nhistory (millis, what):\n" + String.join("\n", w.log) + "\nat " + w.now
                    + ", base:\n" + w.base + "index:\n" + w.index + "rows:\n" + w.rows : ""), e);
        }
    }

    @Test
    void should_match_the_oracle_when_versions_are_deleted_expire_and_come_back_and_the_service_recomputes() {
        Coverage coverage = new Coverage();
        histories("versioned deletes", 1000, seed -> versioned(seed, coverage));
        System.out.println("RandomHistoryTest versioned deletes: " + coverage);
        assertThat(coverage.sameTickRemaining).as("histories that end with same-tick siblings").isPositive();
        assertThat(coverage.deletes).isPositive();
        assertThat(coverage.expiring).isPositive();
    }

    // ----- unversioned reconcile

    /** What the unversioned histories went through (see {@link Coverage}). */
    static final class UnversionedCoverage {
        long histories;
        long statements;
        long deletes;
        long expiring;
        long ties;
        long reconciles;
        long entries;
        long notMatching;

        @Override
        public String toString() {
            return histories + " histories, " + statements + " statements, " + deletes + " row deletes, " + expiring + " with a TTL, " + ties
                    + " with a tied timestamp; " + reconciles + " reconciles; judged: " + entries + " matching entries, " + notMatching
                    + " entries that must not match";
        }
    }

    /** One unversioned history, counted into {@code coverage}; a failure reruns it to print its log. */
    static void unversioned(long seed, UnversionedCoverage coverage) {
        try {
            unversioned(seed, coverage, false);
        } catch (AssertionError e) {
            try {
                unversioned(seed, new UnversionedCoverage(), true);
            } catch (AssertionError again) {
                throw new AssertionError(again.getMessage(), e);
            }
            throw new AssertionError(e.getMessage() + "\n(the history did not fail again with its log on)", e);
        }
    }

    private static void unversioned(long seed, UnversionedCoverage coverage, boolean logging) {
        Random rnd = new Random(seed);
        UnversionedWorld w = new UnversionedWorld(rnd, START_MILLIS);
        w.logging = logging;
        int ids = 1 + rnd.nextInt(3);
        int ops = 5 + rnd.nextInt(40);
        long at = START_MILLIS;
        for (int i = 0; i < ops; i++) {
            at += 1 + rnd.nextInt(rnd.nextInt(8) == 0 ? 3_000 : 80);
            w.at(at, () -> w.clientStep(ids));
        }
        w.drain();
        // judged once every TTL has run out (the service's own rewrites outlive a cell by up to 2 s) and the service has drained
        long last = w.now;
        for (LwwTable t : List.of(w.base, w.index.table(UnversionedWorld.PLAN.indexes().get(0)), w.index.table(UnversionedWorld.PLAN.indexes().get(1)))) {
            for (LwwTable.Cell c : t.expiringCells()) {
                last = Math.max(last, c.localDeletionTime() * 1000 + 1000);
            }
        }
        w.now = last;
        w.drain();
        IndexOracle oracle = new IndexOracle(UnversionedWorld.DEF);
        for (LwwTable.RowKey r : w.base.rows()) {
            ByteBuffer id = (ByteBuffer) r.partition();
            List<IndexOracle.Cell> cells = new ArrayList<>();
            cells.add(new IndexOracle.Cell(id, Long.MIN_VALUE));
            for (String c : UnversionedWorld.COLUMNS.subList(1, UnversionedWorld.COLUMNS.size())) {
                LwwTable.Cell cell = w.base.liveCell(id, null, c);
                cells.add(cell == null ? IndexOracle.Cell.NONE : new IndexOracle.Cell(cell.value(), cell.timestamp()));
            }
            oracle.row(cells);
        }
        coverage.histories++;
        coverage.statements += w.statements;
        coverage.deletes += w.deletes;
        coverage.expiring += w.expiring;
        coverage.ties += w.ties;
        coverage.reconciles += w.reconciles;
        for (IndexPlan p : UnversionedWorld.PLAN.indexes()) {
            int expected = oracle.expected(p.index().name()).size();
            coverage.entries += expected;
            coverage.notMatching += new HashSet<>(w.index.keys(p)).size() - expected;
        }
        try {
            compareUnversioned(oracle, w.index, UnversionedWorld.PLAN.indexes());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + (logging ? "\nhistory (millis, what):\n" + String.join("\n", w.log) + "\nat " + w.now
                    + ", base:\n" + w.base + "index:\n" + w.index + "rows:\n" + w.rows : ""), e);
        }
    }

    /** The index model against the oracle, for an unversioned table. */
    static void compareUnversioned(IndexOracle oracle, IndexModel model, List<IndexPlan> indexes) {
        for (IndexPlan p : indexes) {
            String name = p.index().name();
            Map<List<ByteBuffer>, IndexOracle.Entry> expected = oracle.expected(name);
            LwwTable t = model.table(p);
            Set<List<ByteBuffer>> all = new LinkedHashSet<>(expected.keySet());
            all.addAll(model.keys(p));
            for (List<ByteBuffer> k : all) {
                IndexOracle.Entry e = expected.get(k);
                UUID tid = uuid(t.value(k, null, IndexModel.TID));
                UUID deleted = uuid(t.value(k, null, IndexModel.DELETED));
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
                    proj.add(show(t.value(k, null, IndexModel.proj(i))));
                    want.add(show(e.proj().get(i)));
                }
                assertThat(proj).as("%s: projections", what).isEqualTo(want);
            }
        }
    }

    @Test
    void should_match_the_oracle_when_unversioned_rows_are_rewritten_deleted_and_expire_and_the_service_reconciles() {
        UnversionedCoverage coverage = new UnversionedCoverage();
        histories("unversioned reconcile", 1500, seed -> unversioned(seed, coverage));
        System.out.println("RandomHistoryTest unversioned reconcile: " + coverage);
    }
}
