package io.cassandragsi.repair.jobs;

import static io.cassandragsi.repair.jobs.Histories.text;
import static io.cassandragsi.repair.jobs.Histories.varint;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.check.BucketEntries;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketsTable;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The check of bucket tables ({@link BucketCheck}, docs/design.md section 9.2) over in-memory
 * twins. The base holds two rows of January 2025; the bucket table holds, for the days 10 to 12,
 * the entries written out by hand from the rule of section 3.7 (not by the code under test), under
 * a valid seal. Each damage must make exactly its bucket differ; entries of another seal, a
 * {@code _deleted} after the bucket and seals that change during the check must not.
 */
class BucketCheckTest {
    private static final long NOW_MILLIS = Instant.parse("2025-06-01T00:00:00Z").toEpochMilli();
    private static final String D10 = "2025-01-10";
    private static final String D11 = "2025-01-11";
    private static final String D12 = "2025-01-12";
    /** The valid seal of the three days, and an earlier one. */
    private static final UUID G = at("2025-01-13T00:05:00Z", 0x42);
    private static final UUID G0 = at("2025-01-12T00:05:00Z", 0x41);
    /** Row r0: length 1 then 2 on day 10; row r1: length 1 on day 11. */
    private static final UUID R0V0 = at("2025-01-10T01:00:00Z", 1);
    private static final UUID R0V1 = at("2025-01-10T02:00:00Z", 2);
    private static final UUID R1V0 = at("2025-01-11T05:00:00Z", 3);

    private final MemoryTables t = new MemoryTables(CheckBucketChangesTest.DEF, NOW_MILLIS);
    private final MemoryBuckets b = new MemoryBuckets();
    private final IndexPlan byLength = t.index("by_length");

    private static UUID at(String instant, long lsb) {
        return Tids.fromTicks(Tids.ticks(Instant.parse(instant)), lsb);
    }

    private static List<ByteBuffer> key(long length, String row) {
        return List.of(varint(BigInteger.valueOf(length)), text(row));
    }

    private static BucketEntries.Entry entry(UUID tid, UUID first, UUID deleted, String value) {
        return new BucketEntries.Entry(tid, first, deleted, Arrays.asList(value == null ? null : text(value)));
    }

    private void version(String row, UUID tid, long length, String value) {
        t.insert(Tids.ticks(Tids.instant(tid)) / 10, text(row), Tids.bytes(tid), varint(BigInteger.valueOf(length)), text(value));
    }

    /** The base (and {@code extra} versions), its index tables rebuilt, and its buckets 10 to 12 sealed by G, written out from the rule. */
    private void world(Runnable extra) {
        version("r0", R0V0, 1, "x");
        version("r0", R0V1, 2, "y");
        version("r1", R1V0, 1, "z");
        extra.run();
        CheckBucketChangesTest.rebuild(t);
        // day 10: r0 had length 1 (v0, until v1) and then length 2 (v1, to the end)
        b.write(byLength, D10, key(1, "r0"), entry(R0V0, R0V0, R0V1, "x"), G);
        b.write(byLength, D10, key(2, "r0"), entry(R0V1, R0V1, null, "y"), G);
        // days 11 and 12: r0 still at length 2; r1 at length 1 from day 11 on
        for (String day : List.of(D11, D12)) {
            b.write(byLength, day, key(2, "r0"), entry(R0V1, R0V1, null, "y"), G);
            b.write(byLength, day, key(1, "r1"), entry(R1V0, R1V0, null, "z"), G);
        }
        for (String day : List.of(D10, D11, D12)) {
            b.state(byLength, day, new BucketsTable.State(G, null, 2));
        }
    }

    private void world() {
        world(() -> {});
    }

    private CheckResult check(boolean fix) {
        return Check.of(t.rule, t, t.writes(), t.plan.indexes(), CheckOptions.defaults().withFix(fix).withSplits(4).withParallelism(1),
                () -> NOW_MILLIS * 10_000).withBuckets(b, List.of(byLength)).run("c1", 4, new Progress(), ProgressListener.NONE, () -> false);
    }

