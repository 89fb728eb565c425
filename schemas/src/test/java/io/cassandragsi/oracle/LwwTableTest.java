package io.cassandragsi.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.oracle.LwwTable.Cell;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Each of Cassandra 5.0.6's tie rules, deletions and expiries, one at a time, in the one last-write-wins model. */
class LwwTableTest {
    private static final long T0 = 1_767_225_600_000L; // 2026-01-01T00:00:00Z, a whole second
    private final AtomicLong clock = new AtomicLong(T0);
    private final LwwTable table = new LwwTable(clock::get);

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer bytes(int... b) {
        ByteBuffer out = ByteBuffer.allocate(b.length);
        for (int x : b) {
            out.put((byte) x);
        }
        return out.flip();
    }

    private long now() {
        return table.nowInSec();
    }

    /** Both orders of arrival give the same winner: reconciliation is commutative. */
    private static Cell both(Cell a, Cell b) {
        Cell ab = LwwTable.reconcile(a, b);
        assertThat(LwwTable.reconcile(b, a)).as("reconcile(%s, %s) is commutative", a, b).isEqualTo(ab);
        return ab;
    }

    @Test
    void should_keep_the_higher_timestamp_whatever_the_values_and_kinds_when_timestamps_differ() {
        Cell older = Cell.live(text("z"), 10);
        assertThat(both(older, Cell.live(text("a"), 11)).value()).isEqualTo(text("a"));
        assertThat(both(Cell.tombstone(10, now()), Cell.live(text("a"), 11)).value()).isEqualTo(text("a"));
        assertThat(both(Cell.expiring(text("z"), 10, 100, now()), Cell.live(text("a"), 11)).value()).isEqualTo(text("a"));
        assertThat(both(Cell.live(text("a"), 12), Cell.tombstone(11, now())).value()).isEqualTo(text("a"));
    }

    @Test
    void should_keep_the_greater_value_by_unsigned_bytes_when_two_live_cells_tie() {
        assertThat(both(Cell.live(text("a"), 5), Cell.live(text("b"), 5)).value()).isEqualTo(text("b"));
        // 0x80 is the greater byte unsigned (a signed comparison would pick 0x7f)
        assertThat(both(Cell.live(bytes(0x7f), 5), Cell.live(bytes(0x80), 5)).value()).isEqualTo(bytes(0x80));
        assertThat(both(Cell.live(bytes(0x01), 5), Cell.live(bytes(0x01, 0x00), 5)).value()).as("a longer value with the same prefix")
                .isEqualTo(bytes(0x01, 0x00));
    }

    @Test
    void should_keep_the_tombstone_when_it_ties_with_a_live_cell() {
        assertThat(both(Cell.live(text("zzz"), 5), Cell.tombstone(5, now())).isTombstone()).isTrue();
    }

    @Test
    void should_keep_the_expiring_cell_when_it_ties_with_a_live_one_whatever_the_values() {
        Cell expiring = Cell.expiring(text("a"), 5, 100, now());
        assertThat(both(Cell.live(text("z"), 5), expiring)).isEqualTo(expiring);
    }

    @Test
    void should_keep_the_tombstone_when_it_ties_with_an_expiring_cell() {
        Cell tombstone = Cell.tombstone(5, now());
        assertThat(both(Cell.expiring(text("a"), 5, 100, now() + 50), tombstone)).isEqualTo(tombstone);
    }

    @Test
    void should_keep_the_later_expiry_when_two_expiring_cells_tie() {
        Cell longer = Cell.expiring(text("a"), 5, 200, now());
        assertThat(both(Cell.expiring(text("z"), 5, 100, now()), longer)).as("same second, longer TTL").isEqualTo(longer);
        Cell later = Cell.expiring(text("a"), 5, 100, now() + 1);
        assertThat(both(Cell.expiring(text("z"), 5, 100, now()), later)).as("same TTL, written a second later").isEqualTo(later);
    }

    @Test
    void should_keep_the_lower_ttl_when_two_expiring_cells_tie_on_their_expiry() {
        Cell first = Cell.expiring(text("z"), 5, 100, now()); // expires at now + 100
        Cell second = Cell.expiring(text("a"), 5, 90, now() + 10); // also at now + 100
        assertThat(first.localDeletionTime()).isEqualTo(second.localDeletionTime());
        assertThat(both(first, second)).isEqualTo(second);
    }

