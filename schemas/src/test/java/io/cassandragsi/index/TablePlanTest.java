package io.cassandragsi.index;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TablePlanTest {
    private static final TableDef DEF = Definitions.read(Path.of("examples/revisions.json"));
    private static final TablePlan PLAN = TablePlan.of(DEF);
    // attribute positions in revisions.json: key, tid, length, value
    private static final int KEY = 0, TID = 1, LENGTH = 2, VALUE = 3;

    /** A version as a write carries it: null array element = attribute not carried. */
    static final class Row implements VersionRow {
        final ByteBuffer[] values = new ByteBuffer[4];
        final boolean[] has = new boolean[4];

        Row set(int attr, ByteBuffer v) {
            values[attr] = v;
            has[attr] = true;
            return this;
        }

        @Override
        public boolean has(int attribute) {
            return has[attribute];
        }

        @Override
        public ByteBuffer get(int attribute) {
            return values[attribute];
        }
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    static UUID tid(long ticks) {
        return Tids.fromTicks(ticks, 0x1234L);
    }

    static Row version(String key, UUID tid, Long length, String value) {
        Row r = new Row().set(KEY, text(key)).set(TID, Tids.bytes(tid));
        r.set(LENGTH, length == null ? null : varint(length));
        r.set(VALUE, value == null ? null : text(value));
        return r;
    }

    private static IndexPlan plan(String name) {
        return PLAN.indexes().stream().filter(p -> p.index().name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void should_derive_one_entry_per_index_when_the_write_carries_every_attribute() {
        UUID t = tid(1_000);
        TablePlan.Derivation d = PLAN.derive(version("k1", t, 42L, "hello"));
        assertThat(d.complete()).isTrue();
        assertThat(d.entries()).hasSize(2);
        TablePlan.Entry byLength = d.entries().get(0);
        assertThat(byLength.index().index().name()).isEqualTo("by_length");
        assertThat(byLength.key()).containsExactly(varint(42), text("k1"));
        assertThat(byLength.proj()).containsExactly(text("hello"));
        TablePlan.Entry byTid = d.entries().get(1);
        assertThat(byTid.key()).containsExactly(Tids.bytes(t), text("k1"));
        assertThat(PLAN.hasEverIndex()).isTrue();
    }

    @Test
    void should_be_incomplete_when_a_partial_update_omits_an_indexed_attribute() {
        Row partial = new Row().set(KEY, text("k1")).set(TID, Tids.bytes(tid(5))).set(VALUE, text("v"));
        TablePlan.Derivation d = PLAN.derive(partial);
        assertThat(d.complete()).isFalse();
        assertThat(d.entries()).extracting(e -> e.index().index().name()).containsExactly("by_tid");
    }

    @Test
    void should_be_incomplete_when_a_projection_is_not_carried() {
        Row partial = new Row().set(KEY, text("k1")).set(TID, Tids.bytes(tid(5))).set(LENGTH, varint(3));
        TablePlan.Derivation d = PLAN.derive(partial);
        assertThat(d.complete()).isFalse();
        TablePlan.Entry e = d.entries().get(0);
        assertThat(e.projKnown()).containsExactly(false);
        assertThat(e.complete()).isFalse();
    }

    @Test
    void should_write_no_entry_when_the_indexed_value_is_null() {
        TablePlan.Derivation d = PLAN.derive(version("k1", tid(7), null, "v"));
        assertThat(d.complete()).isTrue();
        assertThat(d.entries()).extracting(e -> e.index().index().name()).containsExactly("by_tid");
    }

    @Test
    void should_carry_an_explicit_null_projection() {
        TablePlan.Entry e = PLAN.derive(version("k1", tid(7), 3L, null)).entries().get(0);
        assertThat(e.projKnown()).containsExactly(true);
        assertThat(e.proj()).containsExactly((ByteBuffer) null);
    }

    @Test
    void should_mark_the_old_entry_deleted_at_the_next_tid_when_the_key_changes() {
        UUID t1 = tid(10), t2 = tid(20), t3 = tid(30);
        List<TablePlan.IndexWrite> writes = PLAN.diff(List.of(
                version("k", t1, 1L, "a"), version("k", t2, 2L, "b"), version("k", t3, 1L, "c")), false);
        assertThat(writes).hasSize(2);
        TablePlan.MarkDeleted first = (TablePlan.MarkDeleted) writes.get(0);
        assertThat(first.key()).containsExactly(varint(1), text("k"));
        assertThat(Tids.uuid(first.deletedAt())).isEqualTo(t2);
        assertThat(first.timestamp()).isEqualTo(20);
        TablePlan.MarkDeleted second = (TablePlan.MarkDeleted) writes.get(1);
        assertThat(second.key()).containsExactly(varint(2), text("k"));
        assertThat(Tids.uuid(second.deletedAt())).isEqualTo(t3);
    }

    @Test
    void should_mark_nothing_when_the_key_stays_or_the_old_value_was_null() {
        assertThat(PLAN.diff(List.of(version("k", tid(1), 5L, "a"), version("k", tid(2), 5L, "b")), false)).isEmpty();
        assertThat(PLAN.diff(List.of(version("k", tid(1), null, "a"), version("k", tid(2), 5L, "b")), false)).isEmpty();
        List<TablePlan.IndexWrite> toNull = PLAN.diff(List.of(version("k", tid(1), 5L, "a"), version("k", tid(2), null, "b")), false);
        assertThat(toNull).hasSize(1).first().isInstanceOf(TablePlan.MarkDeleted.class);
    }

    @Test
    void should_upsert_every_version_at_its_own_timestamp_when_asked() {
        List<TablePlan.IndexWrite> writes = PLAN.diff(List.of(version("k", tid(1), 5L, "a"), version("k", tid(2), 6L, "b")), true);
        List<Long> upsertTs = new ArrayList<>();
        for (TablePlan.IndexWrite w : writes) {
            if (w instanceof TablePlan.Upsert u) {
                upsertTs.add(u.timestamp());
            }
        }
        assertThat(upsertTs).containsExactly(1L, 1L, 2L, 2L); // by_length and by_tid, per version
        assertThat(writes.stream().filter(w -> w instanceof TablePlan.MarkDeleted)).hasSize(1);
    }

    @Test
    void should_never_mark_entries_of_an_index_that_contains_the_tid() {
        assertThat(plan("by_tid").perVersion()).isTrue();
        List<TablePlan.IndexWrite> writes = PLAN.diff(List.of(version("k", tid(1), 5L, "a"), version("k", tid(2), 6L, "b")), false);
        assertThat(writes).allMatch(w -> w.index() == plan("by_length"));
    }

    @Test
    void should_leave_out_keys_cassandra_cannot_store() {
        Row huge = version("k", tid(1), 5L, "v");
        ByteBuffer big = ByteBuffer.allocate(TablePlan.MAX_KEY_VALUE + 1);
        huge.set(LENGTH, big);
        assertThat(PLAN.derive(huge).entries()).extracting(e -> e.index().index().name()).containsExactly("by_tid");
        assertThat(PLAN.derive(huge).oversized()).as("counted, not taken for a null").extracting(p -> p.index().name())
                .containsExactly("by_length");
        assertThat(PLAN.entryKey(plan("by_length"), huge)).isNull();
        Row empty = version("k", tid(1), 5L, "v").set(LENGTH, ByteBuffer.allocate(0));
        assertThat(PLAN.derive(empty).entries()).extracting(e -> e.index().index().name()).containsExactly("by_tid");
    }

    @Test
    void should_leave_out_a_key_whose_values_fit_one_by_one_but_not_together() {
        // by_length's key is (length, key): 3 bytes of framing per component, 65,535 in all
        Row fits = version("x".repeat(TablePlan.MAX_KEY_BYTES - 3 - 3 - 1), tid(1), 5L, "v"); // length 5 takes one byte
        assertThat(PLAN.derive(fits).oversized()).extracting(p -> p.index().name()).doesNotContain("by_length");
        Row over = version("x".repeat(TablePlan.MAX_KEY_BYTES - 3 - 3), tid(1), 5L, "v");
        assertThat(PLAN.derive(over).oversized()).extracting(p -> p.index().name()).contains("by_length");
        assertThat(TablePlan.keyBytes(List.of(ByteBuffer.allocate(10), ByteBuffer.allocate(0)))).isEqualTo(16);
    }
}
