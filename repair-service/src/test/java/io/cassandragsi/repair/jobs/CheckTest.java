package io.cassandragsi.repair.jobs;

import static io.cassandragsi.repair.jobs.Histories.text;
import static io.cassandragsi.repair.jobs.Histories.varint;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.jobs.Histories.World;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one check (docs/design.md section 9.2) on both kinds of table, over in-memory twins: a
 * rebuilt index is clean; each kind of drift injected is found, counted by kind and fixed; what a
 * writer outside the project put above every timestamp is unfixable. Judged by the independent
 * oracle. No node.
 */
class CheckTest {
    private static final int SPLITS = 8;

    static CheckResult check(World w, boolean fix) {
        return check(w, CheckOptions.defaults().withFix(fix).withSplits(SPLITS).withParallelism(2), () -> false);
    }

    private static CheckResult check(World w, CheckOptions options, java.util.function.BooleanSupplier cancelled) {
        Check<?> c = Check.of(w.tables().rule, w.tables(), w.tables().writes(), w.tables().plan.indexes(), options, () -> Histories.NOW_TS);
        return c.run("check-1", SPLITS, new Progress(), ProgressListener.NONE, cancelled);
    }

    static World rebuilt(String kind) {
        World w = kind.equals("versioned") ? Histories.versioned() : Histories.unversioned();
        MemoryJobLedger ledger = new MemoryJobLedger();
        Instant now = Instant.now();
        JobLedger.Header job = new JobLedger.Header("r1", Jobs.REBUILD, "ks", "t", JobLedger.ALL_INDEXES, SPLITS, JobState.RUNNING, null, now, now);
        ledger.create(job);
        RebuildResult r = Rebuild.of(w.tables().rule, w.tables(), w.tables().writes(), w.tables().plan.indexes(), ledger, RebuildOptions.defaults())
                .run(job, new Progress(), ProgressListener.NONE, () -> false);
        assertThat(r.state()).isEqualTo(JobState.DONE);
        return w;
    }

