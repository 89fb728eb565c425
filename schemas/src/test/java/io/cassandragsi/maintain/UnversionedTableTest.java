package io.cassandragsi.maintain;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The repair core's orchestration of an unversioned table ({@link UnversionedTable} and {@link
 * Reconcile}, docs/design.md section 6.6) through the in-memory twins ({@link MemoryStores}), on the
 * service's storage and on the in-node maintainer's: when a write counts as visible, what is
 * recorded at once and what reaches the sink, and what each outcome is.
 */
class UnversionedTableTest {
    static final TablePlan PLAN = TablePlan.of(Definitions.read(Path.of("examples/users.json")));
    static final IndexPlan BY_EMAIL = VersionedTableTest.index(PLAN, "by_email");
    static final long T0 = VersionedTableTest.T0;
    static final List<ByteBuffer> U = List.of(text("u"));

    long now = T0;
    final MemoryStores stores = MemoryStores.of(PLAN, () -> now);
    final MemoryTrigger trigger = new MemoryTrigger(stores, () -> now);
    final RepairCounters counters = new RepairCounters();

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Attribute names and values, in pairs (a null value is written as a tombstone). */
    static Map<String, ByteBuffer> cells(Object... kv) {
        Map<String, ByteBuffer> out = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            out.put((String) kv[i], kv[i + 1] == null ? null : text((String) kv[i + 1]));
        }
        return out;
    }

    /** Client timestamp {@code millis} after T0, in microseconds. */
    static long at(long millis) {
        return (T0 + millis) * 1000L;
    }

    MemoryTrigger.Batch update(long w, Object... kv) {
        return trigger.write(U, cells(kv), false, w, 0);
    }

    Outcome repair(MemoryStores on, MarkerGroup g) {
        return TableKind.of(PLAN, on, counters).repair(g, null, on.sink());
    }

    RowReconcile.EntryState email(String email) {
        return stores.entries.entryState(BY_EMAIL, List.of(text(email), text("u")));
    }

    @Test
    void should_write_the_current_entry_and_mark_the_old_one_when_the_rows_table_shows_the_write() {
        MemoryTrigger.Batch w1 = update(at(0), "email", "a@x", "name", "n1");
        w1.land();
        assertThat(repair(stores.node(), w1.group())).isEqualTo(Outcome.DONE);
        MemoryTrigger.Batch w2 = update(at(100), "email", "b@x");
        w2.land();

        assertThat(repair(stores.node(), w2.group())).as("a plain reconcile is the node's too").isEqualTo(Outcome.DONE);
        assertThat(email("a@x").matches()).isFalse();
        assertThat(WriteTimestamps.ofSerialized(email("a@x").deleted())).as("marked just after the write that changed the key")
                .isEqualTo(RowReconcile.ticksOfMicros(at(100)) + 1);
        RowReconcile.EntryState b = email("b@x");
        assertThat(b.matches()).isTrue();
        assertThat(b.tidTimestamp()).isEqualTo(RowReconcile.ticksOfMicros(at(100)));
        assertThat(b.proj()).containsExactly(text("n1"));
        assertThat(b.projTimestamp()).containsExactly(RowReconcile.ticksOfMicros(at(0)));
        assertThat(counters.diffs.sum()).isEqualTo(2);
        assertThat(counters.markedDeleted.sum()).isEqualTo(1);
        assertThat(stores.sent).as("the writes recorded their keys: nothing written at once").noneMatch(MemoryStores.Sent::now);
    }

    @Test
    void should_record_the_current_key_again_when_its_element_is_older_than_its_key_cells() {
        MemoryTrigger.Batch w1 = update(at(0), "country", "fr", "age", "20");
        w1.land();
        repair(stores, w1.group());
        MemoryTrigger.Batch w2 = update(at(100), "country", "de"); // by_country's key not carried whole: not recorded by the trigger
        w2.land();
        repair(stores, w2.group());
        MemoryTrigger.Batch w3 = update(at(2_000), "country", "fr"); // (fr, 20) again: its element is W1's
        w3.land();
        int before = stores.sent.size();

        assertThat(repair(stores, w3.group())).as("it makes (fr, 20)'s marked entry match again").isEqualTo(Outcome.AGAIN);
        List<ByteBuffer> fr = List.of(text("fr"), text("20"), text("u"));
        assertThat(stores.sent.get(before).now()).as("recorded again before its entry is written").isTrue();
        RowsWrite.AddKeys again = (RowsWrite.AddKeys) stores.sent.get(before).rows().get(0);
        assertThat(again.keys().get("by_country")).containsExactly(fr);
        assertThat(again.at()).as("above _w").isEqualTo(at(2_000) + 1);
        // another maintainer's reconcile that read the row before W3 forgets (fr, 20) at its element's write time
        stores.apply(new RowsWrite.ForgetKeys(U, Map.of("by_country", Map.of(fr, at(0)))));
        assertThat(stores.records.record(U).join().keys("by_country")).as("the forget shadows only W1's element").contains(fr);
    }

    @Test
    void should_retry_and_write_nothing_when_the_rows_table_does_not_show_the_write_yet() {
        update(at(0), "email", "a@x").land();
        MemoryTrigger.Batch w2 = update(at(100), "email", "b@x");
        w2.entries().forEach(Runnable::run); // its entry landed, its base row and rows-table record not yet

        assertThat(repair(stores, w2.group())).isEqualTo(Outcome.RETRY);
        assertThat(repair(stores.node(), w2.group())).isEqualTo(Outcome.RETRY);
        assertThat(stores.sent).isEmpty();
        assertThat(email("a@x").matches()).isTrue();

        w2.base().run();
        assertThat(repair(stores, w2.group())).isEqualTo(Outcome.DONE);
        assertThat(email("a@x").matches()).isFalse();
    }

    @Test
    void should_say_again_when_the_rows_table_shows_a_later_write_of_the_row() {
        update(at(0), "email", "a@x").land();
        MemoryTrigger.Batch w2 = update(at(100), "email", "b@x");
        MemoryTrigger.Batch w3 = update(at(200), "email", "c@x");
        w3.land();
        w2.land();

        assertThat(repair(stores.node(), w2.group())).as("an earlier write may still be in flight").isEqualTo(Outcome.AGAIN);
        assertThat(repair(stores.node(), w2.group().withUnseenGone())).isEqualTo(Outcome.AGAIN);
        assertThat(repair(stores.node(), w3.group())).isEqualTo(Outcome.DONE);
        assertThat(email("a@x").matches()).isFalse();
        assertThat(email("b@x").matches()).isFalse();
        assertThat(email("c@x").matches()).isTrue();
    }

    @Test
    void should_say_again_when_a_group_coalesces_writes_and_done_when_it_holds_one() {
        MemoryTrigger.Batch w1 = update(at(0), "email", "a@x");
        MemoryTrigger.Batch w2 = update(at(100), "email", "b@x");
        w1.land();
        w2.land();
        MarkerGroup both = MarkerGroup.coalesce(List.of(w1.marker(), w2.marker())).get(0);

        assertThat(repair(stores.node(), both)).as("the older write of the group may still be landing its entry").isEqualTo(Outcome.AGAIN);
        assertThat(repair(stores.node(), w2.group())).isEqualTo(Outcome.DONE);
    }

    @Test
    void should_hand_off_on_the_node_and_reconcile_again_on_the_service_when_the_row_is_deleted() {
        MemoryTrigger.Batch w1 = update(at(0), "email", "a@x", "name", "n1");
        w1.land();
        repair(stores, w1.group());
        int before = stores.sent.size();
        MemoryTrigger.Batch delete = trigger.deleteRow(U, at(100));
        delete.land();
        MarkerGroup g = delete.group();
        assertThat(g.wholePartition()).as("a row delete of a table without clustering columns is a partition delete").isTrue();

        assertThat(repair(stores.node(), g)).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).hasSize(before);
        assertThat(repair(stores, g)).isEqualTo(Outcome.AGAIN);
        assertThat(email("a@x").matches()).isFalse();
    }

    @Test
    void should_read_at_serial_and_record_the_key_first_when_the_write_was_conditional() {
        // a conditional write: the trigger adds nothing (no entry, no rows-table record), only a marker
        stores.current.write(U, cells("email", "a@x", "name", "n1"), true, at(0), 0).run();
        ByteBuffer version = RowReconcile.tidOfMicros(at(0));
        MarkerGroup g = MarkerGroup.coalesce(List.of(trigger.marker(U, Tids.uuid(version), Tids.uuid(version), QueueLayout.FLAG_CAS))).get(0).withSerial();

        assertThat(repair(stores.node(), g)).isEqualTo(Outcome.HANDOFF);
        assertThat(stores.sent).isEmpty();
        assertThat(repair(stores, g)).as("whether it applied, the SERIAL read tells; once more later").isEqualTo(Outcome.AGAIN);
        assertThat(stores.current.levels).containsExactly(ReadLevel.SERIAL);
        assertThat(stores.sent).hasSize(2);
        assertThat(stores.sent.get(0).now()).as("the key the row has, recorded before its entry is written").isTrue();
        RowsWrite.AddKeys added = (RowsWrite.AddKeys) stores.sent.get(0).rows().get(0);
        assertThat(added.keys().get("by_email")).containsExactly(List.of(text("a@x"), text("u")));
        assertThat(added.at()).isEqualTo(at(0));
        assertThat(stores.sent.get(1).index()).extracting(TablePlan.IndexWrite::key).contains(List.of(text("a@x"), text("u")));
        assertThat(stores.records.record(U).join().keys("by_email")).containsExactly(List.of(text("a@x"), text("u")));
        assertThat(email("a@x").matches()).isTrue();
    }

    @Test
    void should_forget_a_key_and_count_it_when_it_no_longer_matches_and_is_a_second_older_than_the_row() {
        MemoryTrigger.Batch w1 = update(at(0), "email", "a@x");
        w1.land();
        repair(stores, w1.group());
        MemoryTrigger.Batch w2 = update(at(2_000), "email", "b@x");
        w2.land();
        repair(stores, w2.group());
        assertThat(stores.records.record(U).join().keys("by_email")).as("its entry matched when read").hasSize(2);

        MemoryTrigger.Batch w3 = update(at(2_500), "name", "n1");
        w3.land();
        assertThat(repair(stores, w3.group())).isEqualTo(Outcome.DONE);
        assertThat(stores.sent.get(stores.sent.size() - 1).rows()).singleElement().isInstanceOf(RowsWrite.ForgetKeys.class);
        assertThat(stores.records.record(U).join().keys("by_email")).containsExactly(List.of(text("b@x"), text("u")));
        assertThat(counters.forgotten.sum()).isEqualTo(1);
    }

    @Test
    void should_reconcile_every_row_with_the_partition_delete_as_hint_when_the_table_has_clustering_columns() {
        TablePlan plan = TablePlan.of(Definitions.parse("""
                {
                  "keyspace": "ks", "table": "events",
                  "attributes": { "stream": "string", "seq": "string", "kind": "string" },
                  "index": [ { "type": "hash", "attribute": "stream" }, { "type": "range", "attribute": "seq" } ],
                  "secondaryIndexes": { "by_kind": [ { "type": "hash", "attribute": "kind" } ] }
                }
                """, "events.json"));
        MemoryStores events = MemoryStores.of(plan, () -> now);
        MemoryTrigger t = new MemoryTrigger(events, () -> now);
        IndexPlan byKind = plan.indexes().get(0);
        for (String seq : List.of("1", "2")) {
            MemoryTrigger.Batch b = t.write(List.of(text("s"), text(seq)), cells("kind", "k" + seq), true, at(0), 0);
            b.land();
            assertThat(TableKind.of(plan, events, counters).repair(b.group(), null, events.sink())).isEqualTo(Outcome.DONE);
        }
        MemoryTrigger.Batch delete = t.deletePartition(List.of(text("s")), at(100));
        delete.land();
        assertThat(events.records.partition(List.of(text("s"))).partitionWritten()).isEqualTo(at(100));
        events.current.write(List.of(text("s"), text("2")), cells("kind", "k2"), false, at(200), 0).run(); // written again since
        // and a row the rows table never heard of (written without the trigger)
        events.current.write(List.of(text("s"), text("3")), cells("kind", "k3"), true, at(300), 0).run();

        TableKind kind = TableKind.of(plan, events.node(), counters);
        assertThat(kind.repair(delete.group(), null, events.sink())).isEqualTo(Outcome.HANDOFF);
        kind = TableKind.of(plan, events, counters);
        assertThat(kind.repair(delete.group(), null, events.sink())).isEqualTo(Outcome.AGAIN);
        RowReconcile.EntryState k1 = events.entries.entryState(byKind, List.of(text("k1"), text("s"), text("1")));
        assertThat(k1.matches()).isFalse();
        assertThat(WriteTimestamps.ofSerialized(k1.deleted())).as("marked just after the partition delete (_pw)")
                .isEqualTo(RowReconcile.ticksOfMicros(at(100)) + 1);
        assertThat(events.entries.entryState(byKind, List.of(text("k2"), text("s"), text("2"))).matches()).isTrue();
        assertThat(events.entries.entryState(byKind, List.of(text("k3"), text("s"), text("3"))).matches()).isTrue();
        assertThat(events.records.record(List.of(text("s"), text("3"))).join().keys("by_kind")).as("recorded before its entry was written")
                .containsExactly(List.of(text("k3"), text("s"), text("3")));
        // row 3's key, and row 2's again: its element (at 0) is older than its key cell (at 200)
        assertThat(events.sent.stream().filter(MemoryStores.Sent::now).flatMap(x -> x.rows().stream())).hasSize(2)
                .allSatisfy(w -> assertThat(w).isInstanceOf(RowsWrite.AddKeys.class)).extracting(w -> ((RowsWrite.AddKeys) w).at())
                .containsExactlyInAnyOrder(at(200), at(300));
    }
}