    private static CheckResult.BucketReport report(CheckResult c) {
        assertThat(c.state()).as(c.summary()).isEqualTo(JobState.DONE);
        assertThat(c.buckets()).as(c.summary()).hasSize(1);
        return c.buckets().get(0);
    }

    /** The differing buckets, from the examples the report gives (one line per bucket, its label second). */
    private static List<String> differing(CheckResult c) {
        List<String> out = new ArrayList<>();
        report(c).examples().forEach(e -> out.add(e.split(" ")[1]));
        return out;
    }

    @Test
    void should_find_no_difference_when_the_buckets_hold_what_the_rule_gives() {
        world();
        CheckResult c = check(false);
        assertThat(report(c)).isEqualTo(new CheckResult.BucketReport("by_length", 3, 0, 0, 0, List.of()));
        assertThat(c.drift()).as(c.summary()).isFalse();
    }

    @Test
    void should_find_the_bucket_of_a_missing_entry() {
        world();
        b.remove(byLength, D11, key(1, "r1"));
        CheckResult c = check(false);
        assertThat(report(c).compared()).isEqualTo(3);
        assertThat(report(c).differing()).isEqualTo(1);
        assertThat(report(c).examples()).containsExactly("bucket " + D11 + " (seal " + G + "): expected 2 entries, found 1");
        assertThat(c.drift()).isTrue();
        assertThat(c.summary()).contains("by_length buckets: 3 compared, 1 differing");
    }

    @Test
    void should_find_the_bucket_of_an_extra_entry() {
        world();
        b.write(byLength, D12, key(3, "r9"), entry(R1V0, R1V0, null, "w"), G);
        CheckResult c = check(false);
        assertThat(differing(c)).containsExactly(D12);
        assertThat(report(c).examples().get(0)).endsWith("expected 2 entries, found 3");
    }

    @Test
    void should_find_the_bucket_of_an_entry_with_another_tid_first_or_projection() {
        world();
        b.write(byLength, D10, key(2, "r0"), entry(R0V0, R0V1, null, "y"), G);
        assertThat(differing(check(false))).as("_tid").containsExactly(D10);
        world();
        b.write(byLength, D11, key(2, "r0"), entry(R0V1, R0V0, null, "y"), G);
        assertThat(differing(check(false))).as("_first").containsExactly(D11);
        world();
        b.write(byLength, D12, key(1, "r1"), entry(R1V0, R1V0, null, "changed"), G);
        CheckResult c = check(false);
        assertThat(differing(c)).as("projection").containsExactly(D12);
        assertThat(report(c).examples().get(0)).endsWith("expected 2 entries, found 2 (entries differ)");
    }

    @Test
    void should_find_a_deleted_inside_the_bucket_and_ignore_one_after_it() {
        world();
        b.write(byLength, D11, key(2, "r0"), entry(R0V1, R0V1, at("2025-01-12T00:00:00Z", 7), "y"), G); // the next day: as null
        b.write(byLength, D12, key(2, "r0"), entry(R0V1, R0V1, Tids.maxAtTicks(Tids.ticks(Instant.parse("2025-01-13T00:00:00Z")) - 1), "y"), G);
        assertThat(differing(check(false))).as("the last tick of day 12 lies in day 12").containsExactly(D12);
    }

    @Test
    void should_find_no_difference_when_a_version_written_now_changes_the_deleted_of_older_buckets() {
        // a version of r0 in the current bucket: the rule now gives its entries of days 10 to 12 with length 2 a _deleted on 31 May
        world(() -> version("r0", at("2025-05-31T23:00:00Z", 9), 3, "v"));
        CheckResult c = check(false);
        assertThat(report(c)).as(c.summary()).isEqualTo(new CheckResult.BucketReport("by_length", 3, 0, 0, 0, List.of()));
    }

