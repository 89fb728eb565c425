package io.cassandragsi.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.RowReconcile.BaseCell;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The unversioned rule on the users example (id; by_email: email, name projected): what a row's
 * cells say its entries are (docs/design.md section 4.3), how observed entries are judged, and
 * what a rebuild and a fix write. No node.
 */
class UnversionedEntriesTest {
    private static final TableDef DEF = Definitions.read(Path.of("examples/users.json"));
    private static final TablePlan PLAN = TablePlan.of(DEF);
    private static final IndexPlan BY_EMAIL = PLAN.indexes().stream().filter(p -> p.index().name().equals("by_email")).findFirst().orElseThrow();
    private final UnversionedEntries rule = new UnversionedEntries(PLAN);

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A users row (id, email, country, age, name): email written at {@code w} µs, name at {@code nameW} (null: dead cells). */
    private static RowHistory.Current row(String id, String email, long w, String name, long nameW) {
        BaseCell[] cells = new BaseCell[5];
        Arrays.fill(cells, BaseCell.DEAD);
        cells[0] = BaseCell.key(text(id));
        if (email != null) {
            cells[1] = new BaseCell(text(email), w, 0);
        }
        if (name != null) {
            cells[4] = new BaseCell(text(name), nameW, 30);
        }
        return new RowHistory.Current(new CurrentRow(List.of(text(id)), new RowReconcile.BaseRow(cells)));
    }

    private static List<ByteBuffer> key(String email, String id) {
        return List.of(text(email), text(id));
    }

    /** The tid of 100-ns tick {@code ticks}, as every unversioned index cell names it. */
    private static UUID tick(long ticks) {
        return Tids.minAtTicks(ticks);
    }

    private static Observed entry(UUID tid, UUID deleted, String name) {
        return Observed.of(tid, deleted, Collections.singletonList(name == null ? null : text(name)));
    }

    @Test
    void should_expect_the_key_of_the_live_cells_with_the_tick_of_the_newest_key_cell_when_a_row_is_read() {
        Map<List<ByteBuffer>, Expected> e = rule.expected(BY_EMAIL, row("u1", "a@x", 1_000, "Ann", 2_000));
        assertThat(e).containsExactly(Map.entry(key("a@x", "u1"), new Expected(tick(10_000), null, List.of(text("Ann")))));
        assertThat(rule.expected(BY_EMAIL, row("u1", null, 0, "Ann", 2_000))).as("a dead key cell: no entry").isEmpty();
        assertThat(rule.expected(BY_EMAIL, row("u1", "a@x", 1_000, null, 0)).get(key("a@x", "u1")).proj()).as("a dead projection")
                .containsExactly((ByteBuffer) null);
    }

    @Test
    void should_count_a_row_too_large_when_its_entry_key_is_over_the_limit() {
        RowHistory.Current big = row("u1", "x".repeat(70_000), 1_000, "Ann", 1_000);
        assertThat(rule.expected(BY_EMAIL, big)).isEmpty();
        assertThat(rule.tooLarge(BY_EMAIL, big)).isOne();
        assertThat(rule.tooLarge(BY_EMAIL, row("u1", "a@x", 1_000, "Ann", 1_000))).isZero();
    }

    @Test
    void should_find_nothing_when_the_entry_mirrors_the_row_or_matches_again_after_a_mark() {
        RowHistory.Current r = row("u1", "a@x", 1_000, "Ann", 2_000);
        Expected e = rule.expected(BY_EMAIL, r).get(key("a@x", "u1"));
        assertThat(rule.judge(BY_EMAIL, key("a@x", "u1"), e, entry(tick(10_000), null, "Ann"), r)).isEmpty();
        assertThat(rule.judge(BY_EMAIL, key("a@x", "u1"), e, entry(tick(10_000), tick(9_000), "Ann"), r)).as("an old mark before _tid").isEmpty();
        assertThat(rule.judge(BY_EMAIL, key("a@x", "u1"), e, entry(tick(10_006), tick(10_005), "Ann"), r))
                .as("marked after its key cell, then matching again one tick after the mark (section 4.3)").isEmpty();
    }

    @Test
    void should_report_each_kind_when_the_entry_of_the_current_key_differs() {
        RowHistory.Current r = row("u1", "a@x", 1_000, "Ann", 2_000);
        List<ByteBuffer> k = key("a@x", "u1");
        Expected e = rule.expected(BY_EMAIL, r).get(k);
        assertThat(rule.judge(BY_EMAIL, k, e, null, r)).containsExactly(Finding.MISSING);
        assertThat(rule.judge(BY_EMAIL, k, e, entry(tick(9_990), null, "Ann"), r)).as("an older tick").containsExactly(Finding.WRONG_TID);
        assertThat(rule.judge(BY_EMAIL, k, e, entry(null, null, "Ann"), r)).as("_tid expired").containsExactly(Finding.WRONG_TID);
        assertThat(rule.judge(BY_EMAIL, k, e, entry(tick(10_000), tick(10_005), "Ann"), r)).as("marked while the row has the key")
                .containsExactly(Finding.WRONG_DELETED);
        assertThat(rule.judge(BY_EMAIL, k, e, entry(tick(10_000), null, "Bob"), r)).containsExactly(Finding.WRONG_PROJECTION);
    }

