package io.cassandragsi.repair.jobs;

import static io.cassandragsi.repair.jobs.Histories.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.check.Observed;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.jobs.Histories.World;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one rebuild (docs/design.md section 9.1) on both kinds of table, over in-memory twins of the
 * base, index and rows tables, judged by the independent oracle. No node.
 */
class RebuildTest {
    private static final int SPLITS = 8;

    private static World world(String kind) {
        return kind.equals("versioned") ? Histories.versioned() : Histories.unversioned();
    }

    private static JobLedger.Header job(JobLedger ledger, World w, String id) {
        Instant now = Instant.now();
        JobLedger.Header h = new JobLedger.Header(id, Jobs.REBUILD, w.tables().def.keyspace(), w.tables().def.table(), JobLedger.ALL_INDEXES, SPLITS,
                JobState.RUNNING, null, now, now);
        ledger.create(h);
        return h;
    }

    private static RebuildResult rebuild(World w, JobLedger ledger, JobLedger.Header job, ProgressListener listener, Supplier<Boolean> cancel) {
        Rebuild<?> r = Rebuild.of(w.tables().rule, w.tables(), w.tables().writes(), w.tables().plan.indexes(), ledger,
                RebuildOptions.defaults().withParallelism(2));
        return r.run(job, new Progress(), listener, cancel::get);
    }

