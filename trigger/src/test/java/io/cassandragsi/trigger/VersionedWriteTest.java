package io.cassandragsi.trigger;

import static io.cassandragsi.trigger.OfflineCassandra.cell;
import static io.cassandragsi.trigger.OfflineCassandra.counter;
import static io.cassandragsi.trigger.OfflineCassandra.markers;
import static io.cassandragsi.trigger.OfflineCassandra.of;
import static io.cassandragsi.trigger.OfflineCassandra.onlyRow;
import static io.cassandragsi.trigger.OfflineCassandra.table;
import static io.cassandragsi.trigger.OfflineCassandra.text;
import static io.cassandragsi.trigger.OfflineCassandra.ts;
import static io.cassandragsi.trigger.OfflineCassandra.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.trigger.OfflineCassandra.Marker;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.marshal.IntegerType;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.TimeUUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger on a versioned table (README: the write-timestamp rule, and "Writes the trigger cannot
 * fully index"), fed the updates Cassandra makes of real CQL writes, without a node.
 */
class VersionedWriteTest {
    private static final String KS = "trigger_versioned";
    private static final String DEFINITION = """
            {
              "keyspace": "trigger_versioned",
              "table": "revisions",
              "attributes": { "key": "string", "tid": "timeuuid", "length": "varint", "value": "string" },
              "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": {
                "by_length": [ { "type": "hash", "attribute": "length" }, { "type": "proj", "attribute": "value" } ],
                "by_tid": [ { "type": "hash", "attribute": "tid" } ]
              }
            }
            """;
    private static final String BY_LENGTH = "idx_revisions_by_length_ever";
    private static final String BY_TID = "idx_revisions_by_tid_ever";

    private final IndexTrigger trigger = new IndexTrigger(() -> true, markers -> fail("no CAS marker expected"));

    /** An index keyed on two regular attributes ({@code a}, {@code b}) that projects a third ({@code c}). */
    private static final String TWO_KEY_CELLS = """
            {
              "keyspace": "trigger_versioned",
              "table": "pages",
              "attributes": { "key": "string", "tid": "timeuuid", "a": "int", "b": "int", "c": "string" },
              "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": {
                "by_ab": [ { "type": "hash", "attribute": "a" }, { "type": "range", "attribute": "b" }, { "type": "proj", "attribute": "c" } ]
              }
            }
            """;

    @BeforeAll
    static void schema() {
        OfflineCassandra.define(DEFINITION);
        OfflineCassandra.define(TWO_KEY_CELLS);
    }

    private static UUID newTid() {
        return TimeUUID.Generator.nextTimeUUID().asUUID();
    }

    private Collection<Mutation> write(String cql, ByteBuffer... values) {
        return trigger.augment(update(cql, values));
    }

    /**
     * The rows table's newest-write cells: a whole write of a version records its write timestamp
     * at the version's TS in both (the lower one as its complement), so that Cassandra's tie rule
     * keeps the latest and the earliest write of that version; so does a write of every key
     * attribute, and a write that leaves one out records nothing.
     */
    @Test
    void should_record_a_whole_write_of_a_version_in_the_newest_write_cells_at_its_TS() {
        UUID tid = newTid();
        Collection<Mutation> out = write("INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('Hi_Lo', " + tid
                + ", 7, 'x') USING TIMESTAMP 1234567");

        TableMetadata rowsTable = table(KS, RowsLayout.tableName("revisions"));
        Row row = onlyRow(of(out, KS, rowsTable.name).get(0));
        Cell<?> hi = cell(row, rowsTable, RowsLayout.NEWEST_HI);
        Cell<?> lo = cell(row, rowsTable, RowsLayout.NEWEST_LO);
        assertThat(ByteBufferUtil.toLong(hi.buffer())).isEqualTo(1234567L);
        assertThat(ByteBufferUtil.toLong(lo.buffer())).isEqualTo(Long.MAX_VALUE - 1234567L);
        assertThat(List.of(hi.timestamp(), lo.timestamp())).containsOnly(ts(tid));

        // every key attribute (a per-version entry may move), projections aside: recorded too
        Collection<Mutation> keys = write("UPDATE trigger_versioned.revisions USING TIMESTAMP 1234999 SET length = 8 WHERE key = 'Hi_Lo' AND tid = "
                + tid);
        Row keysRow = onlyRow(of(keys, KS, rowsTable.name).get(0));
        assertThat(ByteBufferUtil.toLong(cell(keysRow, rowsTable, RowsLayout.NEWEST_HI).buffer())).isEqualTo(1234999L);

        // the projection alone: not (the trigger flags it for a recompute anyway)
        Collection<Mutation> partial = write("UPDATE trigger_versioned.revisions SET value = 'y' WHERE key = 'Hi_Lo' AND tid = " + tid);
        Row partialRow = onlyRow(of(partial, KS, rowsTable.name).get(0));
        assertThat(cell(partialRow, rowsTable, RowsLayout.NEWEST_HI)).as("the length is not carried").isNull();
        assertThat(cell(partialRow, rowsTable, RowsLayout.NEWEST_LO)).isNull();
    }

    private static Marker onlyMarker(Collection<Mutation> out) {
        List<Marker> markers = markers(out);
        assertThat(markers).hasSize(1);
        return markers.get(0);
    }

    @Test
    void should_write_every_index_cell_at_TS_of_the_tid_when_a_version_is_inserted() {
        UUID tid = newTid();
        Collection<Mutation> out = write("INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('Main_Page', " + tid
                + ", 1024, 'Hello')");

        TableMetadata byLength = table(KS, BY_LENGTH);
        PartitionUpdate entry = of(out, KS, BY_LENGTH).get(0);
        assertThat(of(out, KS, BY_LENGTH)).hasSize(1);
        assertThat(IntegerType.instance.compose(entry.partitionKey().getKey())).isEqualTo(BigInteger.valueOf(1024));
        Row row = onlyRow(entry);
        assertThat(text(row.clustering().bufferAt(0))).isEqualTo("Main_Page");
        assertThat(row.primaryKeyLivenessInfo().timestamp()).isEqualTo(ts(tid));
        assertThat(cell(row, byLength, "_tid").buffer()).isEqualTo(TimeUUID.fromUuid(tid).toBytes());
        assertThat(text(cell(row, byLength, "value").buffer())).isEqualTo("Hello");
        assertThat(cell(row, byLength, "_deleted")).as("an entry that matches needs no _deleted tombstone").isNull();

        PartitionUpdate perVersion = of(out, KS, BY_TID).get(0);
        assertThat(perVersion.partitionKey().getKey()).isEqualTo(TimeUUID.fromUuid(tid).toBytes());
        assertThat(onlyRow(perVersion).primaryKeyLivenessInfo().timestamp()).isEqualTo(ts(tid));

        List<Long> timestamps = new ArrayList<>();
        for (PartitionUpdate u : List.of(entry, perVersion)) {
            for (Row r : u) {
                r.cells().forEach(c -> timestamps.add(c.timestamp()));
            }
        }
        assertThat(timestamps).isNotEmpty().containsOnly(ts(tid));

        // the rows table records the entry key the version gave its row, at the version's TS
        TableMetadata rowsTable = table(KS, RowsLayout.tableName("revisions"));
        PartitionUpdate rows = of(out, KS, rowsTable.name).get(0);
        assertThat(text(rows.partitionKey().getKey())).isEqualTo("Main_Page");
        List<Cell<?>> keys = new ArrayList<>();
        onlyRow(rows).getComplexColumnData(rowsTable.getColumn(ByteBufferUtil.bytes(RowsLayout.KEYS))).forEach(keys::add);
        assertThat(keys).singleElement().satisfies(k -> {
            assertThat(k.path().get(0)).isEqualTo(RowsLayout.element("by_length",
                    List.of(IntegerType.instance.decompose(BigInteger.valueOf(1024)), ByteBufferUtil.bytes("Main_Page"))));
            assertThat(k.timestamp()).isEqualTo(ts(tid));
        });
        // and, apart, the per-version entry's key, so that a delete of the version finds that entry
        List<Cell<?>> versionKeys = new ArrayList<>();
        onlyRow(rows).getComplexColumnData(rowsTable.getColumn(ByteBufferUtil.bytes(RowsLayout.VERSION_KEYS))).forEach(versionKeys::add);
        assertThat(versionKeys).singleElement().satisfies(k -> {
            assertThat(k.path().get(0)).isEqualTo(RowsLayout.element("by_tid", List.of(TimeUUID.fromUuid(tid).toBytes(), ByteBufferUtil.bytes("Main_Page"))));
            assertThat(k.timestamp()).isEqualTo(ts(tid));
        });

        Marker marker = onlyMarker(out);
        assertThat(marker.keyspace()).isEqualTo(KS);
        assertThat(marker.table()).isEqualTo("revisions");
        assertThat(text(marker.pk())).isEqualTo("Main_Page");
        assertThat(marker.tidMin()).isEqualTo(tid);
        assertThat(marker.tidMax()).isEqualTo(tid);
        assertThat(marker.flags()).as("a complete write of a new version").isZero();
    }

    @Test
    void should_write_the_entry_without_its_projection_and_flag_the_marker_partial_when_the_write_omits_a_projected_attribute() {
        Collection<Mutation> out = write("INSERT INTO trigger_versioned.revisions (key, tid, length) VALUES ('p', " + newTid() + ", 7)");

        Row row = onlyRow(of(out, KS, BY_LENGTH).get(0));
        assertThat(cell(row, table(KS, BY_LENGTH), "value"))
                .as("no cell at all: a tombstone would erase the projection the stored version has").isNull();
        assertThat(onlyMarker(out).has(QueueLayout.FLAG_PARTIAL)).isTrue();
    }

    @Test
    void should_queue_a_recompute_when_a_write_that_lacks_an_indexed_attribute_carries_a_projected_one() {
        UUID tid = newTid();
        // within the second after the tid: taken for a new version, but it may rewrite the stored one's projection in place
        Marker projection = onlyMarker(write("UPDATE trigger_versioned.revisions SET value = 'b' WHERE key = 'u' AND tid = " + tid));
        Marker keyOnly = onlyMarker(write("UPDATE trigger_versioned.revisions SET length = 9 WHERE key = 'u' AND tid = " + tid));

        assertThat(projection.has(QueueLayout.FLAG_PARTIAL)).isTrue();
        assertThat(projection.has(QueueLayout.FLAG_DELETE)).as("the service recomputes the row: a rewritten projection would tie").isTrue();
        assertThat(keyOnly.has(QueueLayout.FLAG_PARTIAL)).isTrue();
        assertThat(keyOnly.has(QueueLayout.FLAG_DELETE)).as("no projection carried: the diff completes the entry").isFalse();
    }

    @Test
    void should_write_a_projection_tombstone_and_no_partial_flag_when_the_write_sets_the_projected_attribute_to_null() {
        UUID tid = newTid();
        Collection<Mutation> out = write("INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('n', " + tid
                + ", 7, null)");

        Cell<?> value = cell(onlyRow(of(out, KS, BY_LENGTH).get(0)), table(KS, BY_LENGTH), "value");
        assertThat(value.isTombstone()).isTrue();
        assertThat(value.timestamp()).isEqualTo(ts(tid));
        assertThat(onlyMarker(out).flags()).isZero();
    }

    @Test
    void should_queue_a_recompute_only_when_the_write_comes_more_than_a_second_after_its_tid() {
        UUID tid = newTid();
        long tidMicros = ts(tid) / 10;
        String rewrite = "UPDATE trigger_versioned.revisions USING TIMESTAMP %d SET length = 8, value = 'v' WHERE key = 'r' AND tid = " + tid;

        Marker late = onlyMarker(write(String.format(rewrite, tidMicros + 1_500_000)));
        Marker prompt = onlyMarker(write(String.format(rewrite, tidMicros + 500_000)));

        assertThat(late.has(QueueLayout.FLAG_DELETE)).as("an in-place rewrite: the service recomputes the row").isTrue();
        assertThat(prompt.has(QueueLayout.FLAG_DELETE)).as("the write of a new version").isFalse();
    }

    @Test
    void should_expire_the_entry_with_its_key_cell_and_queue_a_marker_due_at_the_expiry_when_the_version_has_a_ttl() {
        UUID tid = newTid();
        PartitionUpdate base = update("INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('t', " + tid
                + ", 9, 'x') USING TTL 600");
        long expiry = cell(onlyRow(base), base.metadata(), "length").localDeletionTime();
        Collection<Mutation> out = trigger.augment(base);

        TableMetadata byLength = table(KS, BY_LENGTH);
        Row entry = onlyRow(of(out, KS, BY_LENGTH).get(0));
        assertThat(entry.primaryKeyLivenessInfo().ttl()).isEqualTo(600);
        assertThat(entry.primaryKeyLivenessInfo().localExpirationTime()).isEqualTo(expiry);
        assertThat(cell(entry, byLength, "_tid").ttl()).isEqualTo(600);
        assertThat(cell(entry, byLength, "_tid").localDeletionTime()).isEqualTo(expiry);
        assertThat(cell(entry, byLength, "value").localDeletionTime()).isEqualTo(expiry);
        assertThat(entry.primaryKeyLivenessInfo().timestamp()).isEqualTo(ts(tid));

        List<Marker> markers = markers(out);
        assertThat(markers).as("one now, one due at the expiry").hasSize(2)
                .allSatisfy(m -> assertThat(m.has(QueueLayout.FLAG_DELETE)).as("the service recomputes the row").isTrue())
                .allSatisfy(m -> assertThat(m.tidMin()).isEqualTo(tid));
        Marker due = markers.stream().filter(m -> unixMillis(m.id()) >= expiry * 1000).findFirst()
                .orElseThrow(() -> new AssertionError("no marker due at the expiry " + expiry + ": " + markers));
        assertThat(unixMillis(due.id())).isLessThanOrEqualTo((expiry + 1) * 1000);
        assertThat(due.bucket()).as("queued in the bucket of its moment").isEqualTo(QueueLayout.Settings.defaults().bucketOf(unixMillis(due.id())));
        assertThat(due.ttl()).as("it outlives its due time by the queue's TTL").isGreaterThanOrEqualTo(QueueLayout.DEFAULT_TTL_SECONDS + 599);
    }

    @Test
    void should_expire_the_entry_with_the_first_key_cell_to_expire_and_each_projection_with_its_own_cell() {
        // a client batch that writes the cells of one version with different TTLs: Cassandra merges
        // its statements into one update of the partition, which is what the trigger sees
        UUID tid = newTid();
        String update = "UPDATE trigger_versioned.pages USING TTL %d SET %s WHERE key = 'p' AND tid = " + tid;
        PartitionUpdate base = PartitionUpdate.merge(List.of(update(String.format(update, 600, "a = 1")),
                update(String.format(update, 100, "b = 2")), update(String.format(update, 300, "c = 'x'"))));
        Row baseRow = onlyRow(base);
        long aExpiry = cell(baseRow, base.metadata(), "a").localDeletionTime();
        long bExpiry = cell(baseRow, base.metadata(), "b").localDeletionTime();
        long cExpiry = cell(baseRow, base.metadata(), "c").localDeletionTime();

        Collection<Mutation> out = trigger.augment(base);

        TableMetadata byAb = table(KS, "idx_pages_by_ab_ever");
        Row entry = onlyRow(of(out, KS, byAb.name).get(0));
        assertThat(entry.primaryKeyLivenessInfo().ttl()).isEqualTo(100);
        assertThat(entry.primaryKeyLivenessInfo().localExpirationTime()).isEqualTo(bExpiry);
        assertThat(cell(entry, byAb, "_tid").localDeletionTime()).isEqualTo(bExpiry);
        assertThat(cell(entry, byAb, "c").localDeletionTime()).isEqualTo(cExpiry);
        assertThat(markers(out).stream().map(m -> unixMillis(m.id()) / 1000).filter(s -> s > bExpiry - 10).toList())
                .as("markers due at the first and the last expiry").hasSize(2)
                .anySatisfy(s -> assertThat(s).isBetween(bExpiry, bExpiry + 1))
                .anySatisfy(s -> assertThat(s).isBetween(aExpiry, aExpiry + 1));
    }

    private static long unixMillis(UUID timeuuid) {
        return (timeuuid.timestamp() - 0x01B21DD213814000L) / 10_000;
    }

    @Test
    void should_write_no_entry_and_queue_the_whole_partition_when_the_partition_is_deleted() {
        Collection<Mutation> out = write("DELETE FROM trigger_versioned.revisions WHERE key = 'gone'");

        assertThat(of(out, KS, BY_LENGTH)).isEmpty();
        assertThat(of(out, KS, BY_TID)).isEmpty();
        Marker marker = onlyMarker(out);
        assertThat(marker.wholePartition()).isTrue();
        assertThat(marker.has(QueueLayout.FLAG_DELETE)).isTrue();
        assertThat(text(marker.pk())).isEqualTo("gone");
    }

    @Test
    void should_write_no_entry_and_queue_the_version_when_one_row_is_deleted() {
        UUID tid = newTid();
        Collection<Mutation> out = write("DELETE FROM trigger_versioned.revisions WHERE key = 'd' AND tid = " + tid);

        assertThat(of(out, KS, BY_LENGTH)).isEmpty();
        Marker marker = onlyMarker(out);
        assertThat(marker.has(QueueLayout.FLAG_DELETE)).isTrue();
        assertThat(marker.tidMin()).isEqualTo(tid);
        assertThat(marker.tidMax()).isEqualTo(tid);
    }

    @Test
    void should_add_nothing_to_the_batch_and_write_a_cas_marker_itself_when_called_on_the_cas_path() {
        List<Mutation> written = new ArrayList<>();
        IndexTrigger onCasPath = new IndexTrigger(() -> false, written::addAll);
        UUID tid = newTid();

        Collection<Mutation> out = onCasPath.augment(update("INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('c', "
                + tid + ", 3, 'x') IF NOT EXISTS"));

        assertThat(out).as("Cassandra accepts only mutations of the base partition on the CAS path").isNullOrEmpty();
        Marker marker = onlyMarker(written);
        assertThat(marker.has(QueueLayout.FLAG_CAS)).isTrue();
        assertThat(marker.tidMin()).isEqualTo(tid);
        assertThat(of(written, KS, BY_LENGTH)).as("the service indexes it once a SERIAL read shows it applied").isEmpty();
    }

    @Test
    void should_leave_the_entry_out_and_flag_the_marker_too_large_when_its_key_takes_more_than_65535_bytes() {
        // by_length's entry key is (length, key); Cassandra's composite encoding adds 3 bytes per value
        ByteBuffer fits = varintOfBytes(65_535 - 3 - 3 - 1);
        ByteBuffer over = varintOfBytes(65_535 - 3 - 3);
        String insert = "INSERT INTO trigger_versioned.revisions (key, tid, length, value) VALUES ('k', ?, ?, 'v')";
        long before = counter("OversizedKeys");

        Collection<Mutation> largest = write(insert, TimeUUID.Generator.nextTimeUUID().toBytes(), fits);
        Collection<Mutation> tooLarge = write(insert, TimeUUID.Generator.nextTimeUUID().toBytes(), over);

        assertThat(of(largest, KS, BY_LENGTH)).hasSize(1);
        assertThat(onlyMarker(largest).has(QueueLayout.FLAG_TOO_LARGE)).isFalse();
        assertThat(of(tooLarge, KS, BY_LENGTH)).isEmpty();
        assertThat(of(tooLarge, KS, BY_TID)).as("the other index is not affected").hasSize(1);
        assertThat(onlyMarker(tooLarge).has(QueueLayout.FLAG_TOO_LARGE)).isTrue();
        assertThat(counter("OversizedKeys") - before).isEqualTo(1);
    }

    /** A positive varint whose two's-complement encoding takes exactly {@code bytes} bytes. */
    private static ByteBuffer varintOfBytes(int bytes) {
        ByteBuffer b = IntegerType.instance.decompose(BigInteger.ONE.shiftLeft(bytes * 8 - 2));
        assertThat(b.remaining()).isEqualTo(bytes);
        return b;
    }
}
