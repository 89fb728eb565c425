package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A fix of {@code check --fix} (or anti-entropy) on a table with a bucketed index records a change
 * from the fixed row's first version, so that the buckets it reaches are sealed again
 * (docs/design.md section 9.4); a check that fixes nothing records none.
 */
class CheckBucketChangesTest {
    /** A versioned table whose index {@code by_length} declares a day bucket (also {@link BucketCheckTest}'s). */
    static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                                                {"type": "bucket", "period": "day"}]}}
            """, "revisions.json");
    private static final long NOW_MILLIS = Instant.parse("2025-06-01T00:00:00Z").toEpochMilli();

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Two rows, two versions each, in January 2025 (ended buckets), indexed by a rebuild. */
    private static MemoryTables rebuilt(UUID[] firsts) {
        MemoryTables t = new MemoryTables(DEF, NOW_MILLIS);
        long tick = Tids.ticks(Instant.parse("2025-01-10T00:00:00Z"));
        for (int row = 0; row < 2; row++) {
            for (int v = 0; v < 2; v++) {
                tick += 36_000_000_000L; // an hour apart
                UUID tid = Tids.fromTicks(tick, 17 + row * 2 + v);
                if (v == 0) {
                    firsts[row] = tid;
                }
                t.insert(tick / 10, text("r" + row), Tids.bytes(tid), ByteBuffer.wrap(BigInteger.valueOf(v + 1).toByteArray()), text("x"));
            }
        }
        rebuild(t);
        return t;
    }

    /** Rebuilds every index of {@code t} from its base. */
    static void rebuild(MemoryTables t) {
        JobLedger ledger = new MemoryJobLedger();
        JobLedger.Header job = new JobLedger.Header("r1", Jobs.REBUILD, "ks", "revisions", JobLedger.ALL_INDEXES, 4, JobState.RUNNING, null,
                Instant.now(), Instant.now());
        ledger.create(job);
        assertThat(Rebuild.of(t.rule, t, t.writes(), t.plan.indexes(), ledger, RebuildOptions.defaults())
                .run(job, new Progress(), ProgressListener.NONE, () -> false).state()).isEqualTo(JobState.DONE);
    }

    private static CheckResult check(MemoryTables t, boolean fix) {
        return Check.of(t.rule, t, t.writes(), t.plan.indexes(), CheckOptions.defaults().withFix(fix).withSplits(4).withParallelism(1),
                () -> NOW_MILLIS * 10_000).run("c1", 4, new Progress(), ProgressListener.NONE, () -> false);
    }

    @Test
    void should_record_a_change_from_the_first_version_when_a_fix_writes_a_row_of_a_bucketed_table() {
        UUID[] firsts = new UUID[2];
        MemoryTables t = rebuilt(firsts);
        IndexPlan byLength = t.index("by_length");
        t.forget(byLength, List.of(ByteBuffer.wrap(BigInteger.TWO.toByteArray()), text("r1"))); // a lost entry of row r1
        CheckResult c = check(t, true);
        assertThat(c.drift()).as(c.summary()).isTrue();
        assertThat(t.bucketChanges).containsExactly(new BucketRule.Change(firsts[1]));
    }

    @Test
    void should_record_nothing_when_the_check_fixes_nothing() {
        MemoryTables t = rebuilt(new UUID[2]);
        CheckResult clean = check(t, true);
        assertThat(clean.drift()).as(clean.summary()).isFalse();
        t.forget(t.index("by_length"), List.of(ByteBuffer.wrap(BigInteger.TWO.toByteArray()), text("r0")));
        CheckResult found = check(t, false);
        assertThat(found.drift()).as("found, not fixed").isTrue();
        assertThat(t.bucketChanges).isEmpty();
    }
}
