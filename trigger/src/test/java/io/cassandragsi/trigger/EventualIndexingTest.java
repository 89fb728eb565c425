package io.cassandragsi.trigger;

import static io.cassandragsi.trigger.OfflineCassandra.markers;
import static io.cassandragsi.trigger.OfflineCassandra.of;
import static io.cassandragsi.trigger.OfflineCassandra.onlyRow;
import static io.cassandragsi.trigger.OfflineCassandra.table;
import static io.cassandragsi.trigger.OfflineCassandra.ts;
import static io.cassandragsi.trigger.OfflineCassandra.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.TimeUUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger on tables in eventual indexing (docs/design.md section 7.11), fed the updates
 * Cassandra makes of real CQL writes, without a node: it adds nothing to the write, hands the
 * maintainer what it would have added, and indexes atomically when the maintainer refuses.
 */
class EventualIndexingTest {
    private static final String KS = "trigger_eventual";
    private static final String VERSIONED = """
            {
              "keyspace": "trigger_eventual", "table": "revisions", "indexing": "eventual",
              "attributes": { "key": "string", "tid": "timeuuid", "length": "varint", "value": "string" },
              "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": {
                "by_length": [ { "type": "hash", "attribute": "length" }, { "type": "proj", "attribute": "value" } ],
                "by_tid": [ { "type": "hash", "attribute": "tid" } ]
              }
            }
            """;
    private static final String UNVERSIONED = """
            {
              "keyspace": "trigger_eventual", "table": "users", "indexing": "eventual",
              "attributes": { "id": "string", "email": "string", "name": "string" },
              "index": [ { "type": "hash", "attribute": "id" } ],
              "secondaryIndexes": { "by_email": [ { "type": "hash", "attribute": "email" }, { "type": "proj", "attribute": "name" } ] }
            }
            """;
    /** The same versioned table in atomic indexing, maintained in the node. */
    private static final String ATOMIC_NODE = VERSIONED.replace("\"revisions\", \"indexing\": \"eventual\"", "\"pages\", \"maintenance\": \"node\"");
    private static final String BY_LENGTH = "idx_revisions_by_length_ever";
    private static final String BY_TID = "idx_revisions_by_tid_ever";

    /** A maintainer that takes (or refuses) what it is given and keeps it for the test to look at. */
    private static final class RecordingMaintainer implements NodeFeed {
        boolean refuse;
        final List<Mutation> committed = new ArrayList<>();
        final List<Marker> offered = new ArrayList<>();
        int opened;
        int abandoned;

        @Override
        public Marker offer(UUID id, String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags) {
            Marker m = new Marker(id, keyspace, table, pk, ck, tidMin, tidMax, flags);
            offered.add(m);
            return m;
        }

        @Override
        public int shard() {
            return NodeProgressLayout.FIRST_EPOCH_SHARD + 7;
        }

        @Override
        public Eventual eventual(String keyspace, String table, ByteBuffer pk) {
            opened++;
            RecordingMaintainer self = this;
            return new Eventual() {
                @Override
                public Marker offer(UUID id, String ks, String t, ByteBuffer p, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags) {
                    return self.offer(id, ks, t, p, ck, tidMin, tidMax, flags);
                }

                @Override
                public boolean commit(List<Mutation> mutations) {
                    if (refuse) {
                        return false;
                    }
                    committed.addAll(mutations);
                    return true;
                }

                @Override
                public void abandon() {
                    abandoned++;
                }
            };
        }
    }

    private final RecordingMaintainer maintainer = new RecordingMaintainer();
    private final IndexTrigger trigger = new IndexTrigger(() -> true, markers -> fail("no CAS marker expected"), table -> maintainer);

    @BeforeAll
    static void schema() {
        OfflineCassandra.define(VERSIONED);
        OfflineCassandra.define(UNVERSIONED);
        OfflineCassandra.define(ATOMIC_NODE);
    }

    private static UUID newTid() {
        return TimeUUID.Generator.nextTimeUUID().asUUID();
    }

