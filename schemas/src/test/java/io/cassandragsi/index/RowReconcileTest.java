package io.cassandragsi.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.RowReconcile.BaseCell;
import io.cassandragsi.index.RowReconcile.BaseRow;
import io.cassandragsi.index.RowReconcile.EntryState;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowReconcileTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "k", "table": "users",
             "attributes": {"id": "string", "email": "string", "country": "string", "age": "int", "name": "string"},
             "index": [{"type": "hash", "attribute": "id"}],
             "secondaryIndexes": {
               "by_email": [{"type": "hash", "attribute": "email"}, {"type": "proj", "attribute": "name"}],
               "by_country": [{"type": "hash", "attribute": "country"}, {"type": "range", "attribute": "age"}]}}""", "users.json");
    private static final TablePlan PLAN = TablePlan.of(DEF);
    private static final IndexPlan BY_EMAIL = PLAN.indexes().get(0);
    private static final IndexPlan BY_COUNTRY = PLAN.indexes().get(1);
    private static final int ID = 0, EMAIL = 1, COUNTRY = 2, AGE = 3, NAME = 4;

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer integer(int v) {
        return ByteBuffer.allocate(4).putInt(0, v);
    }

    private static BaseRow row(BaseCell email, BaseCell country, BaseCell age, BaseCell name) {
        return new BaseRow(new BaseCell[] {BaseCell.key(text("u1")), email, country, age, name});
    }

    private static BaseCell cell(ByteBuffer v, long writetime) {
        return new BaseCell(v, writetime, 0);
    }

    private static ByteBuffer tid(long ticks) {
        return Tids.bytes(Tids.minAtTicks(ticks));
    }

    private static EntryState entry(long tidTicks, Long deletedTicks, ByteBuffer name, long nameTs) {
        return new EntryState(tid(tidTicks), deletedTicks == null ? null : tid(deletedTicks), new ByteBuffer[] {name},
                new long[] {name == null ? Long.MIN_VALUE : nameTs});
    }

    private static long ticks(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    @Test
    void should_write_the_current_entry_at_its_newest_key_cell_and_mark_the_old_one_after_its_tid() {
        BaseRow now = row(cell(text("b@x"), 300), BaseCell.DEAD, BaseCell.DEAD, cell(text("Ann"), 100));
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        List<ByteBuffer> old = List.of(text("a@x"), text("u1"));
        entries.put(old, entry(1000, null, text("Ann"), 1000));
        List<TablePlan.IndexWrite> writes = RowReconcile.reconcile(PLAN, BY_EMAIL, now, List.of(old), entries, Long.MIN_VALUE, Long.MAX_VALUE);

        assertThat(writes).hasSize(2);
        TablePlan.Reconciled live = (TablePlan.Reconciled) writes.get(0);
        assertThat(live.key()).containsExactly(text("b@x"), text("u1"));
        assertThat(live.timestamp()).isEqualTo(3000);
        assertThat(ticks(live.tid())).isEqualTo(3000);
        assertThat(live.ttl()).isZero();
        assertThat(live.proj()[0].value()).isEqualTo(text("Ann"));
        assertThat(live.proj()[0].timestamp()).as("a projection keeps its own cell's timestamp").isEqualTo(1000);
        TablePlan.MarkDeleted mark = (TablePlan.MarkDeleted) writes.get(1);
        assertThat(mark.key()).isEqualTo(old);
        assertThat(ticks(mark.deletedAt())).as("stopped when the email cell that differs was written").isEqualTo(3001);
        assertThat(mark.timestamp()).isEqualTo(3001);
    }

    @Test
    void should_leave_the_entry_of_a_write_the_rows_table_does_not_show_yet_to_that_write_s_marker() {
        // the row shows its write at 300 (b@x); a write at 400 gave it a@x: its entry landed, its base cells and
        // rows-table element (one mutation) not yet. Marking a@x would hide that write once it lands.
        BaseRow now = row(cell(text("b@x"), 300), BaseCell.DEAD, BaseCell.DEAD, cell(text("Ann"), 100));
        List<ByteBuffer> landing = List.of(text("a@x"), text("u1"));
        Map<List<ByteBuffer>, EntryState> entries = Map.of(landing, entry(4000, null, text("Ann"), 4000));

        assertThat(RowReconcile.reconcile(PLAN, BY_EMAIL, now, List.of(landing), entries, 300, 300))
                .noneMatch(w -> w.key().equals(landing));
        // once the rows table shows a write at 400 or later, the entry is judged as before
        assertThat(RowReconcile.reconcile(PLAN, BY_EMAIL, now, List.of(landing), entries, 400, 400))
                .anyMatch(w -> w.key().equals(landing) && w instanceof TablePlan.MarkDeleted);
    }

    @Test
    void should_give_an_entry_that_matches_again_while_marked_a_tid_after_the_mark() {
        // (fr, 20) was marked at 5001 when age changed; an older country write made it match again
        BaseRow now = row(BaseCell.DEAD, cell(text("fr"), 400), cell(integer(20), 450), BaseCell.DEAD);
        List<ByteBuffer> key = List.of(text("fr"), integer(20), text("u1"));
        Map<List<ByteBuffer>, EntryState> entries = Map.of(key, new EntryState(tid(4000), tid(5001), new ByteBuffer[0], new long[0]));
        List<TablePlan.IndexWrite> writes = RowReconcile.reconcile(PLAN, BY_COUNTRY, now, List.of(key), entries, Long.MIN_VALUE, Long.MAX_VALUE);

        assertThat(writes).hasSize(1);
        TablePlan.Reconciled live = (TablePlan.Reconciled) writes.get(0);
        assertThat(ticks(live.tid())).isEqualTo(5002);
        assertThat(live.timestamp()).isEqualTo(5002);
        EntryState after = new EntryState(live.tid(), tid(5001), new ByteBuffer[0], new long[0]);
        assertThat(after.matches()).isTrue();
    }

    @Test
    void should_expire_an_entry_with_the_first_key_cell_to_expire_and_no_earlier() {
        BaseRow now = row(BaseCell.DEAD, new BaseCell(text("fr"), 400, 30), new BaseCell(integer(20), 500, 7), BaseCell.DEAD);
        TablePlan.Reconciled live = (TablePlan.Reconciled) RowReconcile.reconcile(PLAN, BY_COUNTRY, now, List.of(), Map.of(), Long.MIN_VALUE, Long.MAX_VALUE).get(0);
        assertThat(live.ttl()).as("TTL() is whole seconds left: one more, so the entry never expires before its cell").isEqualTo(8);
        assertThat(live.timestamp()).isEqualTo(5000);
    }

    @Test
    void should_delete_a_projection_the_base_no_longer_has_at_exactly_the_entry_cells_timestamp() {
        BaseRow now = row(cell(text("a@x"), 100), BaseCell.DEAD, BaseCell.DEAD, BaseCell.DEAD);
        List<ByteBuffer> key = List.of(text("a@x"), text("u1"));
        Map<List<ByteBuffer>, EntryState> entries = Map.of(key, entry(1000, null, text("Ann"), 2000));
        TablePlan.Reconciled live = (TablePlan.Reconciled) RowReconcile.reconcile(PLAN, BY_EMAIL, now, List.of(key), entries, Long.MIN_VALUE, Long.MAX_VALUE).get(0);
        assertThat(live.proj()[0].value()).isNull();
        assertThat(live.proj()[0].timestamp()).as("a tombstone wins a tie").isEqualTo(2000);
    }

    @Test
    void should_mark_the_entries_of_a_deleted_row_at_the_delete_and_leave_marked_or_expired_ones_alone() {
        BaseRow gone = row(BaseCell.DEAD, BaseCell.DEAD, BaseCell.DEAD, BaseCell.DEAD);
        List<ByteBuffer> live = List.of(text("a@x"), text("u1"));
        List<ByteBuffer> marked = List.of(text("b@x"), text("u1"));
        List<ByteBuffer> expired = List.of(text("c@x"), text("u1"));
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        entries.put(live, entry(1000, 900L, null, 0));
        entries.put(marked, entry(800, 1200L, null, 0));
        entries.put(expired, new EntryState(null, null, new ByteBuffer[1], new long[] {Long.MIN_VALUE}));
        List<TablePlan.IndexWrite> writes = RowReconcile.reconcile(PLAN, BY_EMAIL, gone, List.of(live, marked, expired), entries, 50, Long.MAX_VALUE);

        assertThat(writes).hasSize(1);
        TablePlan.MarkDeleted mark = (TablePlan.MarkDeleted) writes.get(0);
        assertThat(mark.key()).isEqualTo(live);
        assertThat(ticks(mark.deletedAt())).as("after its _tid even when the delete's hint is older").isEqualTo(1001);
        assertThat(ticks(((TablePlan.MarkDeleted) RowReconcile.reconcile(PLAN, BY_EMAIL, gone, List.of(live), entries, 5000, Long.MAX_VALUE).get(0)).deletedAt()))
                .as("at the delete when it is later").isEqualTo(50001);
    }

    @Test
    void should_write_no_entry_for_a_key_cell_that_is_null() {
        BaseRow now = row(cell(text("a@x"), 100), cell(text("fr"), 100), BaseCell.DEAD, BaseCell.DEAD);
        assertThat(RowReconcile.reconcile(PLAN, BY_COUNTRY, now, List.of(), Map.of(), Long.MIN_VALUE, Long.MAX_VALUE)).isEmpty();
        assertThat(RowReconcile.tidOfMicros(123)).isEqualTo(tid(1230));
    }

    @Test
    void should_forget_only_old_keys_whose_entry_no_longer_matches_and_never_the_current_one() {
        long now = 10_000_000; // the row's newest write, microseconds
        BaseRow row = row(cell(text("c@x"), now), BaseCell.DEAD, BaseCell.DEAD, cell(text("Ann"), 100));
        List<ByteBuffer> marked = List.of(text("a@x"), text("u1"));
        List<ByteBuffer> stillMatching = List.of(text("b@x"), text("u1"));
        List<ByteBuffer> recent = List.of(text("d@x"), text("u1"));
        List<ByteBuffer> noEntry = List.of(text("e@x"), text("u1"));
        List<ByteBuffer> markedBefore = List.of(text("f@x"), text("u1"));
        List<ByteBuffer> current = List.of(text("c@x"), text("u1"));
        Map<List<ByteBuffer>, Long> recorded = new java.util.LinkedHashMap<>();
        recorded.put(marked, 1_000L);
        recorded.put(stillMatching, 2_000L);
        recorded.put(recent, now - 500_000); // within the second before the newest write: may be a write in flight
        recorded.put(noEntry, 3_000L);
        recorded.put(markedBefore, 5_000L); // recorded again after its entry was marked: its new entry may still be on its way
        recorded.put(current, now);
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        entries.put(marked, entry(10_000, 20_000L, text("Ann"), 1000));
        entries.put(stillMatching, entry(20_000, null, text("Ann"), 1000));
        entries.put(recent, entry(30_000, 40_000L, text("Ann"), 1000));
        entries.put(markedBefore, entry(10_000, 20_000L, text("Ann"), 1000));
        entries.put(current, entry(now * 10, null, text("Ann"), 1000));

        assertThat(RowReconcile.settled(PLAN, BY_EMAIL, row, recorded, entries, now))
                .as("an entry that shows nothing after its key was recorded: another reconcile may be writing it").containsExactly(marked);
        long minuteLater = now + RowReconcile.UNSEEN_SETTLE_MICROS + 1;
        BaseRow later = row(cell(text("c@x"), minuteLater), BaseCell.DEAD, BaseCell.DEAD, cell(text("Ann"), 100));
        recorded.put(current, minuteLater);
        assertThat(RowReconcile.settled(PLAN, BY_EMAIL, later, recorded, entries, minuteLater)).as("a minute on, no step is still writing them")
                .containsExactlyInAnyOrder(marked, noEntry, markedBefore, recent);
        assertThat(RowReconcile.settled(PLAN, BY_EMAIL, row, recorded, entries, Long.MIN_VALUE)).as("no newest write known").isEmpty();
    }
}