    @Test
    void should_ignore_entries_of_another_seal() {
        world();
        b.write(byLength, D11, key(3, "r9"), entry(R1V0, R1V0, null, "old"), G0); // left by the earlier seal, which the later one lacks
        CheckResult c = check(false);
        assertThat(report(c).differing()).as(c.summary()).isZero();
        b.state(byLength, D11, new BucketsTable.State(G0, null, 3)); // were G0 the valid seal, its one entry would not be the rule's two
        assertThat(differing(check(false))).containsExactly(D11);
    }

    @Test
    void should_not_compare_a_bucket_without_a_valid_seal() {
        world();
        b.remove(byLength, D10, key(1, "r0"));
        long changedAfterSeal = Tids.ticks(Tids.instant(G)) / 10 + 1;
        b.state(byLength, D10, new BucketsTable.State(G, changedAfterSeal, 2));
        CheckResult c = check(true);
        assertThat(report(c)).isEqualTo(new CheckResult.BucketReport("by_length", 2, 0, 0, 0, List.of()));
        assertThat(b.changes).isEmpty();
    }

    @Test
    void should_skip_a_bucket_sealed_again_or_changed_during_the_check() {
        world();
        b.remove(byLength, D10, key(1, "r0"));
        b.remove(byLength, D11, key(1, "r1"));
        UUID g2 = at("2025-06-01T00:00:00Z", 0x43);
        b.duringScan(() -> {
            b.state(byLength, D10, new BucketsTable.State(g2, null, 2)); // sealed again
            b.state(byLength, D11, new BucketsTable.State(G, Tids.ticks(Tids.instant(g2)) / 10, 2)); // a change ended its seal
        });
        CheckResult c = check(true);
        assertThat(report(c)).as(c.summary()).isEqualTo(new CheckResult.BucketReport("by_length", 1, 2, 0, 0, List.of()));
        assertThat(b.changes).isEmpty();
    }

    @Test
    void should_give_back_to_the_sealer_exactly_the_differing_buckets_when_fixing() {
        world();
        b.remove(byLength, D10, key(2, "r0"));
        b.write(byLength, D12, key(1, "r1"), entry(R1V0, R1V0, null, "changed"), G);
        CheckResult found = check(false);
        assertThat(report(found).givenBack()).isZero();
        assertThat(b.changes).as("without fix").isEmpty();
        CheckResult fixed = check(true);
        assertThat(report(fixed)).isEqualTo(new CheckResult.BucketReport("by_length", 3, 0, 2, 2, report(fixed).examples()));
        assertThat(b.changes).containsExactly(Map.entry("by_length", List.of(D10, D12)));
        assertThat(t.bucketChanges).as("the index tables needed no fix").isEmpty();
        assertThat(fixed.summary()).contains("2 given back to the sealer");
        assertThat(fixed.toMap().get("buckets").toString()).contains("given_back=2");
    }

    @Test
    void should_fail_the_check_when_the_bucket_states_cannot_be_read() {
        world();
        b.statesFail = new IllegalStateException("the project keyspace does not answer");
        int rebuildRead = t.scanned.size();
        CheckResult c = check(true);
        assertThat(c.state()).isEqualTo(JobState.FAILED);
        assertThat(c.message()).contains("the project keyspace does not answer");
        assertThat(c.buckets()).isEmpty();
        assertThat(t.scanned).as("no range read").hasSize(rebuildRead);
    }

    @Test
    void should_count_a_range_read_again_after_a_timeout_once() {
        world();
        b.failOnceAfter(1); // 6 rows in 4 ranges: a range with two hands out one, fails, and is read again
        CheckResult c = check(false);
        assertThat(b.failed()).as("the injected timeout happened").isTrue();
        assertThat(report(c)).as(c.summary()).isEqualTo(new CheckResult.BucketReport("by_length", 3, 0, 0, 0, List.of()));
    }