    private static void assertEqualsOracle(World w) {
        for (IndexPlan p : w.tables().plan.indexes()) {
            int[] approximate = {0};
            assertThat(Histories.drift(w, p.index().name(), approximate)).as(p.index().name()).isEmpty();
            assertThat(approximate[0]).as("a rebuild from a quiet table is exact").isZero();
            assertThat(w.oracle().expected(p.index().name())).as("the history indexes something").isNotEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_equal_the_oracle_when_an_empty_index_is_rebuilt(String kind) {
        World w = world(kind);
        MemoryJobLedger ledger = new MemoryJobLedger();
        RebuildResult r = rebuild(w, ledger, job(ledger, w, "r1"), ProgressListener.NONE, () -> false);
        assertThat(r.state()).isEqualTo(JobState.DONE);
        assertThat(r.rangesDone()).isEqualTo(SPLITS);
        assertThat(r.rangesSkipped()).isZero();
        assertThat(r.rows()).as("every stored version (row) read once").isEqualTo(rowsRead(w));
        assertThat(r.writes()).isPositive();
        assertThat(ledger.finished("r1")).hasSize(SPLITS);
        assertThat(ledger.find("r1").orElseThrow().state()).isEqualTo(JobState.DONE);
        assertEqualsOracle(w);
        for (IndexPlan p : w.tables().plan.indexes()) {
            assertThat(w.tables().entries(p).keySet()).as("%s: nothing but the oracle's entries", p.index().name())
                    .isEqualTo(w.oracle().expected(p.index().name()).keySet());
        }
    }

    /** The base rows (versions) the history stored. */
    private static long rowsRead(World w) {
        return w.oracle().versioned() ? w.oracle().rows().values().stream().mapToInt(Map::size).sum() : w.tables().scanned.size();
    }

    @Test
    void should_record_every_entry_key_in_the_rows_table_when_a_versioned_index_is_rebuilt() {
        World w = Histories.versioned();
        MemoryJobLedger ledger = new MemoryJobLedger();
        rebuild(w, ledger, job(ledger, w, "r1"), ProgressListener.NONE, () -> false);
        List<ByteBuffer> a = List.of(text("a"));
        Map<List<ByteBuffer>, Long> keys = w.tables().recorded(a, RowsLayout.KEYS).get("by_length");
        assertThat(keys).as("so that a delete of any version finds its entry").hasSize(3);
        assertThat(keys.values()).as("at 0: an element's write time stays the TS of a version that had the key").containsOnly(0L);
        Map<List<ByteBuffer>, Long> perVersion = w.tables().recorded(a, RowsLayout.VERSION_KEYS).get("by_tid");
        assertThat(perVersion).containsEntry(List.of(Tids.bytes(w.tid("a2")), text("a")), WriteTimestamps.of(w.tid("a2")));
    }

    @Test
    void should_record_the_current_key_above_the_rows_table_when_an_unversioned_index_is_rebuilt() {
        World w = Histories.unversioned();
        MemoryJobLedger ledger = new MemoryJobLedger();
        rebuild(w, ledger, job(ledger, w, "r1"), ProgressListener.NONE, () -> false);
        w.oracle().expected("by_email").forEach((key, e) -> {
            Map<List<ByteBuffer>, Long> keys = w.tables().recorded(e.rowKey(), RowsLayout.KEYS).get("by_email");
            assertThat(keys).as("%s", e.rowKey()).containsEntry(key, e.versionTicks() / 10);
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_skip_the_finished_ranges_when_a_rebuild_resumes(String kind) {
        World w = world(kind);
        MemoryJobLedger ledger = new MemoryJobLedger();
        JobLedger.Header job = job(ledger, w, "r1");
        List<TokenRange> ranges = TokenRanges.split(SPLITS);
        for (TokenRange r : ranges.subList(0, SPLITS / 2)) {
            ledger.finished("r1", new JobLedger.RangeDone(r, 0, 0, Instant.now()));
        }
        RebuildResult r = rebuild(w, ledger, job, ProgressListener.NONE, () -> false);
        assertThat(r.state()).isEqualTo(JobState.DONE);
        assertThat(r.rangesSkipped()).isEqualTo(SPLITS / 2);
        assertThat(r.rangesDone()).isEqualTo(SPLITS);
        TokenRange done = new TokenRange(ranges.get(0).start(), ranges.get(SPLITS / 2 - 1).end());
        assertThat(w.tables().scanned).as("no row of a finished range read").isNotEmpty()
                .allMatch(k -> !done.contains(MemoryTables.token(k.subList(0, w.tables().def.partitionKey().size()))));
        IndexPlan p = w.tables().plan.indexes().get(0);
        for (Map.Entry<List<ByteBuffer>, Observed> e : w.tables().entries(p).entrySet()) {
            List<ByteBuffer> rowKey = rowKey(w, p, e.getKey());
            assertThat(done.contains(MemoryTables.token(rowKey.subList(0, 1)))).as("entries only of the ranges rebuilt").isFalse();
        }
    }

    private static List<ByteBuffer> rowKey(World w, IndexPlan p, List<ByteBuffer> entryKey) {
        int[] at = io.cassandragsi.schema.IndexLayout.of(p.index()).rowKeyInEntryKey(w.tables().def);
        return java.util.Arrays.stream(at).mapToObj(entryKey::get).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_equal_the_oracle_when_a_cancelled_rebuild_is_resumed(String kind) {
        World w = world(kind);
        MemoryJobLedger ledger = new MemoryJobLedger();
        JobLedger.Header job = job(ledger, w, "r1");
        AtomicBoolean cancel = new AtomicBoolean();
        RebuildResult first = rebuild(w, ledger, job, s -> cancel.set(s.rangesDone() >= 3), cancel::get);
        assertThat(first.state()).isEqualTo(JobState.CANCELLED);
        assertThat(first.rangesDone()).isBetween(3, SPLITS - 1);
        assertThat(ledger.finished("r1")).hasSize(first.rangesDone());
        assertThat(ledger.find("r1").orElseThrow().state()).isEqualTo(JobState.CANCELLED);

        RebuildResult resumed = rebuild(w, ledger, ledger.find("r1").orElseThrow(), ProgressListener.NONE, () -> false);
        assertThat(resumed.state()).isEqualTo(JobState.DONE);
        assertThat(resumed.rangesSkipped()).isEqualTo(first.rangesDone());
        assertThat(first.rows() + resumed.rows()).as("no range read twice").isLessThanOrEqualTo(rowsRead(w));
        assertEqualsOracle(w);
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_fail_and_leave_the_range_unrecorded_when_a_write_fails(String kind) {
        World w = world(kind);
        MemoryJobLedger ledger = new MemoryJobLedger();
        w.tables().failAfter(0);
        RebuildResult r = rebuild(w, ledger, job(ledger, w, "r1"), ProgressListener.NONE, () -> false);
        assertThat(r.state()).isEqualTo(JobState.FAILED);
        assertThat(r.message()).contains("node down");
        assertThat(ledger.finished("r1")).isEmpty();
        assertThat(ledger.find("r1").orElseThrow().state()).isEqualTo(JobState.FAILED);
    }

    @ParameterizedTest
    @ValueSource(strings = {"versioned", "unversioned"})
    void should_leave_entries_no_row_explains_to_check_when_rebuilding_over_them(String kind) {
        World w = world(kind);
        IndexPlan p = w.tables().plan.indexes().get(0);
        // an entry that claims a match and that no row explains, written at the TS of now
        List<ByteBuffer> ghost = w.oracle().versioned() ? List.of(Histories.varint(java.math.BigInteger.valueOf(1000)), text("a"))
                : List.of(text("ghost@x"), text("u1"));
        w.tables().damage(p, ghost, t -> t.write(ghost, null, "_tid", Tids.bytes(Tids.fromTicks(Histories.NOW_TS, 1)), Histories.NOW_TS, 0));
        MemoryJobLedger ledger = new MemoryJobLedger();
        assertThat(rebuild(w, ledger, job(ledger, w, "r1"), ProgressListener.NONE, () -> false).state()).isEqualTo(JobState.DONE);
        assertThat(Histories.drift(w, p.index().name(), new int[1])).containsExactly("orphan " + ghost);
        CheckResult fixed = CheckTest.check(w, true);
        assertThat(fixed.index(p.index().name()).orphans()).isOne();
        assertThat(fixed.index(p.index().name()).fixed()).isOne();
        assertThat(Histories.drift(w, p.index().name(), new int[1])).isEmpty();
    }
}
