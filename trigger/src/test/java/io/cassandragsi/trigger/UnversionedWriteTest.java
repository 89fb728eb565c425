package io.cassandragsi.trigger;

import static io.cassandragsi.trigger.OfflineCassandra.cell;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.db.marshal.TimeUUIDType;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger on an unversioned table (README, the timestamp rule for unversioned tables): a base
 * cell written at {@code w} microseconds is version {@code tid(w)}, and every index cell derived
 * from it mirrors it, at {@code 10·w} with the base cell's TTL, without a row marker.
 */
class UnversionedWriteTest {
    private static final String KS = "trigger_unversioned";
    private static final String DEFINITION = """
            {
              "keyspace": "trigger_unversioned",
              "table": "users",
              "attributes": { "id": "string", "email": "string", "country": "string", "age": "int", "name": "string" },
              "index": [ { "type": "hash", "attribute": "id" } ],
              "secondaryIndexes": {
                "by_email": [ { "type": "hash", "attribute": "email" }, { "type": "proj", "attribute": "name" } ],
                "by_country": [ { "type": "hash", "attribute": "country" }, { "type": "range", "attribute": "age" },
                                { "type": "proj", "attribute": "name" } ]
              }
            }
            """;
    private static final String BY_EMAIL = "idx_users_by_email_ever";
    private static final String BY_COUNTRY = "idx_users_by_country_ever";
    /** A write timestamp in microseconds, 2026-01-01T00:00:00.123456Z. */
    private static final long W = 1_767_225_600_123_456L;

    private final IndexTrigger trigger = new IndexTrigger(() -> true, markers -> fail("no CAS marker expected"));

    @BeforeAll
    static void schema() {
        OfflineCassandra.define(DEFINITION);
    }

    @Test
    void should_mirror_the_base_cells_at_ten_times_their_timestamp_without_a_row_marker_when_a_row_is_written() {
        Collection<Mutation> out = trigger.augment(update("INSERT INTO trigger_unversioned.users (id, email, country, age, name)"
                + " VALUES ('u1', 'ann@example.com', 'fr', 34, 'Ann') USING TIMESTAMP " + W));

        for (String index : List.of(BY_EMAIL, BY_COUNTRY)) {
            TableMetadata t = table(KS, index);
            Row entry = onlyRow(of(out, KS, index).get(0));
            assertThat(entry.primaryKeyLivenessInfo().isEmpty()).as("%s: an entry lives as long as its _tid", index).isTrue();
            Cell<?> tid = cell(entry, t, "_tid");
            UUID version = TimeUUIDType.instance.compose(tid.buffer()).asUUID();
            assertThat(ts(version)).as("%s: _tid is tid(w), the timeuuid of tick 10·w", index).isEqualTo(10 * W);
            assertThat(tid.timestamp()).isEqualTo(10 * W);
            assertThat(tid.isExpiring()).isFalse();
            assertThat(text(cell(entry, t, "name").buffer())).isEqualTo("Ann");
            assertThat(cell(entry, t, "name").timestamp()).isEqualTo(10 * W);
            assertThat(cell(entry, t, "_deleted")).isNull();
        }
        assertThat(text(of(out, KS, BY_EMAIL).get(0).partitionKey().getKey())).isEqualTo("ann@example.com");

        TableMetadata rowsTable = table(KS, RowsLayout.tableName("users"));
        Row rows = onlyRow(of(out, KS, rowsTable.name).get(0));
        assertThat(LongType.instance.compose(cell(rows, rowsTable, RowsLayout.WRITTEN).buffer()))
                .as("the newest write of the row the trigger saw").isEqualTo(W);
        List<Cell<?>> keys = new ArrayList<>();
        rows.getComplexColumnData(rowsTable.getColumn(ByteBufferUtil.bytes(RowsLayout.KEYS))).forEach(keys::add);
        assertThat(keys).as("one entry key per index").hasSize(2);

        Marker marker = markers(out).get(0);
        assertThat(markers(out)).hasSize(1);
        assertThat(ts(marker.tidMin())).isEqualTo(10 * W);
        assertThat(marker.tidMax()).isEqualTo(marker.tidMin());
        assertThat(marker.flags()).isZero();
    }

    @Test
    void should_copy_the_exact_expiry_of_the_base_cells_when_the_row_is_written_with_a_ttl() {
        PartitionUpdate base = update("INSERT INTO trigger_unversioned.users (id, email, country, age, name)"
                + " VALUES ('u2', 'bob@example.com', 'de', 41, 'Bob') USING TIMESTAMP " + W + " AND TTL 3600");
        long expiry = cell(onlyRow(base), base.metadata(), "email").localDeletionTime();

        Collection<Mutation> out = trigger.augment(base);

        TableMetadata t = table(KS, BY_EMAIL);
        Row entry = onlyRow(of(out, KS, BY_EMAIL).get(0));
        for (String column : List.of("_tid", "name")) {
            Cell<?> c = cell(entry, t, column);
            assertThat(c.ttl()).as(column).isEqualTo(3600);
            assertThat(c.localDeletionTime()).as(column).isEqualTo(expiry);
            assertThat(c.timestamp()).as(column).isEqualTo(10 * W);
        }
        assertThat(markers(out)).singleElement().satisfies(m -> assertThat(m.has(QueueLayout.FLAG_DELETE)).isTrue());
    }

    @Test
    void should_write_no_entry_for_an_index_whose_key_the_update_does_not_carry_and_flag_the_marker_partial() {
        Collection<Mutation> out = trigger.augment(update("UPDATE trigger_unversioned.users USING TIMESTAMP " + W
                + " SET email = 'cy@example.com' WHERE id = 'u3'"));

        assertThat(of(out, KS, BY_EMAIL)).hasSize(1);
        assertThat(cell(onlyRow(of(out, KS, BY_EMAIL).get(0)), table(KS, BY_EMAIL), "name"))
                .as("the projection is not in the update: left to the service, not erased").isNull();
        assertThat(of(out, KS, BY_COUNTRY)).as("country and age are not in the update").isEmpty();
        assertThat(markers(out)).singleElement().satisfies(m -> assertThat(m.has(QueueLayout.FLAG_PARTIAL)).isTrue());
    }

    @Test
    void should_queue_the_row_and_write_no_entry_when_the_row_is_deleted() {
        Collection<Mutation> out = trigger.augment(update("DELETE FROM trigger_unversioned.users USING TIMESTAMP " + W + " WHERE id = 'u4'"));

        assertThat(of(out, KS, BY_EMAIL)).isEmpty();
        assertThat(of(out, KS, BY_COUNTRY)).isEmpty();
        assertThat(markers(out)).singleElement().satisfies(m -> {
            assertThat(m.has(QueueLayout.FLAG_DELETE)).isTrue();
            assertThat(text(m.pk())).isEqualTo("u4");
        });
    }
}