    private static void assertClean(CheckResult c, World w, int approximate) {
        assertThat(c.state()).isEqualTo(JobState.DONE);
        assertThat(c.drift()).as(c.summary()).isFalse();
        for (IndexPlan p : w.tables().plan.indexes()) {
            CheckResult.IndexReport r = c.index(p.index().name());
            assertThat(r.expected()).as(p.index().name()).isEqualTo(w.oracle().expected(p.index().name()).size());
            assertThat(r.transientFindings()).isZero();
            int[] approx = {0};
            assertThat(Histories.drift(w, p.index().name(), approx)).as("%s against the oracle", p.index().name()).isEmpty();
            assertThat(approx[0]).isEqualTo(p.index().name().equals("by_length") ? approximate : 0);
            assertThat(r.approximate()).isEqualTo(approx[0]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_find_no_drift_when_the_index_was_rebuilt(String kind) {
        World w = rebuilt(kind);
        CheckResult c = check(w, false);
        assertClean(c, w, 0);
        assertThat(c.rows()).isPositive();
        assertThat(c.entries()).as("every entry read in the index pass").isEqualTo(
                w.tables().plan.indexes().stream().mapToLong(p -> w.tables().entries(p).size()).sum());
        assertThat(c.indexes().stream().mapToLong(CheckResult.IndexReport::tooLarge).sum()).as("the row whose key is too large").isOne();
    }

    private static UUID tick(long ticks) {
        return Tids.minAtTicks(ticks);
    }

    /** Writes a by_length entry (length, key) as an outside writer: row marker, _tid and value at {@code ts}, _deleted at its own TS. */
    private static void entry(World w, List<ByteBuffer> key, UUID tid, UUID deleted, String value, long ts) {
        w.tables().damage(w.index("by_length"), key, t -> {
            t.insertMarker(key, null, ts, 0);
            t.write(key, null, "_tid", Tids.bytes(tid), ts, 0);
            t.write(key, null, "value", text(value), ts, 0);
            if (deleted != null) {
                t.write(key, null, "_deleted", Tids.bytes(deleted), WriteTimestamps.of(deleted), 0);
            }
        });
    }

    private static List<ByteBuffer> length(long length, String key) {
        return List.of(varint(BigInteger.valueOf(length)), text(key));
    }

    @Test
    void should_find_each_kind_of_drift_and_fix_it_when_a_versioned_index_is_damaged() {
        World w = rebuilt("versioned");
        IndexPlan byLength = w.index("by_length");
        IndexPlan byTid = w.index("by_tid");
        // lost writes: a whole entry of each index
        w.tables().forget(byLength, length(3, "e"));
        w.tables().forget(byTid, List.of(Tids.bytes(w.tid("c2")), text("c")));
        // the mark of (1, a) never arrived
        w.tables().forget(byLength, length(1, "a"));
        entry(w, length(1, "a"), w.tid("a1"), null, "a1", WriteTimestamps.of(w.tid("a1")));
        // (2, a) marked at a tick that is no version (between a2 and a3)
        long between = (WriteTimestamps.of(w.tid("a2")) + WriteTimestamps.of(w.tid("a3"))) / 2;
        w.tables().forget(byLength, length(2, "a"));
        entry(w, length(2, "a"), w.tid("a2"), Tids.fromTicks(between, 7), "a2", WriteTimestamps.of(w.tid("a2")));
        // (1, b) never saw its newest version b2 (but carries its value)
        w.tables().forget(byLength, length(1, "b"));
        entry(w, length(1, "b"), w.tid("b1"), null, "b2", WriteTimestamps.of(w.tid("b1")));
        // (2, c)'s projection overwritten at its TS by a greater value
        List<ByteBuffer> c = length(2, "c");
        w.tables().damage(byLength, c, t -> t.write(c, null, "value", text("zz"), WriteTimestamps.of(w.tid("c1")), 0));
        // (1, f) marked at f3, a later version without the key than the exact f2: legitimate
        w.tables().forget(byLength, length(1, "f"));
        entry(w, length(1, "f"), w.tid("f1"), w.tid("f3"), "f1", WriteTimestamps.of(w.tid("f1")));
        // ghosts: entries no version explains, at the TS of now
        entry(w, length(1000, "b"), Tids.fromTicks(Histories.NOW_TS - 5, 3), null, "ghost", Histories.NOW_TS - 5);
        List<ByteBuffer> ghostTid = List.of(Tids.bytes(Tids.fromTicks(Histories.BASE_TICKS + 1, 9)), text("d"));
        w.tables().damage(byTid, ghostTid, t -> t.insertMarker(ghostTid, null, Histories.NOW_TS - 5, 0));
        // an entry no version explains that no longer matches: what a repair leaves, not drift
        entry(w, length(7, "b"), w.tid("b1"), w.tid("b2"), "b1", WriteTimestamps.of(w.tid("b1")));

        CheckResult found = check(w, false);
        assertThat(found.drift()).isTrue();
        CheckResult.IndexReport l = found.index("by_length");
        assertThat(List.of(l.missing(), l.wrongTid(), l.wrongDeleted(), l.wrongProjection(), l.orphans(), l.approximate(), l.tooLarge()))
                .as("missing, wrong _tid, wrong _deleted, wrong projection, orphans, approximate, too large: %s", found.summary())
                .containsExactly(1L, 1L, 2L, 1L, 1L, 1L, 1L);
        assertThat(l.stale()).isEqualTo(4);
        assertThat(l.transientFindings()).isZero();
        CheckResult.IndexReport t = found.index("by_tid");
        assertThat(List.of(t.missing(), t.stale(), t.orphans(), t.approximate())).containsExactly(1L, 0L, 1L, 0L);
        assertThat(l.examples()).anyMatch(e -> e.startsWith("orphan by_length[length=1000, key=b]"));

        CheckResult fixed = check(w, true);
        for (CheckResult.IndexReport r : fixed.indexes()) {
            assertThat(r.fixed()).as("%s fixed", r.index()).isEqualTo(r.driftCount()).isPositive();
            assertThat(r.unfixable()).isZero();
        }
        assertClean(check(w, false), w, 1);
    }

    @Test
    void should_find_each_kind_of_drift_and_fix_it_when_an_unversioned_index_is_damaged() {
        World w = rebuilt("unversioned");
        IndexPlan byEmail = w.index("by_email");
        long crafted = WriteTimestamps.toEpochMillis(Histories.BASE_TICKS) * 1000 + 20_000_000;
        // the email cells' ticks: m, t, k, p, o, r, x were written 1,000 µs apart
        long tm = (crafted + 1_000) * 10;
        long tt = (crafted + 2_000) * 10;
        long tk = (crafted + 3_000) * 10;
        long tr = (crafted + 6_000) * 10;
        List<ByteBuffer> m = List.of(text("m@x"), text("m"));
        List<ByteBuffer> t = List.of(text("t@x"), text("t"));
        List<ByteBuffer> k = List.of(text("k@x"), text("k"));
        List<ByteBuffer> p = List.of(text("p@x"), text("p"));
        List<ByteBuffer> o = List.of(text("o1@x"), text("o"));
        List<ByteBuffer> gone = List.of(text("gone@x"), text("gone"));
        List<ByteBuffer> r = List.of(text("r@x"), text("r"));
        w.tables().forget(byEmail, m); // a lost entry
        w.tables().forget(byEmail, t); // written again at an older tick
        w.tables().damage(byEmail, t, x -> {
            x.write(t, null, "_tid", Tids.bytes(tick(tt - 5)), tt - 5, 0);
            x.write(t, null, "name", text("T"), tt - 5, 0);
        });
        w.tables().damage(byEmail, k, x -> x.write(k, null, "_deleted", Tids.bytes(tick(tk + 5)), tk + 5, 0)); // marked
        w.tables().damage(byEmail, p, x -> x.write(p, null, "name", text("zz"), 1, 0)); // a projection the row never had
        // entries the rows do not explain: o's old key, the deleted row's
        w.tables().damage(byEmail, o, x -> x.write(o, null, "_tid", Tids.bytes(tick(tm)), tm, 0));
        w.tables().damage(byEmail, gone, x -> x.write(gone, null, "_tid", Tids.bytes(tick(tm)), tm, 0));
        // r marked at its key cell's tick, then matching again the tick after: legitimate (section 4.3)
        w.tables().damage(byEmail, r, x -> {
            x.write(r, null, "_deleted", Tids.bytes(tick(tr)), tr, 0);
            x.write(r, null, "_tid", Tids.bytes(tick(tr + 1)), tr + 1, 0);
        });

        CheckResult found = check(w, false);
        CheckResult.IndexReport e = found.index("by_email");
        assertThat(List.of(e.missing(), e.wrongTid(), e.wrongDeleted(), e.wrongProjection(), e.orphans(), e.approximate(), e.tooLarge()))
                .as("missing, wrong _tid, wrong _deleted, wrong projection, orphans, approximate, too large: %s", found.summary())
                .containsExactly(1L, 1L, 1L, 1L, 2L, 0L, 1L);
        assertThat(e.stale()).isEqualTo(3);
        assertThat(found.index("by_country").drift()).isFalse();

        CheckResult fixed = check(w, true);
        assertThat(fixed.index("by_email").fixed()).isEqualTo(6);
        assertThat(fixed.index("by_email").unfixable()).isZero();
        assertClean(check(w, false), w, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_count_an_entry_unfixable_when_an_outside_write_is_above_every_timestamp(String kind) {
        World w = rebuilt(kind);
        IndexPlan index = w.tables().plan.indexes().get(0);
        List<ByteBuffer> key = w.oracle().expected(index.index().name()).keySet().iterator().next();
        long far = Long.MAX_VALUE / 4;
        if (w.oracle().versioned()) {
            w.tables().damage(index, key, t -> t.deleteRow(key, null, far)); // a client DELETE in the far future
        } else {
            w.tables().damage(index, key, t -> t.write(key, null, "_tid", Tids.bytes(tick(7)), far, 0));
        }
        CheckResult fixed = check(w, true);
        CheckResult.IndexReport r = fixed.index(index.index().name());
        assertThat(r.driftCount()).isOne();
        assertThat(r.unfixable()).isOne();
        assertThat(r.fixed()).isZero();
        assertThat(r.examples()).anyMatch(x -> x.startsWith("unfixable"));
        assertThat(check(w, false).drift()).isTrue();
    }

    @Test
    void should_report_cancelled_when_the_check_is_stopped() {
        World w = rebuilt("versioned");
        AtomicBoolean stop = new AtomicBoolean();
        Check<?> c = Check.of(w.tables().rule, w.tables(), w.tables().writes(), w.tables().plan.indexes(),
                CheckOptions.defaults().withSplits(SPLITS).withParallelism(1), () -> Histories.NOW_TS);
        CheckResult r = c.run("check-2", SPLITS, new Progress(), s -> stop.set(s.rangesDone() >= 2), stop::get);
        assertThat(r.state()).isEqualTo(JobState.CANCELLED);
        assertThat(r.message()).isEqualTo("cancelled: counts cover part of the ring");
    }
}