    @Test
    void should_report_a_later_tid_that_no_mark_explains_when_the_repairer_would_leave_it() {
        // the repairer's reconcile writes _tid at the key cell's tick, which loses to a later cell: a dry run
        // of it saw nothing to do; the rule says the entry names a write the row never had
        RowHistory.Current r = row("u1", "a@x", 1_000, "Ann", 2_000);
        List<ByteBuffer> k = key("a@x", "u1");
        assertThat(rule.judge(BY_EMAIL, k, rule.expected(BY_EMAIL, r).get(k), entry(tick(50_000), null, "Ann"), r))
                .containsExactly(Finding.WRONG_TID);
        assertThat(rule.judge(BY_EMAIL, k, rule.expected(BY_EMAIL, r).get(k), entry(tick(10_007), tick(10_005), "Ann"), r))
                .as("not the tick after the mark").containsExactly(Finding.WRONG_TID);
    }

    @Test
    void should_call_an_entry_the_row_does_not_explain_an_orphan_only_while_it_claims_a_match() {
        RowHistory.Current r = row("u1", "b@x", 3_000, "Ann", 2_000);
        List<ByteBuffer> old = key("a@x", "u1");
        assertThat(rule.judge(BY_EMAIL, old, null, entry(tick(10_000), null, "Ann"), r)).containsExactly(Finding.ORPHAN);
        assertThat(rule.judge(BY_EMAIL, old, null, entry(tick(10_000), tick(30_001), "Ann"), r)).as("marked").isEmpty();
        assertThat(rule.judge(BY_EMAIL, old, null, entry(null, null, "Ann"), r)).as("expired _tid: matches nothing").isEmpty();
        assertThat(rule.judge(BY_EMAIL, old, null, null, r)).isEmpty();
    }

    @Test
    void should_write_the_mirrored_entry_and_record_its_key_above_the_rows_table_when_rebuilding() {
        RowHistory.Current r = row("u1", "a@x", 1_000, "Ann", 2_000);
        RowRecord record = new RowRecord(List.of(text("u1")), Map.of("by_email", Set.of(key("z@x", "u1"))), 5_000);
        Rewrite rw = rule.rebuild(r, record, List.of(BY_EMAIL), Map.of());
        assertThat(rw.first()).containsExactly(new RowsWrite.AddKeys(List.of(text("u1")), Map.of("by_email", List.of(key("a@x", "u1"))), 5_001));
        assertThat(rw.index()).hasSize(1);
        TablePlan.Reconciled w = (TablePlan.Reconciled) rw.index().get(0);
        assertThat(w.key()).isEqualTo(key("a@x", "u1"));
        assertThat(w.timestamp()).isEqualTo(10_000);
        assertThat(Tids.uuid(w.tid())).isEqualTo(tick(10_000));
        assertThat(w.proj()[0]).isEqualTo(new TablePlan.ProjCell(text("Ann"), 20_000, 31));
        assertThat(rw.after()).isEmpty();

        RowRecord known = new RowRecord(List.of(text("u1")), Map.of("by_email", Set.of(key("a@x", "u1"))), 5_000);
        assertThat(rule.rebuild(r, known, List.of(BY_EMAIL), Map.of()).first()).as("recorded already").isEmpty();
        assertThat(rule.rebuild(r, null, List.of(BY_EMAIL), Map.of()).first()).as("no record: at the key cell's write time")
                .containsExactly(new RowsWrite.AddKeys(List.of(text("u1")), Map.of("by_email", List.of(key("a@x", "u1"))), 1_000));
    }

    @Test
    void should_pass_a_mark_and_delete_a_dead_projection_at_its_own_timestamp_when_rebuilding_over_an_entry() {
        RowHistory.Current r = row("u1", "a@x", 1_000, null, 0);
        Observed marked = new Observed(tick(10_000), tick(10_005), Collections.singletonList(text("Ann")), 10_000, 10_005,
                new long[] {20_000});
        Rewrite rw = rule.rebuild(r, null, List.of(BY_EMAIL), Map.of(BY_EMAIL, Map.of(key("a@x", "u1"), marked)));
        TablePlan.Reconciled w = (TablePlan.Reconciled) rw.index().get(0);
        assertThat(Tids.uuid(w.tid())).as("the tick after the mark").isEqualTo(tick(10_006));
        assertThat(w.proj()[0]).isEqualTo(new TablePlan.ProjCell(null, 20_000, 0));
    }

    @Test
    void should_fix_only_the_current_key_when_asked_for_it() {
        RowHistory.Current r = row("u1", "a@x", 1_000, "Ann", 2_000);
        assertThat(rule.fix(BY_EMAIL, r, null, Map.of(), Set.of(key("a@x", "u1")), 99_999).index()).hasSize(1);
        assertThat(rule.fix(BY_EMAIL, r, null, Map.of(), Set.of(key("b@x", "u1")), 99_999)).isEqualTo(Rewrite.NONE);
    }

    @Test
    void should_remove_an_orphan_above_the_row_and_every_cell_seen_when_fixing() {
        RowHistory.Current r = row("u1", "b@x", 3_000, "Ann", 2_000);
        Observed ghost = new Observed(tick(10_000), null, Collections.singletonList(text("Ann")), 10_000, Long.MIN_VALUE,
                new long[] {90_000});
        TablePlan.IndexWrite w = rule.removeOrphan(BY_EMAIL, key("a@x", "u1"), ghost, r, 50_000);
        assertThat(w).isEqualTo(new TablePlan.Removed(BY_EMAIL, key("a@x", "u1"), 90_001));
        assertThat(rule.removeOrphan(BY_EMAIL, key("a@x", "u1"), entry(tick(1), null, "Ann"), r, 20_000).timestamp())
                .as("above the row's newest cell (30,000), later than now, the entry's cells unknown").isEqualTo(30_001);
    }
}
