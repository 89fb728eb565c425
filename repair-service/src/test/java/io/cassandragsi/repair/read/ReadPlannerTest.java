package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Which source a read pages through (docs/design.md section 8.2): buckets merged (one or several)
 * only for eventual reads fixed in the past whose buckets are all sealed, the index table otherwise;
 * a later page keeps its first page's source or is 400 bad_next.
 */
class ReadPlannerTest {
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
    private static final UUID SEAL = Tids.minAtTicks(Tids.ticks(Instant.parse("2025-04-01T00:00:00Z")));
    private static final UUID RESEAL = Tids.minAtTicks(Tids.ticks(Instant.parse("2025-04-02T00:00:00Z")));

    private static IndexPlan plan(String index) {
        return PLAN.indexes().stream().filter(p -> p.index().name().equals(index)).findFirst().orElseThrow();
    }

    private static IndexReader.Query query(String index) {
        return IndexReader.Query.of("ks", "revisions", index, index.equals("by_value") ? "v" : "3");
    }

    private static ReadRequest request(IndexReader.Query q) {
        return ReadRequest.parse(q, DEF, DEF.index(q.index()));
    }

    private static UUID time(ReadRequest r) {
        return r.fixedTime() != null ? r.fixedTime() : r.now();
    }

    private static List<String> labels(IndexReader.Query q) {
        ReadRequest r = request(q);
        return ReadPlanner.labels(r, q.consistent(), plan(q.index()), time(r));
    }

    private static Map<String, BucketsTable.State> sealed(List<String> labels, UUID seal) {
        Map<String, BucketsTable.State> out = new HashMap<>();
        labels.forEach(l -> out.put(l, new BucketsTable.State(seal, null, 10)));
        return out;
    }

    private static Source first(IndexReader.Query q, Map<String, BucketsTable.State> states) {
        ReadRequest r = request(q);
        return ReadPlanner.first(plan(q.index()), labels(q), states, r.from, time(r));
    }

    private static Source later(IndexReader.Query q, PageToken.Resume resume, Map<String, BucketsTable.State> states) {
        ReadRequest r = request(q);
        return ReadPlanner.later(plan(q.index()), resume, labels(q), states, r.from, time(r));
    }

    private static final IndexReader.Query MOMENT = query("by_day").withAsOf("2025-03-04T05:06:07Z");
    private static final IndexReader.Query WINDOW = query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-06T00:00:01Z");

    @Test
    void should_read_the_bucket_of_an_eventual_read_as_of_a_past_moment_or_in_a_window_inside_one_day() {
        assertThat(labels(MOMENT)).containsExactly("2025-03-04");
        UUID tid = Tids.fromTicks(Tids.ticks(Instant.parse("2025-03-04T23:59:59.9999999Z")), 5);
        assertThat(labels(query("by_day").withAsOf(tid.toString()))).containsExactly("2025-03-04");
        assertThat(labels(query("by_day").withWindow("2025-03-04T01:00:00Z", "2025-03-05T00:00:00Z"))).as("ts_lt excludes the next day's start")
                .containsExactly("2025-03-04");
    }

    @Test
    void should_merge_the_buckets_of_an_eventual_window_over_several_with_both_ends_given() {
        assertThat(labels(WINDOW)).containsExactly("2025-03-04", "2025-03-05", "2025-03-06");
    }

    @Test
    void should_read_the_index_table_when_no_bucket_can_serve_the_read() {
        assertThat(labels(query("by_day"))).as("as of now").isNull();
        assertThat(labels(MOMENT.withConsistent(true))).as("consistent").isNull();
        assertThat(labels(query("by_value").withAsOf("2025-03-04T05:06:07Z"))).as("an index without a bucket").isNull();
        assertThat(labels(query("by_day").withWindow(null, "2025-03-04T02:00:00Z"))).as("a window from the beginning").isNull();
        assertThat(labels(query("by_day").withWindow("2025-03-04T01:00:00Z", null))).as("a window until now").isNull();
        assertThat(labels(query("by_day").withWindow("2025-01-01T00:00:00Z", "2025-03-06T00:00:01Z"))).as("more than 32 buckets").isNull();
        assertThat(labels(query("by_day").withAsOf("safe"))).as("the safe time").isNull();
        assertThat(labels(query("by_day_desc").withAsOf("2025-03-04T05:06:07Z")))
                .as("clustering value DESC, key ASC: a tuple slice cannot resume in that order").isNull();
        assertThat(first(query("by_day"), Map.of())).isEqualTo(Source.INDEX_TABLE);
    }

