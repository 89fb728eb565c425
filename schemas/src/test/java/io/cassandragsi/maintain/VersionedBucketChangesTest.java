package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Definitions;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The start of a repair of a versioned table with a bucketed index ({@link VersionedTable#repair},
 * docs/design.md section 9.4) through the in-memory twins ({@link MemoryStores}): a group that
 * changes what was current in an ended bucket is handed off by the in-node maintainer; the service
 * repairs it as usual and, once the repair has read the base and seen the group's versions (DONE or
 * AGAIN, not RETRY), records the change before the repair returns; each pass records again. A group
 * of current tids records nothing.
 */
class VersionedBucketChangesTest {
    static final TablePlan PLAN = TablePlan.of(Definitions.parse("""
            {"keyspace": "wiki", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}, {"type": "bucket", "period": "day"}],
               "by_tid": [{"type": "hash", "attribute": "tid"}]}}
            """, "revisions.json"));
    /** The same table without the bucket element. */
    static final TablePlan PLAIN = TablePlan.of(Definitions.read(Path.of("examples/revisions.json")));
    static final IndexPlan BY_LENGTH = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_length")).findFirst().orElseThrow();
    /** 2013-01-04T12:00:00Z, the clock at the start of each test. */
    static final long NOW = Instant.parse("2013-01-04T12:00:00Z").toEpochMilli();
    static final long DAY = 86_400_000L;

    long now = NOW;
    final MemoryStores stores = MemoryStores.of(PLAN, () -> now);
    final MemoryTrigger trigger = new MemoryTrigger(stores, () -> now);
    final RepairCounters counters = new RepairCounters();

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    /** A tid at {@code millis} since the epoch. */
    static UUID tid(long millis) {
        return Tids.fromTicks(millis * 10_000L, 1);
    }

    static Version version(String key, UUID tid, Integer length, String value) {
        return new Version(new ByteBuffer[] {text(key), Tids.bytes(tid), length == null ? null : varint(length), text(value)}, 1);
    }

    MemoryTrigger.Batch insert(MemoryTrigger t, Version v) {
        return t.write(v, true, WriteTimestamps.of(v.tid()) / 10, 0);
    }

    Outcome repair(TablePlan plan, MemoryStores on, MarkerGroup g, Writes.Sink sink) {
        return TableKind.of(plan, on, counters).repair(g, null, sink);
    }

    boolean matches(MemoryStores on, List<ByteBuffer> key) {
        RowReconcile.EntryState e = on.entries.entryState(BY_LENGTH, key);
        return e != null && e.matches();
    }

    /** v1 (length 1) and v2 (length 2) of row k at {@code t1} and {@code t2}, landed; v2's group, not repaired yet. */
    MarkerGroup twoVersionsLanded(UUID t1, UUID t2) {
        insert(trigger, version("k", t1, 1, "a")).land();
        MemoryTrigger.Batch b2 = insert(trigger, version("k", t2, 2, "b"));
        b2.land();
        return b2.group();
    }

