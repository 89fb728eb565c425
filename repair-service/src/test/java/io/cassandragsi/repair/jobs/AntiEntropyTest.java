package io.cassandragsi.repair.jobs;

import static io.cassandragsi.repair.jobs.Histories.text;
import static io.cassandragsi.repair.jobs.Histories.varint;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.config.AntiEntropyConfig;
import io.cassandragsi.repair.jobs.Histories.World;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Continuous anti-entropy (docs/design.md section 9.3) over in-memory twins: a pass finds and fixes
 * what the index lost, records itself and its ranges, leaves rows written since the safe time to
 * the maintainers, and resumes an unfinished pass. Judged by the independent oracle. No node.
 */
class AntiEntropyTest {
    static final int SPLITS = 8;

    private static AntiEntropy entropy(World w, MemoryJobLedger ledger, long safeTimeMillis) {
        return entropy(w, ledger, safeTimeMillis, Duration.ZERO);
    }

    private static AntiEntropy entropy(World w, MemoryJobLedger ledger, long safeTimeMillis, Duration settle) {
        MemoryTables t = w.tables();
        return entropy(t.rule.plan().table(), options -> Check.of(t.rule, t, t.writes(), t.plan.indexes(), options, () -> Histories.NOW_TS), ledger,
                () -> safeTimeMillis, settle);
    }

    /** Anti-entropy over one table, whose checks {@code checks} makes, at a pace no test waits for. */
    static AntiEntropy entropy(TableDef def, java.util.function.Function<CheckOptions, Check<?>> checks, MemoryJobLedger ledger,
            java.util.function.LongSupplier safeTimeMillis) {
        return entropy(def, checks, ledger, safeTimeMillis, Duration.ZERO);
    }

    static AntiEntropy entropy(TableDef def, java.util.function.Function<CheckOptions, Check<?>> checks, MemoryJobLedger ledger,
            java.util.function.LongSupplier safeTimeMillis, Duration settle) {
        AntiEntropy.Host host = new AntiEntropy.Host() {
            @Override
            public List<TableDef> tables() {
                return List.of(def);
            }

            @Override
            public JobLedger ledger() {
                return ledger;
            }

            @Override
            public Check<?> check(TableDef table, CheckOptions options) {
                return checks.apply(options);
            }

            @Override
            public boolean mayRun() {
                return true;
            }

            @Override
            public long safeTimeMillis(TableDef table) {
                return safeTimeMillis.getAsLong();
            }
        };
        return new AntiEntropy(host, new AntiEntropyConfig(true, 1_000_000, Duration.ZERO, Duration.ofHours(1), SPLITS, settle));
    }

    private static List<ByteBuffer> length(long length, String key) {
        return List.of(varint(BigInteger.valueOf(length)), text(key));
    }

    /** Entries lost: the newest one of row e, and the first one of row a (whose later versions marked it). */
    private static World damaged() {
        World w = CheckTest.rebuilt("versioned");
        IndexPlan byLength = w.index("by_length");
        w.tables().forget(byLength, length(3, "e"));
        w.tables().forget(byLength, length(1, "a"));
        int[] approx = {0};
        assertThat(Histories.drift(w, "by_length", approx)).as("the damage").hasSize(2);
        return w;
    }

    static long count(AntiEntropy.TableState s, String kind) {
        java.util.concurrent.atomic.LongAdder n = s.findings.get(kind);
        return n == null ? 0 : n.sum();
    }

    private static String name(World w) {
        return w.tables().rule.plan().table().qualifiedName();
    }