    @Test
    void should_keep_the_greater_value_when_two_expiring_cells_tie_on_expiry_and_ttl() {
        Cell b = Cell.expiring(text("b"), 5, 100, now());
        assertThat(both(Cell.expiring(text("a"), 5, 100, now()), b)).isEqualTo(b);
    }

    @Test
    void should_keep_the_later_deletion_time_when_two_tombstones_tie() {
        Cell later = Cell.tombstone(5, now() + 3);
        assertThat(both(Cell.tombstone(5, now()), later)).isEqualTo(later);
    }

    @Test
    void should_give_the_same_winner_in_any_order_when_cells_are_reconciled() {
        Random rnd = new Random(42);
        for (int i = 0; i < 20_000; i++) {
            List<Cell> cells = new ArrayList<>();
            for (int j = 0; j < 3; j++) {
                long ts = rnd.nextInt(3);
                long at = T0 / 1000 + rnd.nextInt(3);
                cells.add(switch (rnd.nextInt(3)) {
                    case 0 -> Cell.tombstone(ts, at);
                    case 1 -> Cell.expiring(bytes(rnd.nextInt(3)), ts, 1 + rnd.nextInt(3), at);
                    default -> Cell.live(bytes(rnd.nextInt(3)), ts);
                });
            }
            Cell a = cells.get(0);
            Cell b = cells.get(1);
            Cell c = cells.get(2);
            both(a, b);
            assertThat(LwwTable.reconcile(LwwTable.reconcile(a, b), c)).as("%s", cells)
                    .isEqualTo(LwwTable.reconcile(a, LwwTable.reconcile(b, c)));
        }
    }

    @Test
    void should_report_value_writetime_and_ttl_as_cql_does_when_cells_are_read() {
        table.write("k", null, "c", text("v"), 1_000, 0);
        assertThat(table.value("k", null, "c")).isEqualTo(text("v"));
        assertThat(table.writetime("k", null, "c")).isEqualTo(1_000L);
        assertThat(table.ttl("k", null, "c")).as("a cell that does not expire has no TTL").isNull();
        table.write("k", null, "d", text("w"), 1_000, 10);
        clock.addAndGet(3_500);
        assertThat(table.ttl("k", null, "d")).as("TTL counts whole seconds from the write's second").isEqualTo(7);
        table.deleteColumn("k", null, "c", 1_001);
        assertThat(table.value("k", null, "c")).isNull();
        assertThat(table.writetime("k", null, "c")).as("no WRITETIME for a deleted cell").isNull();
    }

    @Test
    void should_keep_shadowing_the_cell_it_beat_when_an_expiring_cell_expires() {
        table.write("k", null, "c", text("z"), 7, 0);
        clock.addAndGet(400); // T0 + 0.4 s: the expiry counts from the whole second T0
        table.write("k", null, "c", text("a"), 7, 2);
        assertThat(table.value("k", null, "c")).as("the expiring cell won the tie").isEqualTo(text("a"));
        clock.set(T0 + 1_999);
        assertThat(table.value("k", null, "c")).isEqualTo(text("a"));
        clock.set(T0 + 2_000);
        assertThat(table.value("k", null, "c")).as("expired, and the live value it beat does not come back").isNull();
        assertThat(table.cell("k", null, "c").value()).isEqualTo(text("a"));
        table.write("k", null, "c", text("b"), 8, 0);
        assertThat(table.value("k", null, "c")).isEqualTo(text("b"));
    }

    @Test
    void should_shadow_cells_and_markers_at_or_below_its_timestamp_when_a_row_is_deleted() {
        table.insertMarker("k", null, 5, 0);
        table.write("k", null, "c", text("v"), 5, 0);
        table.write("k", null, "d", text("w"), 6, 0);
        table.deleteRow("k", null, 5);
        assertThat(table.value("k", null, "c")).as("written at the deletion's timestamp").isNull();
        assertThat(table.value("k", null, "d")).isEqualTo(text("w"));
        assertThat(table.exists("k", null)).isTrue();
        table.deleteRow("k", null, 6);
        assertThat(table.exists("k", null)).isFalse();
        table.write("k", null, "c", text("v"), 6, 0);
        assertThat(table.value("k", null, "c")).as("still at or below the deletion").isNull();
        table.write("k", null, "c", text("v"), 7, 0);
        assertThat(table.exists("k", null)).isTrue();
    }