    @Test
    void should_hand_off_on_the_node_and_record_the_change_on_the_service_when_a_group_starts_in_an_ended_bucket() {
        UUID t1 = tid(NOW - 3 * DAY);
        UUID t2 = tid(NOW - 3 * DAY + 10);
        MarkerGroup g = twoVersionsLanded(t1, t2);
        assertThat(g.tidMin()).isEqualTo(t2);
        int sentBefore = stores.sent.size();

        MemoryStores node = stores.node();
        assertThat(repair(PLAN, node, g, node.sink())).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).as("the node writes nothing").hasSize(sentBefore);
        assertThat(node.bucketChanges).isEmpty();
        assertThat(matches(stores, List.of(varint(1), text("k")))).as("the older entry is not marked yet").isTrue();

        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, g, service.sink())).as("then the usual diff").isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(t2));
        assertThat(matches(stores, List.of(varint(1), text("k")))).isFalse();
        assertThat(matches(stores, List.of(varint(2), text("k")))).isTrue();
        assertThat(Tids.uuid(stores.entries.entryState(BY_LENGTH, List.of(varint(1), text("k"))).deleted())).isEqualTo(t2);
    }

    @Test
    void should_record_nothing_and_repair_on_the_node_when_the_group_tids_are_in_the_current_bucket() {
        UUID t1 = tid(NOW - 60 * 60_000L);
        UUID t2 = tid(NOW - 30 * 60_000L);
        MarkerGroup g = twoVersionsLanded(t1, t2);

        MemoryStores node = stores.node();
        assertThat(repair(PLAN, node, g, node.sink())).as("a plain diff is the node's").isEqualTo(Outcome.DONE);
        assertThat(matches(stores, List.of(varint(1), text("k")))).isFalse();

        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, g, service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).isEmpty();
    }

    @Test
    void should_record_the_change_when_the_bucket_of_the_tid_ends_within_the_margin() {
        assumeThat(BucketRule.MARGIN.toMillis()).as("a margin of more than a second").isGreaterThan(1000L);
        long midnight = Instant.parse("2013-01-05T00:00:00Z").toEpochMilli();
        now = midnight - BucketRule.MARGIN.toMillis(); // now + MARGIN is in 2013-01-05
        UUID t1 = tid(now - 2000);
        UUID t2 = tid(now - 1000); // still 2013-01-04, like now
        MarkerGroup g = twoVersionsLanded(t1, t2);

        MemoryStores node = stores.node();
        assertThat(repair(PLAN, node, g, node.sink())).isEqualTo(Outcome.HANDOFF);
        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, g, service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(t2));
    }

    @Test
    void should_record_nothing_when_the_bucket_of_the_tid_ends_after_the_margin() {
        long midnight = Instant.parse("2013-01-05T00:00:00Z").toEpochMilli();
        now = midnight - BucketRule.MARGIN.toMillis() - 1; // now + MARGIN is the last millisecond of 2013-01-04
        UUID t1 = tid(now - 2000);
        UUID t2 = tid(now - 1000);
        MarkerGroup g = twoVersionsLanded(t1, t2);

        MemoryStores node = stores.node();
        assertThat(repair(PLAN, node, g, node.sink())).isEqualTo(Outcome.DONE);
        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, g, service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).isEmpty();
    }

    @Test
    void should_record_a_change_of_every_version_when_the_group_is_the_whole_partition() {
        UUID t1 = tid(NOW - 60 * 60_000L);
        UUID t2 = tid(NOW - 30 * 60_000L);
        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, twoVersionsLanded(t1, t2), service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).as("current tids: nothing").isEmpty();

        MemoryTrigger.Batch delete = trigger.deletePartition(List.of(text("k")), (NOW + 10) * 1000L);
        delete.land();
        MarkerGroup g = delete.group();
        assertThat(g.wholePartition()).isTrue();

        MemoryStores node = stores.node();
        assertThat(repair(PLAN, node, g, node.sink())).isEqualTo(Outcome.HANDOFF);
        assertThat(repair(PLAN, service, g, service.sink())).isEqualTo(Outcome.AGAIN);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(null));
        assertThat(repair(PLAN, service, g.withUnseenGone(), service.sink())).isEqualTo(Outcome.AGAIN);
        assertThat(service.bucketChanges).as("each pass records again").containsExactly(new BucketRule.Change(null), new BucketRule.Change(null));
        assertThat(matches(stores, List.of(varint(2), text("k")))).isFalse();
    }

    @Test
    void should_record_the_deleted_tid_when_an_old_version_is_deleted() {
        UUID t1 = tid(NOW - 3 * DAY);
        UUID t2 = tid(NOW - 2 * DAY);
        MemoryStores service = stores.service();
        assertThat(repair(PLAN, service, twoVersionsLanded(t1, t2), service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(t2));

        MemoryTrigger.Batch delete = trigger.deleteVersion(List.of(text("k")), t1, (NOW + 10) * 1000L);
        delete.land();
        assertThat(repair(PLAN, stores.node(), delete.group(), stores.sink())).isEqualTo(Outcome.HANDOFF);
        assertThat(repair(PLAN, service, delete.group(), service.sink())).isEqualTo(Outcome.AGAIN);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(t2), new BucketRule.Change(t1));
    }

    @Test
    void should_record_nothing_when_the_repair_does_not_see_the_group_versions_yet() {
        UUID t1 = tid(NOW - 3 * DAY);
        UUID t2 = tid(NOW - 3 * DAY + 10);
        insert(trigger, version("k", t1, 1, "a")).land();
        MemoryTrigger.Batch b2 = insert(trigger, version("k", t2, 2, "b"));
        b2.entries().forEach(Runnable::run); // its entries landed, its base row not yet
        MemoryStores service = stores.service();

        assertThat(repair(PLAN, service, b2.group(), service.sink())).isEqualTo(Outcome.RETRY);
        assertThat(service.bucketChanges).as("no read saw the version yet").isEmpty();
        assertThat(repair(PLAN, stores.node(), b2.group(), stores.sink())).as("the node hands it off anyway").isEqualTo(Outcome.HANDOFF);

        b2.base().run();
        assertThat(repair(PLAN, service, b2.group(), service.sink())).isEqualTo(Outcome.DONE);
        assertThat(service.bucketChanges).containsExactly(new BucketRule.Change(t2));
    }

    @Test
    void should_repair_an_old_group_on_the_node_when_the_table_has_no_bucketed_index() {
        MemoryStores plain = MemoryStores.of(PLAIN, () -> now);
        MemoryTrigger t = new MemoryTrigger(plain, () -> now);
        insert(t, version("k", tid(NOW - 3 * DAY), 1, "a")).land();
        MemoryTrigger.Batch b2 = insert(t, version("k", tid(NOW - 3 * DAY + 10), 2, "b"));
        b2.land();

        MemoryStores node = plain.node();
        assertThat(repair(PLAIN, node, b2.group(), node.sink())).isEqualTo(Outcome.DONE);
        assertThat(plain.bucketChanges).isEmpty();
        assertThat(node.bucketChanges).isEmpty();
    }
}