    /** Two entries that claim a match, lost from the first index of the table (a versioned or an unversioned one). */
    private static World damaged(String kind) {
        World w = CheckTest.rebuilt(kind);
        IndexPlan p = w.tables().plan.indexes().get(0);
        List<List<ByteBuffer>> lost = w.tables().entries(p).entrySet().stream().filter(e -> e.getValue().tid() != null
                && e.getValue().deleted() == null).map(java.util.Map.Entry::getKey).limit(2).toList();
        lost.forEach(k -> w.tables().forget(p, k));
        int[] approx = {0};
        assertThat(Histories.drift(w, p.index().name(), approx)).as("the damage").hasSize(2);
        return w;
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"versioned", "unversioned"})
    void should_fix_what_the_index_lost_and_record_the_pass_with_its_ranges(String kind) throws Exception {
        World w = damaged(kind);
        String index = w.tables().plan.indexes().get(0).index().name();
        MemoryJobLedger ledger = new MemoryJobLedger();
        AntiEntropy e = entropy(w, ledger, Histories.NOW_MILLIS);
        assertThat(e.round()).isTrue();
        int[] approx = {0};
        assertThat(Histories.drift(w, index, approx)).as("against the oracle after one pass").isEmpty();
        AntiEntropy.TableState s = e.table(name(w));
        assertThat(count(s, "missing")).isEqualTo(2);
        assertThat(count(s, "fixed")).isEqualTo(2);
        assertThat(s.rows.sum()).isPositive();
        assertThat(s.lastFullPass).isNotNull();
        JobLedger.Header job = ledger.headers().get(0);
        assertThat(job.kind()).isEqualTo(AntiEntropy.KIND);
        assertThat(job.state()).isEqualTo(JobState.DONE);
        assertThat(ledger.finished(job.id())).hasSize(SPLITS);
        assertThat(e.round()).as("the next pass waits for the pass interval").isFalse();
    }

    @Test
    void should_leave_rows_written_since_the_safe_time_to_the_maintainers() throws Exception {
        World w = damaged();
        AntiEntropy e = entropy(w, new MemoryJobLedger(), Instant.parse("2024-12-31T00:00:00Z").toEpochMilli());
        assertLeftToTheMaintainers(e, w);
    }

    /** One round leaves the two lost entries of {@link #damaged()} alone, counted as the maintainers'. */
    private static void assertLeftToTheMaintainers(AntiEntropy e, World w) throws InterruptedException {
        e.round();
        AntiEntropy.TableState s = e.table(name(w));
        assertThat(count(s, "left_to_maintainers")).isEqualTo(2);
        assertThat(count(s, "fixed")).isZero();
        int[] approx = {0};
        assertThat(Histories.drift(w, "by_length", approx)).as("not touched").hasSize(2);
    }

    /**
     * A write its client never saw acknowledged lands with its marker when a batchlog replays it,
     * below the safe time: rows written within {@code anti_entropy.settle} are the maintainers' too,
     * however far the safe time has gone (docs/design.md section 9.3).
     */
    @Test
    void should_leave_rows_written_within_the_settle_to_the_maintainers_past_the_safe_time() throws Exception {
        World w = damaged();
        Duration sinceTheHistory = Duration.between(Instant.parse("2024-12-31T00:00:00Z"), Instant.now());
        AntiEntropy e = entropy(w, new MemoryJobLedger(), Histories.NOW_MILLIS, sinceTheHistory);
        assertLeftToTheMaintainers(e, w);
    }

    @Test
    void should_resume_an_unfinished_pass_from_its_recorded_ranges() throws Exception {
        World w = damaged();
        MemoryJobLedger ledger = new MemoryJobLedger();
        Instant started = Instant.now().minusSeconds(600);
        TableDef def = w.tables().rule.plan().table();
        JobLedger.Header job = new JobLedger.Header("anti-entropy-old", AntiEntropy.KIND, def.keyspace(), def.table(), JobLedger.ALL_INDEXES,
                SPLITS, JobState.RUNNING, null, started, started);
        ledger.create(job);
        List<TokenRange> ranges = TokenRanges.split(SPLITS);
        for (int i = 0; i < 3; i++) {
            ledger.finished(job.id(), new JobLedger.RangeDone(ranges.get(i), 0, 0, started));
        }
        AntiEntropy e = entropy(w, ledger, Histories.NOW_MILLIS);
        e.round();
        assertThat(ledger.headers()).singleElement().satisfies(h -> {
            assertThat(h.id()).isEqualTo("anti-entropy-old");
            assertThat(h.state()).isEqualTo(JobState.DONE);
        });
        assertThat(ledger.finished(job.id())).hasSize(SPLITS);
        assertThat(e.table(name(w)).rangesDone).isEqualTo(SPLITS);
    }
}