    @Test
    void should_shadow_only_the_rows_it_covers_when_a_clustering_range_is_deleted() {
        for (int uid = 0; uid < 5; uid++) {
            table.write("org", uid, "role", text("r"), 10, 0);
        }
        table.deleteRange("org", 1, true, 3, false, 10); // uid >= 1 AND uid < 3
        assertThat(table.liveRows()).extracting(LwwTable.RowKey::clustering).containsExactly(0, 3, 4);
        table.deleteRange("org", 3, false, null, false, 10); // uid > 3
        assertThat(table.liveRows()).extracting(LwwTable.RowKey::clustering).containsExactly(0, 3);
        table.deleteRange("org", 0, true, 0, true, 9); // below the cells
        assertThat(table.exists("org", 0)).isTrue();
    }

    @Test
    void should_shadow_every_row_at_or_below_its_timestamp_when_a_partition_is_deleted() {
        table.write("p", 1, "c", text("v"), 10, 0);
        table.write("p", 2, "c", text("v"), 11, 0);
        table.write("q", 1, "c", text("v"), 10, 0);
        table.deletePartition("p", 10);
        assertThat(table.liveRows()).containsExactly(new LwwTable.RowKey("p", 2), new LwwTable.RowKey("q", 1));
    }

    @Test
    void should_keep_a_row_while_its_marker_or_a_cell_lives_when_cells_expire_or_are_deleted() {
        table.insertMarker("i", null, 5, 0);
        assertThat(table.exists("i", null)).as("an INSERT of the key alone").isTrue();
        table.write("u", null, "c", text("v"), 5, 0);
        table.deleteColumn("u", null, "c", 6);
        assertThat(table.exists("u", null)).as("an UPDATE's row goes with its last cell").isFalse();
        table.insertMarker("t", null, 5, 2);
        table.write("t", null, "c", text("v"), 5, 10);
        clock.addAndGet(2_000);
        assertThat(table.exists("t", null)).as("the marker expired, the cell lives").isTrue();
        clock.addAndGet(8_000);
        assertThat(table.exists("t", null)).isFalse();
    }

    @Test
    void should_reconcile_elements_as_cells_under_the_sets_deletion_when_a_set_is_updated() {
        ByteBuffer a = text("a");
        ByteBuffer b = text("b");
        ByteBuffer c = text("c");
        table.addElement("k", null, "s", a, 10, 0);
        table.removeElement("k", null, "s", a, 10);
        assertThat(table.elements("k", null, "s")).as("an element's tombstone wins the tie").isEmpty();
        table.addElement("k", null, "s", c, 9, 0);
        table.setCollection("k", null, "s", List.of(a, b), 10, 0); // deletes the set at 9, then adds at 10
        assertThat(table.elements("k", null, "s").keySet()).as("c at 9 is overwritten; a's tombstone at 10 still wins")
                .containsExactly(b);
        table.addElement("k", null, "s", c, 10, 100);
        assertThat(table.elements("k", null, "s").keySet()).containsExactly(b, c);
        assertThat(LwwTable.ttlOf(table.elements("k", null, "s").get(c), table.nowInSec())).isEqualTo(100);
        table.deleteCollection("k", null, "s", 10);
        assertThat(table.elements("k", null, "s")).isEmpty();
        table.addElement("k", null, "s", a, 11, 0);
        assertThat(table.elements("k", null, "s").keySet()).containsExactly(a);
        table.deleteRow("k", null, 11);
        assertThat(table.elements("k", null, "s")).isEmpty();
    }

    @Test
    void should_order_set_elements_by_unsigned_bytes_when_they_are_read() {
        table.addElement("k", null, "s", bytes(0x80), 1, 0);
        table.addElement("k", null, "s", bytes(0x7f), 1, 0);
        table.addElement("k", null, "s", bytes(0x7f, 0x00), 1, 0);
        assertThat(table.elements("k", null, "s").keySet()).containsExactly(bytes(0x7f), bytes(0x7f, 0x00), bytes(0x80));
    }
}
