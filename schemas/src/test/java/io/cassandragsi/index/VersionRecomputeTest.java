package io.cassandragsi.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.RowReconcile.EntryState;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class VersionRecomputeTest {
    private static final TableDef DEF = Definitions.read(Path.of("examples/revisions.json"));
    private static final TablePlan PLAN = TablePlan.of(DEF);
    private static final IndexPlan BY_LENGTH = PLAN.indexes().get(0);
    private static final IndexPlan BY_TID = PLAN.indexes().get(1);

    private static List<ByteBuffer> tidKey(long ticks) {
        return List.of(Tids.bytes(tid(ticks)), text("k"));
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    private static UUID tid(long ticks) {
        return Tids.fromTicks(ticks, 0x1234L);
    }

    private static final class Version implements VersionRow {
        final ByteBuffer[] values;

        Version(long tidTicks, long length, String value) {
            values = new ByteBuffer[] {text("k"), Tids.bytes(tid(tidTicks)), varint(length), value == null ? null : text(value)};
        }

        @Override
        public boolean has(int attribute) {
            return true;
        }

        @Override
        public ByteBuffer get(int attribute) {
            return values[attribute];
        }
    }

    private static List<ByteBuffer> key(long length) {
        return List.of(varint(length), text("k"));
    }

    private static EntryState entry(long tid, Long deleted, String value, long tidTs, long deletedTs, long valueTs) {
        return new EntryState(Tids.bytes(tid(tid)), deleted == null ? null : Tids.bytes(tid(deleted)),
                new ByteBuffer[] {value == null ? null : text(value)}, new long[] {value == null ? Long.MIN_VALUE : valueTs}, tidTs,
                deletedTs);
    }

    private static long ticks(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    @Test
    void should_make_the_version_before_current_again_when_the_newest_goes_away() {
        // v1 (length 10), then v2 (length 20) was deleted: 10 was marked at v2, 20 points at v2
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        entries.put(key(10), entry(100, 200L, "a", 100, 200, 100));
        entries.put(key(20), entry(200, null, "b", 200, Long.MIN_VALUE, 200));
        List<TablePlan.IndexWrite> writes = VersionRecompute.recompute(PLAN, BY_LENGTH, List.of(new Version(100, 10, "a")),
                List.of(key(10), key(20)), entries, Long.MIN_VALUE, true);

        assertThat(writes).hasSize(2);
        TablePlan.MarkDeleted restore = (TablePlan.MarkDeleted) writes.get(0);
        assertThat(restore.key()).isEqualTo(key(10));
        assertThat(ticks(restore.deletedAt())).as("a mark not later than _tid: matches again").isEqualTo(100);
        assertThat(restore.timestamp()).as("just above the mark the deleted version wrote").isEqualTo(201);
        TablePlan.MarkDeleted gone = (TablePlan.MarkDeleted) writes.get(1);
        assertThat(gone.key()).isEqualTo(key(20));
        assertThat(ticks(gone.deletedAt())).as("one tick after its _tid").isEqualTo(201);
        assertThat(gone.timestamp()).isEqualTo(201);
    }

    @Test
    void should_point_an_entry_back_at_its_latest_remaining_version_above_the_cells_of_the_deleted_one() {
        // v1 (10, "a"), v2 (10, "b") deleted: the entry of 10 must say v1 and "a" again
        Map<List<ByteBuffer>, EntryState> entries = Map.of(key(10), entry(200, null, "b", 200, Long.MIN_VALUE, 200));
        List<TablePlan.IndexWrite> writes = VersionRecompute.recompute(PLAN, BY_LENGTH, List.of(new Version(100, 10, "a")), List.of(key(10)),
                entries, Long.MIN_VALUE, true);

        assertThat(writes).hasSize(1);
        TablePlan.Reconciled r = (TablePlan.Reconciled) writes.get(0);
        assertThat(ticks(r.tid())).isEqualTo(100);
        assertThat(r.timestamp()).isEqualTo(201);
        assertThat(r.proj()[0].value()).isEqualTo(text("a"));
        assertThat(r.proj()[0].timestamp()).isEqualTo(201);
    }

    @Test
    void should_set_the_exact_next_version_and_leave_what_is_right_alone() {
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(300, 20, "c"), new Version(400, 20, "c"));
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        entries.put(key(10), entry(100, 900L, "a", 100, 900, 100)); // a later non-matching version that was deleted
        entries.put(key(20), entry(400, 300L, "c", 400, 300, 400)); // right: an old mark before its _tid
        List<TablePlan.IndexWrite> writes = VersionRecompute.recompute(PLAN, BY_LENGTH, versions, List.of(key(10), key(20)), entries, Long.MIN_VALUE, true);

        assertThat(writes).hasSize(1);
        TablePlan.MarkDeleted m = (TablePlan.MarkDeleted) writes.get(0);
        assertThat(m.key()).isEqualTo(key(10));
        assertThat(ticks(m.deletedAt())).isEqualTo(300);
        assertThat(m.timestamp()).isEqualTo(901);
    }

    @Test
    void should_write_entries_a_remaining_version_needs_and_nothing_for_keys_without_an_entry() {
        List<TablePlan.IndexWrite> writes = VersionRecompute.recompute(PLAN, BY_LENGTH, List.of(new Version(100, 10, "a")),
                List.of(key(10), key(30)), Map.of(), Long.MIN_VALUE, true);
        assertThat(writes).hasSize(1);
        TablePlan.Reconciled r = (TablePlan.Reconciled) writes.get(0);
        assertThat(r.key()).isEqualTo(key(10));
        assertThat(r.timestamp()).isEqualTo(100);
    }

    @Test
    void should_diff_a_new_version_whose_recorded_keys_it_has() {
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(200, 20, "b"));
        Map<String, Map<List<ByteBuffer>, Long>> times = Map.of(BY_LENGTH.index().name(), Map.of(key(10), 100L, key(20), 200L));

        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 200, 200, times, Long.MIN_VALUE, Long.MIN_VALUE)).isFalse();
    }

    @Test
    void should_recompute_a_version_rewritten_with_another_key() {
        // v2 was written with length 30 first (recorded at its TS), then rewritten in place with length 20
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(200, 20, "b"));
        Map<List<ByteBuffer>, Long> keys = new HashMap<>(Map.of(key(10), 100L, key(20), 200L, key(30), 200L));

        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 200, 200,
                Map.of(BY_LENGTH.index().name(), keys), Long.MIN_VALUE, Long.MIN_VALUE)).isTrue();
        // the same key history seen from the marker of v1, whose own keys are as recorded: v2's marker recomputes
        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 100, 100,
                Map.of(BY_LENGTH.index().name(), keys), Long.MIN_VALUE, Long.MIN_VALUE)).isFalse();
    }

    @Test
    void should_recompute_a_version_not_above_the_cells_of_a_recompute() {
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(200, 20, "b"));

        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 200, 200, Map.of(), 200, Long.MIN_VALUE)).isTrue();
        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 200, 200, Map.of(), 199, Long.MIN_VALUE)).isFalse();
    }

    @Test
    void should_recompute_a_marked_version_written_whole_twice() {
        // v2 written twice at different timestamps: the rows table's newest-write cells differ, at v2's TS
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(200, 20, "b"));
        Map<String, Map<List<ByteBuffer>, Long>> times = Map.of(BY_LENGTH.index().name(), Map.of(key(10), 100L, key(20), 200L));

        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 200, 200, times, Long.MIN_VALUE, 200)).isTrue();
        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 100, 200, times, Long.MIN_VALUE, 200)).isTrue();
        // a marker of v1 alone: v2's own markers recompute
        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 100, 100, times, Long.MIN_VALUE, 200)).isFalse();
    }

    @Test
    void should_ignore_recorded_keys_of_versions_it_did_not_read() {
        // a key written at TS 150 by a version since deleted: its own recompute marker deals with it
        List<Version> versions = List.of(new Version(100, 10, "a"), new Version(200, 20, "b"));
        Map<String, Map<List<ByteBuffer>, Long>> times = Map.of(BY_LENGTH.index().name(), Map.of(key(40), 150L));

        assertThat(VersionRecompute.needsRecompute(PLAN, versions, new long[] {100, 200}, 100, 200, times, Long.MIN_VALUE, Long.MIN_VALUE)).isFalse();
    }

    @Test
    void should_take_the_highest_timestamp_of_corrections_with_their_projections() {
        List<TablePlan.IndexWrite> writes = List.of(
                new TablePlan.MarkDeleted(BY_LENGTH, key(10), Tids.bytes(tid(101)), 250),
                new TablePlan.Reconciled(BY_LENGTH, key(20), null, 240, 0, new TablePlan.ProjCell[] {new TablePlan.ProjCell(text("b"), 260, 0)}));

        assertThat(VersionRecompute.highestTimestamp(writes)).isEqualTo(260);
        assertThat(VersionRecompute.highestTimestamp(List.of())).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void should_write_an_entry_that_reads_as_absent_above_the_expired_version() {
        // v2 (length 10, TS 200) expired: its entry's cells did too, and still shadow TS 200 and below
        List<TablePlan.IndexWrite> writes = VersionRecompute.recompute(PLAN, BY_LENGTH, List.of(new Version(100, 10, "a")),
                List.of(key(10)), Map.of(), 201, true);

        TablePlan.Reconciled r = (TablePlan.Reconciled) writes.get(0);
        assertThat(ticks(r.tid())).isEqualTo(100);
        assertThat(r.timestamp()).as("above the expired cells, not at v1's own TS").isEqualTo(201);
        assertThat(r.proj()[0].timestamp()).isEqualTo(201);
        // with no floor (a delete, whose cells read as what they are), at the version's own TS
        TablePlan.Reconciled plain = (TablePlan.Reconciled) VersionRecompute.recompute(PLAN, BY_LENGTH, List.of(new Version(100, 10, "a")),
                List.of(key(10)), Map.of(), Long.MIN_VALUE, true).get(0);
        assertThat(plain.timestamp()).isEqualTo(100);
    }

    @Test
    void should_delete_the_per_version_entry_of_a_deleted_version_above_every_write_it_had_and_keep_its_key_until_it_reads_absent() {
        // v1 (TS 100) and v2 (TS 200) were recorded by the trigger at their TS; v2 was deleted
        Map<List<ByteBuffer>, Long> recorded = Map.of(tidKey(100), 100L, tidKey(200), 200L);
        VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a")), recorded, Set.of(),
                Long.MIN_VALUE, true);

        assertThat(pv.writes()).singleElement().isInstanceOfSatisfying(TablePlan.Removed.class, r -> {
            assertThat(r.key()).isEqualTo(tidKey(200));
            assertThat(r.timestamp()).as("above v2's own writes at TS 200").isEqualTo(201);
        });
        assertThat(pv.highest()).isEqualTo(201);
        assertThat(pv.unrecord()).as("were the delete lost, nothing would find the entry again").isEmpty();
        assertThat(pv.record()).as("recorded again above its TS: its entry was deleted").containsExactly(tidKey(200));

        // the recompute a second later: the entry reads as absent, the key is forgotten at the write time it was read with
        Map<List<ByteBuffer>, Long> marked = Map.of(tidKey(100), 100L, tidKey(200), 201L);
        VersionRecompute.PerVersion later = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a")), marked,
                Set.of(tidKey(200)), 201, true);
        assertThat(later.unrecord()).containsExactly(Map.entry(tidKey(200), 201L));
        assertThat(later.writes()).as("deleted again, above anything of it still landing").filteredOn(w -> w instanceof TablePlan.Removed)
                .singleElement().satisfies(w -> assertThat(w.timestamp()).isEqualTo(202));
    }

    @Test
    void should_keep_the_key_of_a_deleted_version_whose_entry_reads_absent_before_a_pass_deleted_it() {
        // v2 (TS 200) was written and deleted while its batch landed: its key is recorded by the trigger, its entry not there yet
        VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a")),
                Map.of(tidKey(100), 100L, tidKey(200), 200L), Set.of(tidKey(200)), Long.MIN_VALUE, true);

        assertThat(pv.unrecord()).as("its entry may still land").isEmpty();
        assertThat(pv.writes()).as("deleted above its TS: once it lands it is gone").singleElement()
                .isInstanceOfSatisfying(TablePlan.Removed.class, r -> assertThat(r.timestamp()).isEqualTo(201));
        assertThat(pv.record()).containsExactly(tidKey(200));
    }

    @Test
    void should_write_a_version_that_came_back_above_the_delete_of_its_entry_and_record_its_key_again() {
        // v2 (TS 200) was deleted and its entry deleted at 201 (recorded as the recompute's highest), its key forgotten; then v2
        // was written again: the trigger's entry at TS 200 lost to that delete, and so did its key
        VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a"), new Version(200, 10, "a")),
                Map.of(tidKey(100), 100L), Set.of(), 201, true);

        assertThat(pv.at()).isEqualTo(202);
        assertThat(pv.writes()).allSatisfy(w -> {
            assertThat(w).isInstanceOf(TablePlan.Upsert.class);
            assertThat(w.timestamp()).as("above the delete at 201").isEqualTo(202);
        }).extracting(TablePlan.IndexWrite::key).containsExactlyInAnyOrder(tidKey(100), tidKey(200));
        assertThat(pv.record()).containsExactly(tidKey(200));
        assertThat(pv.unrecord()).isEmpty();
    }

    @Test
    void should_write_nothing_for_per_version_entries_when_every_recorded_version_remains() {
        VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a"), new Version(200, 20, "b")),
                Map.of(tidKey(100), 100L, tidKey(200), 200L), Set.of(), Long.MIN_VALUE, true);

        assertThat(pv.writes()).isEmpty();
        assertThat(pv.highest()).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void should_delete_above_a_key_a_recompute_recorded_at_a_later_time() {
        // v2's key was recorded again by a recompute at 500 (it had come back); now v2 is gone again
        VersionRecompute.PerVersion pv = VersionRecompute.perVersion(PLAN, BY_TID, List.of(), Map.of(tidKey(200), 500L), Set.of(), 500, true);

        assertThat(pv.writes()).singleElement().satisfies(w -> assertThat(w.timestamp()).isEqualTo(501));
        assertThat(pv.unrecord()).isEmpty();
    }

    @Test
    void should_leave_an_entry_whose_version_is_not_visible_yet_to_a_later_pass() {
        // v1 (length 10, TS 100) is the newest version the base shows; the entry of 20 says v2 (TS 200), whose base row is
        // still in flight (the trigger's batch applied the entry first). Marking 20 gone, or pointing it back, would
        // hide v2 once it lands.
        Map<List<ByteBuffer>, EntryState> entries = new HashMap<>();
        entries.put(key(10), entry(100, 200L, "a", 100, 200, 100));
        entries.put(key(20), entry(200, null, "b", 200, Long.MIN_VALUE, 200));
        List<Version> shown = List.of(new Version(100, 10, "a"));

        List<TablePlan.IndexWrite> first = VersionRecompute.recompute(PLAN, BY_LENGTH, shown, List.of(key(10), key(20)), entries,
                Long.MIN_VALUE, false);
        assertThat(first).as("the first pass writes nothing for 20").noneMatch(w -> w.key().equals(key(20)));
        assertThat(first).as("and corrects what the versions shown decide").singleElement()
                .satisfies(w -> assertThat(w.key()).isEqualTo(key(10)));

        // a second later v2 is still not there: it went away
        List<TablePlan.IndexWrite> later = VersionRecompute.recompute(PLAN, BY_LENGTH, shown, List.of(key(10), key(20)), entries,
                Long.MIN_VALUE, true);
        assertThat(later).anySatisfy(w -> {
            assertThat(w.key()).isEqualTo(key(20));
            assertThat(ticks(((TablePlan.MarkDeleted) w).deletedAt())).isEqualTo(201);
        });
    }

    @Test
    void should_leave_the_per_version_entry_of_a_version_not_visible_yet_to_a_later_pass() {
        // v2's key was recorded by the trigger at TS 200, but the base does not show v2 yet
        Map<List<ByteBuffer>, Long> recorded = Map.of(tidKey(100), 100L, tidKey(200), 200L);
        List<Version> shown = List.of(new Version(100, 10, "a"));

        VersionRecompute.PerVersion first = VersionRecompute.perVersion(PLAN, BY_TID, shown, recorded, Set.of(tidKey(200)), Long.MIN_VALUE, false);
        assertThat(first.writes()).as("no delete of its entry").isEmpty();
        assertThat(first.unrecord()).as("its key is not forgotten while its entry may still land").isEmpty();

        VersionRecompute.PerVersion later = VersionRecompute.perVersion(PLAN, BY_TID, shown, recorded, Set.of(), Long.MIN_VALUE, true);
        assertThat(later.writes()).singleElement().isInstanceOf(TablePlan.Removed.class);

        // a version rewritten with another key is shown: its old key goes on the first pass
        VersionRecompute.PerVersion rewritten = VersionRecompute.perVersion(PLAN, BY_TID, List.of(new Version(100, 10, "a")),
                Map.of(tidKey(100), 100L, List.of(Tids.bytes(tid(100)), text("old")), 100L), Set.of(), Long.MIN_VALUE, false);
        assertThat(rewritten.writes()).singleElement().isInstanceOf(TablePlan.Removed.class);
    }
}
