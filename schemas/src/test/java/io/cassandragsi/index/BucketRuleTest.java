package io.cassandragsi.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Definitions;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * When a repair group changes the history of ended buckets and when a seal is valid ({@link
 * BucketRule}, docs/design.md section 9.4). Expectations are written from the rule with the margin
 * read from {@link BucketRule#MARGIN} (60 s unless {@code gsi.buckets.margin_ms} says otherwise).
 */
class BucketRuleTest {
    private static final String TABLE = """
            {"keyspace": "wiki", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {%s}}
            """;
    private static final TablePlan NO_BUCKET = TablePlan.of(Definitions.read(Path.of("examples/revisions.json")));
    private static final TablePlan DAY = TablePlan.of(Definitions.parse(TABLE.formatted("""
            "by_length": [{"type": "hash", "attribute": "length"}, {"type": "bucket", "period": "day"}],
            "by_tid": [{"type": "hash", "attribute": "tid"}]"""), "day.json"));
    /** A month bucket listed before a day bucket: each index decides on its own. */
    private static final TablePlan MONTH_AND_DAY = TablePlan.of(Definitions.parse(TABLE.formatted("""
            "by_value": [{"type": "hash", "attribute": "value"}, {"type": "bucket", "period": "month"}],
            "by_length": [{"type": "hash", "attribute": "length"}, {"type": "bucket", "period": "day"}]"""), "both.json"));
    private static final long MARGIN_MICROS = BucketRule.MARGIN.toNanos() / 1000;

    private static UUID tidAt(String instant) {
        return tidAt(Instant.parse(instant));
    }

    private static UUID tidAt(Instant t) {
        return Tids.fromTicks(Tids.ticks(t), 0x1234);
    }

    private static Instant at(String instant) {
        return Instant.parse(instant);
    }

    @Test
    void should_use_a_one_minute_margin_when_no_property_sets_it() {
        if (System.getProperty("gsi.buckets.margin_ms") == null) {
            assertThat(BucketRule.MARGIN).isEqualTo(Duration.ofMinutes(1));
        }
        assertThat(BucketRule.MARGIN).isPositive();
    }

    @Test
    void should_make_no_change_when_the_table_has_no_bucketed_index() {
        assertThat(NO_BUCKET.hasBuckets()).isFalse();
        assertThat(BucketRule.change(NO_BUCKET, null, at("2013-01-04T12:00:00Z"))).isNull();
        assertThat(BucketRule.change(NO_BUCKET, tidAt("2000-01-01T00:00:00Z"), at("2013-01-04T12:00:00Z"))).isNull();
    }

    @Test
    void should_change_from_the_first_version_when_the_group_has_no_tid_min() {
        assertThat(DAY.hasBuckets()).isTrue();
        assertThat(BucketRule.change(DAY, null, at("2013-01-04T12:00:00Z"))).isEqualTo(new BucketRule.Change(null));
    }

    @Test
    void should_change_from_tid_min_when_it_lies_in_an_ended_bucket() {
        Instant now = at("2013-01-01T12:00:00Z");
        UUID lastTickOfYesterday = tidAt("2012-12-31T23:59:59.9999999Z");
        assertThat(BucketRule.change(DAY, lastTickOfYesterday, now)).isEqualTo(new BucketRule.Change(lastTickOfYesterday));
        UUID daysAgo = tidAt("2012-12-20T08:00:00Z");
        assertThat(BucketRule.change(DAY, daysAgo, now)).isEqualTo(new BucketRule.Change(daysAgo));
    }

    @Test
    void should_make_no_change_when_tid_min_lies_in_the_current_bucket_or_later() {
        Instant now = at("2013-01-01T12:00:00Z");
        assertThat(BucketRule.change(DAY, tidAt("2013-01-01T00:00:00Z"), now)).as("the bucket's first tick").isNull();
        assertThat(BucketRule.change(DAY, tidAt("2013-01-01T11:00:00Z"), now)).isNull();
        assertThat(BucketRule.change(DAY, tidAt("2013-01-03T00:00:00Z"), now)).as("a tid from the future").isNull();
    }

    @Test
    void should_take_the_bucket_current_a_margin_after_now_when_a_bucket_ends_within_the_margin() {
        Instant midnight = at("2013-01-01T00:00:00Z");
        UUID justBefore = tidAt(midnight.minusMillis(1));
        assertThat(BucketRule.change(DAY, justBefore, midnight.minus(BucketRule.MARGIN)))
                .as("now + margin is midnight: the day of the tid is taken for ended").isEqualTo(new BucketRule.Change(justBefore));
        Instant earlier = midnight.minus(BucketRule.MARGIN).minusNanos(100);
        UUID justBeforeEarlier = tidAt(earlier.minusNanos(100));
        assertThat(BucketRule.change(DAY, justBeforeEarlier, earlier)).as("now + margin is the day's last tick").isNull();
    }

    @Test
    void should_change_when_any_bucketed_index_has_an_ended_bucket_holding_tid_min() {
        Instant now = at("2013-01-02T12:00:00Z");
        UUID yesterday = tidAt("2013-01-01T12:00:00Z");
        assertThat(BucketRule.change(MONTH_AND_DAY, yesterday, now)).as("the day has ended, the month has not")
                .isEqualTo(new BucketRule.Change(yesterday));
        assertThat(BucketRule.change(MONTH_AND_DAY, tidAt("2013-01-02T01:00:00Z"), now)).as("neither has ended").isNull();
        UUID lastMonth = tidAt("2012-12-31T12:00:00Z");
        assertThat(BucketRule.change(MONTH_AND_DAY, lastMonth, now)).isEqualTo(new BucketRule.Change(lastMonth));
    }

    @Test
    void should_judge_a_seal_invalid_when_there_is_none() {
        assertThat(BucketRule.valid(null, null)).isFalse();
        assertThat(BucketRule.valid(null, 0L)).isFalse();
    }

    @Test
    void should_judge_a_seal_valid_when_no_change_is_recorded() {
        assertThat(BucketRule.valid(tidAt("2013-01-02T00:01:00Z"), null)).isTrue();
    }

    @Test
    void should_judge_a_seal_valid_only_when_it_started_more_than_a_margin_after_the_change() {
        Instant sealAt = at("2013-01-02T00:01:00Z");
        UUID seal = tidAt(sealAt);
        long sealMicros = sealAt.getEpochSecond() * 1_000_000L;
        assertThat(BucketRule.valid(seal, sealMicros - MARGIN_MICROS - 1)).as("one microsecond more than a margin").isTrue();
        assertThat(BucketRule.valid(seal, sealMicros - MARGIN_MICROS)).as("exactly a margin").isFalse();
        assertThat(BucketRule.valid(seal, sealMicros - 1)).isFalse();
        assertThat(BucketRule.valid(seal, sealMicros + 5_000_000L)).as("a change after the seal").isFalse();
        assertThat(BucketRule.valid(seal, 0L)).isTrue();
    }

    @Test
    void should_take_whole_microseconds_of_the_seal_when_its_tick_is_inside_a_microsecond() {
        // 100-ns ticks: a seal 0.9 us after a microsecond counts as that microsecond
        Instant sealAt = at("2013-01-02T00:01:00.0000019Z");
        long micros = sealAt.getEpochSecond() * 1_000_000L + 1;
        assertThat(BucketRule.micros(sealAt)).isEqualTo(micros);
        assertThat(BucketRule.micros(at("1970-01-01T00:00:01.000002Z"))).isEqualTo(1_000_002L);
        assertThat(BucketRule.valid(tidAt(sealAt), micros - MARGIN_MICROS - 1)).isTrue();
        assertThat(BucketRule.valid(tidAt(sealAt), micros - MARGIN_MICROS)).isFalse();
    }

    @Test
    void should_leave_its_own_seal_valid_and_end_a_seal_one_microsecond_earlier_when_a_seal_records_its_change() {
        Instant sealAt = at("2013-01-02T00:01:00.123456Z");
        UUID g = tidAt(sealAt);
        long own = BucketRule.ownChangeMicros(g);
        assertThat(BucketRule.valid(g, own)).isTrue();
        assertThat(BucketRule.valid(tidAt(sealAt.minusNanos(1000)), own)).as("a seal 1 us earlier").isFalse();
        assertThat(BucketRule.valid(tidAt(sealAt.minusSeconds(3600)), own)).as("an hour earlier").isFalse();
        assertThat(own).isEqualTo(sealAt.getEpochSecond() * 1_000_000L + 123_456 - MARGIN_MICROS - 1);
    }
}