    @Test
    void should_read_buckets_only_when_every_one_has_a_valid_seal() {
        List<String> days = labels(WINDOW);
        Source.Buckets all = (Source.Buckets) first(WINDOW, sealed(days, SEAL));
        assertThat(all.labels()).isEqualTo(days);
        Map<String, BucketsTable.State> one = sealed(days, SEAL);
        one.put("2025-03-05", new BucketsTable.State(null, null, 0));
        assertThat(first(WINDOW, one)).as("one bucket not sealed").isEqualTo(Source.INDEX_TABLE);
        Map<String, BucketsTable.State> changed = sealed(days, SEAL);
        changed.put("2025-03-06", new BucketsTable.State(SEAL, io.cassandragsi.index.BucketRule.micros(Tids.instant(RESEAL)), 10));
        assertThat(first(WINDOW, changed)).as("one bucket changed since its seal").isEqualTo(Source.INDEX_TABLE);
        assertThat(first(WINDOW, null)).as("states not known").isEqualTo(Source.INDEX_TABLE);
    }

    @Test
    void should_give_each_bucket_its_share_of_the_time() {
        Source.Buckets window = (Source.Buckets) first(WINDOW, sealed(labels(WINDOW), SEAL));
        assertThat(window.parts().get(0).from()).as("the window's start").isEqualTo(request(WINDOW).from);
        assertThat(window.parts().get(1).from()).as("the day's first moment").isEqualTo(Tids.minAtTicks(Tids.ticks(Instant.parse("2025-03-05T00:00:00Z"))));
        assertThat(window.parts().get(2).upTo()).as("the window's end").isEqualTo(time(request(WINDOW)));
        Source.Buckets moment = (Source.Buckets) first(MOMENT, sealed(labels(MOMENT), SEAL));
        UUID q = time(request(MOMENT));
        assertThat(moment.parts()).singleElement().satisfies(p -> {
            assertThat(p.from()).as("a read of one moment: the moment").isEqualTo(q);
            assertThat(p.upTo()).isEqualTo(q);
        });
    }

    @Test
    void should_keep_a_later_page_on_its_first_pages_source() {
        List<String> days = labels(WINDOW);
        Source.Buckets buckets = (Source.Buckets) first(WINDOW, sealed(days, SEAL));
        PageToken.Resume behind = new PageToken.BucketsResume(buckets.seals(), List.of(ByteBuffer.wrap(new byte[] {1})));
        assertThat(later(WINDOW, behind, sealed(days, SEAL))).isEqualTo(buckets);
        assertThat(later(WINDOW, PageToken.IndexResume.at(null), sealed(days, SEAL))).as("a read of the index table stays on it")
                .isEqualTo(Source.INDEX_TABLE);
        assertThatThrownBy(() -> later(WINDOW, behind, sealed(days, RESEAL))).as("sealed again").isInstanceOf(ReadException.class)
                .hasMessageContaining("sealed again").satisfies(e -> assertThat(((ReadException) e).error()).isEqualTo("bad_next"));
        assertThatThrownBy(() -> later(WINDOW, behind, null)).as("states not known").isInstanceOf(ReadException.class)
                .hasMessageContaining("no longer reads");
    }

    @Test
    void should_refuse_a_version_4_token_of_a_one_bucket_read_saying_why_and_accept_one_of_a_merge() {
        PageToken.Resume oneBucket = new PageToken.LegacyBuckets(SEAL, new byte[] {1}, 2);
        assertThatThrownBy(() -> later(MOMENT, oneBucket, sealed(labels(MOMENT), SEAL))).isInstanceOf(ReadException.class)
                .hasMessageContaining("earlier version of this service");
        List<String> days = labels(WINDOW);
        UUID seals = ((Source.Buckets) first(WINDOW, sealed(days, SEAL))).seals();
        PageToken.Resume merged = new PageToken.LegacyBuckets(seals, io.cassandragsi.schema.Composite.encode(List.of(ByteBuffer.wrap(new byte[] {1}))).array(), 0);
        assertThat(later(WINDOW, merged, sealed(days, SEAL))).isInstanceOf(Source.Buckets.class);
    }
}