    @Test
    void should_add_nothing_to_a_plain_write_and_hand_its_entries_rows_record_and_diff_to_the_maintainer() {
        UUID tid = newTid();
        Collection<Mutation> out = trigger.augment(update("INSERT INTO trigger_eventual.revisions (key, tid, length, value) VALUES ('k', "
                + tid + ", 7, 'x')"));

        assertThat(out).as("nothing rides in the write: Cassandra takes the plain path").isNull();
        List<Mutation> sent = maintainer.committed;
        Row entry = onlyRow(of(sent, KS, BY_LENGTH).get(0));
        assertThat(entry.primaryKeyLivenessInfo().timestamp()).as("the entry at TS(tid), as in atomic indexing").isEqualTo(ts(tid));
        assertThat(of(sent, KS, BY_TID)).hasSize(1);
        assertThat(of(sent, KS, RowsLayout.tableName("revisions"))).as("the rows-table record").hasSize(1);
        assertThat(markers(sent)).as("a plain write needs no marker: the maintainer diffs it").isEmpty();
        assertThat(maintainer.offered).singleElement().satisfies(m -> {
            assertThat(m.tidMin()).isEqualTo(tid);
            assertThat(m.tidMax()).isEqualTo(tid);
            assertThat(m.flags()).isZero();
        });
        assertThat(maintainer.abandoned).isZero();
    }

    @Test
    void should_send_the_repair_services_marker_of_a_delete_after_the_write() {
        Collection<Mutation> out = trigger.augment(update("DELETE FROM trigger_eventual.revisions WHERE key = 'd'"));

        assertThat(out).isNull();
        assertThat(maintainer.offered).as("a delete is the repair service's recompute").isEmpty();
        assertThat(markers(maintainer.committed)).singleElement().satisfies(m -> {
            assertThat(m.wholePartition()).isTrue();
            assertThat(m.has(QueueLayout.FLAG_DELETE)).isTrue();
            assertThat(NodeProgressLayout.isEpochShard(m.shard())).isFalse();
        });
    }

    @Test
    void should_index_atomically_with_the_service_markers_when_the_maintainer_refuses() {
        maintainer.refuse = true;
        UUID tid = newTid();
        Collection<Mutation> out = trigger.augment(update("INSERT INTO trigger_eventual.revisions (key, tid, length, value) VALUES ('r', "
                + tid + ", 9, 'y')"));

        assertThat(maintainer.committed).isEmpty();
        assertThat(of(out, KS, BY_LENGTH)).as("the entries in the write's batch").hasSize(1);
        assertThat(of(out, KS, RowsLayout.tableName("revisions"))).hasSize(1);
        assertThat(markers(out)).singleElement().satisfies(m -> {
            assertThat(m.tidMin()).isEqualTo(tid);
            assertThat(NodeProgressLayout.isEpochShard(m.shard())).as("the repair service diffs it: its shard, not an epoch's").isFalse();
        });
    }

    @Test
    void should_hand_an_unversioned_write_to_the_maintainer_for_its_reconcile() {
        Collection<Mutation> out = trigger.augment(update("INSERT INTO trigger_eventual.users (id, email, name) VALUES ('u1', 'a@b', 'Ann')"));

        assertThat(out).isNull();
        assertThat(of(maintainer.committed, KS, "idx_users_by_email_ever")).hasSize(1);
        assertThat(of(maintainer.committed, KS, RowsLayout.tableName("users"))).hasSize(1);
        assertThat(maintainer.offered).as("the reconcile that finds the entry the row had before").hasSize(1);
    }

    @Test
    void should_write_the_cas_marker_itself_and_open_no_eventual_write_on_the_cas_path() {
        List<Mutation> written = new ArrayList<>();
        IndexTrigger onCasPath = new IndexTrigger(() -> false, written::addAll, table -> maintainer);
        UUID tid = newTid();

        Collection<Mutation> out = onCasPath.augment(update("INSERT INTO trigger_eventual.revisions (key, tid, length, value) VALUES ('c', "
                + tid + ", 3, 'x') IF NOT EXISTS"));

        assertThat(out).isNullOrEmpty();
        assertThat(maintainer.opened).isZero();
        assertThat(markers(written)).singleElement().satisfies(m -> assertThat(m.has(QueueLayout.FLAG_CAS)).isTrue());
    }

    @Test
    void should_keep_atomic_node_mode_as_it_was_entries_in_the_batch_and_the_marker_in_the_epochs_shard() {
        UUID tid = newTid();
        Collection<Mutation> out = trigger.augment(update("INSERT INTO trigger_eventual.pages (key, tid, length, value) VALUES ('p', "
                + tid + ", 4, 'z')"));

        assertThat(maintainer.opened).isZero();
        TableMetadata byLength = table(KS, "idx_pages_by_length_ever");
        assertThat(of(out, KS, byLength.name)).hasSize(1);
        assertThat(markers(out)).singleElement().satisfies(m -> {
            assertThat(m.shard()).isEqualTo(maintainer.shard());
            assertThat(m.id()).isEqualTo(maintainer.offered.get(0).id());
        });
    }
}