    // ---------------------------------------------------------------- anti-entropy (docs/design.md section 9.3)

    private AntiEntropy entropy(MemoryJobLedger ledger, java.util.function.LongSupplier safeTimeMillis) {
        return AntiEntropyTest.entropy(t.def, options -> Check.of(t.rule, t, t.writes(), t.plan.indexes(), options, () -> NOW_MILLIS * 10_000)
                .withBuckets(b, List.of(byLength)), ledger, safeTimeMillis);
    }

    private long count(AntiEntropy e, String kind) {
        return AntiEntropyTest.count(e.table(t.def.qualifiedName()), kind);
    }

    @Test
    void should_give_back_a_differing_bucket_at_the_end_of_a_whole_anti_entropy_pass() throws Exception {
        world();
        b.remove(byLength, D11, key(1, "r1"));
        AntiEntropy e = entropy(new MemoryJobLedger(), () -> Long.MAX_VALUE);
        assertThat(e.round()).isTrue();
        assertThat(count(e, "buckets_compared")).isEqualTo(3);
        assertThat(count(e, "buckets_differing")).isEqualTo(1);
        assertThat(count(e, "buckets_given_back")).isEqualTo(1);
        assertThat(b.changes).containsExactly(Map.entry("by_length", List.of(D11)));
        // the process's totals, for /metrics
        assertThat(e.bucketsTotal.get("compared").sum()).isEqualTo(3);
        assertThat(e.bucketsTotal.get("differing").sum()).isEqualTo(1);
        assertThat(e.bucketsTotal.get("given_back").sum()).isEqualTo(1);
    }

    @Test
    void should_count_a_range_anti_entropy_reads_again_after_a_timeout_once() throws Exception {
        world();
        b.failOnceAfter(1); // the whole range (base, index, bucket table) is read again
        AntiEntropy e = entropy(new MemoryJobLedger(), () -> Long.MAX_VALUE);
        e.round();
        assertThat(b.failed()).as("the injected timeout happened").isTrue();
        assertThat(count(e, "buckets_compared")).isEqualTo(3);
        assertThat(count(e, "buckets_differing")).isZero();
    }

    @Test
    void should_compare_no_bucket_in_a_resumed_pass() throws Exception {
        world();
        b.remove(byLength, D11, key(1, "r1"));
        MemoryJobLedger ledger = new MemoryJobLedger();
        Instant started = Instant.now().minusSeconds(600);
        JobLedger.Header job = new JobLedger.Header("anti-entropy-old", AntiEntropy.KIND, "ks", "revisions", JobLedger.ALL_INDEXES,
                AntiEntropyTest.SPLITS, JobState.RUNNING, null, started, started);
        ledger.create(job);
        ledger.finished(job.id(), new JobLedger.RangeDone(TokenRanges.split(AntiEntropyTest.SPLITS).get(0), 0, 0, started));
        AntiEntropy e = entropy(ledger, () -> Long.MAX_VALUE);
        e.round();
        assertThat(e.table(t.def.qualifiedName()).lastFullPass).as("the pass ended").isNotNull();
        assertThat(count(e, "buckets_compared")).isZero();
        assertThat(b.changes).isEmpty();
    }

    @Test
    void should_compare_no_bucket_when_the_safe_time_does_not_pass_the_end_of_the_pass() throws Exception {
        world();
        b.remove(byLength, D11, key(1, "r1"));
        AntiEntropy e = entropy(new MemoryJobLedger(), () -> NOW_MILLIS); // behind the real clock, which ends the pass
        e.bucketsSettle = java.time.Duration.ZERO;
        e.round();
        assertThat(e.table(t.def.qualifiedName()).lastFullPass).as("the pass ended").isNotNull();
        assertThat(count(e, "buckets_compared")).isZero();
        assertThat(b.changes).isEmpty();
    }
}
