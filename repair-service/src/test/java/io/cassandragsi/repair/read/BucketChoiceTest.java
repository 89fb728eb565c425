package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which reads page through a bucket (docs/design.md section 8.2): only eventual ones fixed in the past, inside one bucket. */
class BucketChoiceTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_day": [{"type": "hash", "attribute": "length"}, {"type": "bucket", "period": "day"}],
                                  "by_value": [{"type": "hash", "attribute": "value"}],
                                  "by_day_desc": [{"type": "hash", "attribute": "length"}, {"type": "range", "order": "desc", "attribute": "value"},
                                                  {"type": "bucket", "period": "day"}]}}
            """, "revisions.json");
    private static final TablePlan PLAN = TablePlan.of(DEF);

    private static IndexPlan plan(String index) {
        return PLAN.indexes().stream().filter(p -> p.index().name().equals(index)).findFirst().orElseThrow();
    }

    private static String label(IndexReader.Query q) {
        ReadRequest r = ReadRequest.parse(q, DEF, DEF.index(q.index()));
        UUID time = r.fixedTime() != null ? r.fixedTime() : r.now();
        return BucketChoice.label(r, q.consistent(), plan(q.index()), time);
    }

    private static IndexReader.Query query(String index) {
        return IndexReader.Query.of("ks", "revisions", index, index.equals("by_value") ? "v" : "3");
    }

    @Test
    void should_read_the_bucket_of_an_eventual_read_as_of_a_past_moment() {
        assertThat(label(query("by_day").withAsOf("2025-03-04T05:06:07Z"))).isEqualTo("2025-03-04");
        UUID tid = Tids.fromTicks(Tids.ticks(Instant.parse("2025-03-04T23:59:59.9999999Z")), 5);
        assertThat(label(query("by_day").withAsOf(tid.toString()))).isEqualTo("2025-03-04");
    }

    @Test
    void should_read_the_bucket_of_a_window_whose_ends_lie_in_it() {
        assertThat(label(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-04T02:00:00Z"))).isEqualTo("2025-03-04");
        assertThat(label(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-05T00:00:00Z"))).as("ts_lt excludes the next day's start")
                .isEqualTo("2025-03-04");
    }

    @Test
    void should_read_the_index_table_when_the_read_cannot_use_one_bucket() {
        assertThat(label(query("by_day"))).as("as of now").isNull();
        assertThat(label(query("by_day").withAsOf("2025-03-04T05:06:07Z").withConsistent(true))).as("consistent").isNull();
        assertThat(label(query("by_value").withAsOf("2025-03-04T05:06:07Z"))).as("an index without a bucket").isNull();
        assertThat(label(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-05T00:00:01Z"))).as("a window over two days").isNull();
        assertThat(label(query("by_day").withWindow(null, "2025-03-04T02:00:00Z"))).as("a window from the beginning").isNull();
        assertThat(label(query("by_day").withWindow("2025-03-04T01:00:00Z", null))).as("a window until now").isNull();
    }

    private static java.util.List<String> merged(IndexReader.Query q) {
        ReadRequest r = ReadRequest.parse(q, DEF, DEF.index(q.index()));
        UUID time = r.fixedTime() != null ? r.fixedTime() : r.now();
        return BucketChoice.mergedLabels(r, q.consistent(), plan(q.index()), time);
    }

    @Test
    void should_merge_the_buckets_of_an_eventual_window_over_several_with_both_ends_given() {
        assertThat(merged(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-06T00:00:01Z")))
                .containsExactly("2025-03-04", "2025-03-05", "2025-03-06");
        assertThat(merged(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-05T00:00:00Z"))).as("one bucket").isNull();
        assertThat(merged(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-06T00:00:01Z").withConsistent(true))).as("consistent")
                .isNull();
        assertThat(merged(query("by_day").withWindow(null, "2025-03-06T00:00:01Z"))).as("from the beginning").isNull();
        assertThat(merged(query("by_day").withWindow("2025-03-04T01:00:00Z", null))).as("until now").isNull();
        assertThat(merged(query("by_day").withWindow("2025-01-01T00:00:00Z", "2025-03-06T00:00:01Z"))).as("more than 32 buckets").isNull();
        assertThat(merged(query("by_day").withAsOf("2025-03-04T05:06:07Z"))).as("as of a moment").isNull();
        assertThat(merged(query("by_value").withWindow("2025-03-04T01:00:00Z", "2025-03-06T00:00:01Z"))).as("no bucket").isNull();
        assertThat(merged(query("by_day_desc").withWindow("2025-03-04T01:00:00Z", "2025-03-06T00:00:01Z")))
                .as("clustering value DESC, key ASC: a tuple slice cannot resume in that order").isNull();
    }
}
