package io.cassandragsi.trigger;

import static io.cassandragsi.trigger.OfflineCassandra.MAX_MUTATION_SIZE;
import static io.cassandragsi.trigger.OfflineCassandra.counter;
import static io.cassandragsi.trigger.OfflineCassandra.markers;
import static io.cassandragsi.trigger.OfflineCassandra.of;
import static io.cassandragsi.trigger.OfflineCassandra.text;
import static io.cassandragsi.trigger.OfflineCassandra.update;
import static io.cassandragsi.trigger.OfflineCassandra.updates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.trigger.OfflineCassandra.Marker;
import java.nio.ByteBuffer;
import java.util.Collection;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.net.MessagingService;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.TimeUUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * README, "Writes the trigger cannot fully index": index writes that would push the write's logged
 * batch over the node's {@code max_mutation_size} less 64 KiB of margin are replaced by one marker of
 * the whole partition, so the write goes through and the repair service writes the entries. The
 * node's limit is 1 MiB here ({@link OfflineCassandra}).
 */
class MutationSizeTest {
    private static final String KS = "trigger_sizes";
    private static final String BY_TAG = "idx_docs_by_tag_ever";
    /** {@code summary} is projected into the index (written twice: base and entry); {@code body} only in the base. */
    private static final String DEFINITION = """
            {
              "keyspace": "trigger_sizes",
              "table": "docs",
              "attributes": { "id": "string", "tid": "timeuuid", "tag": "string", "summary": "string", "body": "string" },
              "index": [ { "type": "hash", "attribute": "id" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": { "by_tag": [ { "type": "hash", "attribute": "tag" }, { "type": "proj", "attribute": "summary" } ] }
            }
            """;
    private static final long KIB = 1024;
    private static final long MARGIN = 64 * KIB;

    private final IndexTrigger trigger = new IndexTrigger(() -> true, markers -> fail("no CAS marker expected"));

    @BeforeAll
    static void schema() {
        OfflineCassandra.define(DEFINITION);
    }

    private static PartitionUpdate write(String id, long summaryBytes, long bodyBytes) {
        return update("INSERT INTO trigger_sizes.docs (id, tid, tag, summary, body) VALUES (?, ?, 'news', ?, ?)",
                ByteBufferUtil.bytes(id), TimeUUID.Generator.nextTimeUUID().toBytes(), ofBytes(summaryBytes), ofBytes(bodyBytes));
    }

    private static ByteBuffer ofBytes(long bytes) {
        return ByteBufferUtil.bytes("s".repeat((int) bytes));
    }

    /** What the node's batchlog stores for the write: the base update and every mutation the trigger added. */
    private static long batchSize(PartitionUpdate base, Collection<Mutation> added) {
        int version = MessagingService.current_version;
        long size = PartitionUpdate.serializer.serializedSize(base, version);
        for (Mutation m : added) {
            size += m.serializedSize(version);
        }
        return size;
    }

    private static void assertOnlyAWholePartitionMarker(Collection<Mutation> out, String id) {
        assertThat(updates(out)).as("nothing but the marker").hasSize(1);
        Marker marker = markers(out).get(0);
        assertThat(marker.wholePartition()).isTrue();
        assertThat(text(marker.pk())).isEqualTo(id);
        assertThat(marker.flags()).as("too large, and the service derives the entries itself")
                .isEqualTo(QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE | QueueLayout.FLAG_TOO_LARGE);
    }

    @Test
    void should_keep_the_entries_when_the_batch_stays_more_than_64_KiB_under_max_mutation_size() {
        PartitionUpdate base = write("fits", 300 * KIB, 300 * KIB);
        long before = counter("OversizedWrites");

        Collection<Mutation> out = trigger.augment(base);

        assertThat(batchSize(base, out)).as("premise").isLessThan(MAX_MUTATION_SIZE - MARGIN);
        assertThat(of(out, KS, BY_TAG)).hasSize(1);
        assertThat(markers(out)).singleElement().satisfies(m -> assertThat(m.has(QueueLayout.FLAG_TOO_LARGE)).isFalse());
        assertThat(counter("OversizedWrites")).isEqualTo(before);
    }

    @Test
    void should_replace_the_entries_by_one_whole_partition_marker_when_the_batch_would_come_within_64_KiB_of_max_mutation_size() {
        // the base and the entry each hold the 490 KiB summary: about 981 KiB together, under the
        // limit (1,024 KiB) but inside the margin
        PartitionUpdate base = write("margin", 490 * KIB, 0);
        assertThat(PartitionUpdate.serializer.serializedSize(base, MessagingService.current_version)).as("premise")
                .isBetween(490 * KIB, 491 * KIB);
        long before = counter("OversizedWrites");

        Collection<Mutation> out = trigger.augment(base);

        assertOnlyAWholePartitionMarker(out, "margin");
        assertThat(counter("OversizedWrites") - before).isEqualTo(1);
    }

    @Test
    void should_add_nothing_when_the_base_write_alone_comes_within_64_KiB_of_max_mutation_size() {
        // a base of 1,000 KiB passes on its own (under 1,024 KiB); with 20 KiB of entries or even a
        // marker in a logged batch it could not: the write must go as the client sent it
        PartitionUpdate base = write("near", 20 * KIB, 980 * KIB);
        assertThat(PartitionUpdate.serializer.serializedSize(base, MessagingService.current_version)).as("premise")
                .isBetween(MAX_MUTATION_SIZE - MARGIN, MAX_MUTATION_SIZE);
        long before = counter("OversizedWrites");

        Collection<Mutation> out = trigger.augment(base);

        assertThat(out == null ? java.util.List.<Mutation>of() : out).as("nothing added to the write").isEmpty();
        assertThat(counter("OversizedWrites") - before).isEqualTo(1);
    }

    @Test
    void should_count_the_base_write_in_the_batch_when_the_entries_are_small() {
        // a 956 KiB base leaves the margin free, its 10 KiB entry does not
        PartitionUpdate base = write("small", 10 * KIB, 946 * KIB);
        assertThat(PartitionUpdate.serializer.serializedSize(base, MessagingService.current_version) + MARGIN).as("premise")
                .isLessThanOrEqualTo(MAX_MUTATION_SIZE);

        Collection<Mutation> out = trigger.augment(base);

        assertOnlyAWholePartitionMarker(out, "small");
    }
}
