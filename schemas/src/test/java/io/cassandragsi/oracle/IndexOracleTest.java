package io.cassandragsi.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The independent oracle on histories small enough to check by hand. */
class IndexOracleTest {
    private static final TableDef REVISIONS = Definitions.read(Path.of("examples/revisions.json"));
    private static final TableDef USERS = Definitions.read(Path.of("examples/users.json"));

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    private static ByteBuffer bytes(UUID u) {
        return ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).flip();
    }

    private static UUID tid(long ticks) {
        return Timeuuids.at(ticks, 0x1234L);
    }

    /** A revisions version: key, tid, length (null: none), value. */
    private static ByteBuffer[] version(String key, UUID tid, Integer length, String value) {
        return new ByteBuffer[] {text(key), bytes(tid), length == null ? null : varint(length), text(value)};
    }

    @Test
    void should_lay_out_index_keys_as_the_definitions_do_when_reading_the_example_definitions() {
        for (String name : List.of("revisions", "orders", "users")) {
            TableDef def = Definitions.read(Path.of("examples/" + name + ".json"));
            IndexOracle oracle = new IndexOracle(def);
            assertThat(oracle.versioned()).as(name).isEqualTo(def.versioned());
            for (Index index : def.indexes().values()) {
                assertThat(oracle.keyColumns(index.name())).as("%s %s", name, index.name())
                        .isEqualTo(index.keyColumns().stream().map(Column::name).toList());
                assertThat(oracle.perVersion(index.name())).as("%s %s", name, index.name()).isEqualTo(index.perVersion());
            }
        }
    }

    @Test
    void should_give_each_entry_its_latest_version_and_the_first_later_one_without_the_key_when_versions_come_and_go() {
        IndexOracle oracle = new IndexOracle(REVISIONS);
        UUID v1 = tid(100);
        UUID v2 = tid(200);
        UUID v3 = tid(300);
        UUID v4 = tid(400);
        oracle.write(version("k", v3, 1, "c"));
        oracle.write(version("k", v1, 1, "a"));
        oracle.write(version("k", v2, 2, "b"));
        oracle.write(version("k", v4, null, "d"));
        Map<List<ByteBuffer>, IndexOracle.Entry> byLength = oracle.expected("by_length");
        List<ByteBuffer> one = List.of(varint(1), text("k"));
        List<ByteBuffer> two = List.of(varint(2), text("k"));
        assertThat(byLength.keySet()).containsExactlyInAnyOrder(one, two);
        assertThat(byLength.get(one).tid()).isEqualTo(v3);
        assertThat(byLength.get(one).deleted()).as("v4 has no length: no entry, so the key stopped matching").isEqualTo(v4);
        assertThat(byLength.get(one).proj()).containsExactly(text("c"));
        assertThat(byLength.get(two).tid()).isEqualTo(v2);
        assertThat(byLength.get(two).deleted()).isEqualTo(v3);
        assertThat(oracle.expected("by_tid").keySet()).as("one entry per version")
                .containsExactlyInAnyOrder(List.of(bytes(v1), text("k")), List.of(bytes(v2), text("k")), List.of(bytes(v3), text("k")),
                        List.of(bytes(v4), text("k")));

        oracle.delete(List.of(text("k")), v4);
        oracle.delete(List.of(text("k")), v3);
        byLength = oracle.expected("by_length");
        assertThat(byLength.get(one).tid()).isEqualTo(v1);
        assertThat(byLength.get(one).deleted()).isEqualTo(v2);
        assertThat(byLength.get(two).deleted()).as("v2 is the newest again").isNull();
    }

    @Test
    void should_match_the_version_current_at_each_query_time_when_reading_the_past() {
        IndexOracle oracle = new IndexOracle(REVISIONS);
        oracle.write(version("k", tid(100), 1, "a"));
        oracle.write(version("k", tid(200), 2, "b"));
        oracle.write(version("j", tid(150), 1, "x"));
        assertThat(oracle.matchesAt("by_length", tid(99))).isEmpty();
        assertThat(oracle.matchesAt("by_length", tid(160))).containsOnlyKeys(List.of(varint(1), text("k")), List.of(varint(1), text("j")));
        assertThat(oracle.matchesAt("by_length", tid(250))).containsOnlyKeys(List.of(varint(2), text("k")), List.of(varint(1), text("j")));
    }

    @Test
    void should_tell_a_later_non_matching_version_from_a_wrong_one_when_deleted_differs() {
        IndexOracle oracle = new IndexOracle(REVISIONS);
        oracle.write(version("k", tid(100), 1, "a"));
        oracle.write(version("k", tid(200), 2, "b"));
        oracle.write(version("k", tid(250), 1, "c"));
        oracle.write(version("k", tid(300), 3, "d"));
        List<ByteBuffer> two = List.of(varint(2), text("k"));
        IndexOracle.Entry e = oracle.expected("by_length").get(two);
        assertThat(oracle.judgeDeleted("by_length", two, e, tid(250))).isEqualTo(IndexOracle.DeletedVerdict.EXACT);
        assertThat(oracle.judgeDeleted("by_length", two, e, tid(300))).isEqualTo(IndexOracle.DeletedVerdict.LATER_NON_MATCHING_VERSION);
        assertThat(oracle.judgeDeleted("by_length", two, e, tid(200))).isEqualTo(IndexOracle.DeletedVerdict.WRONG);
        assertThat(oracle.judgeDeleted("by_length", two, e, tid(280))).as("no such version").isEqualTo(IndexOracle.DeletedVerdict.WRONG);
        assertThat(oracle.judgeDeleted("by_length", two, e, null)).isEqualTo(IndexOracle.DeletedVerdict.WRONG);
    }

    @Test
    void should_read_an_entry_as_deleted_only_when_marked_after_its_tid_and_not_after_the_query_time() {
        UUID t = tid(100);
        assertThat(IndexOracle.matches(t, null, null)).isTrue();
        assertThat(IndexOracle.matches(t, tid(90), null)).as("a mark not later than _tid").isTrue();
        assertThat(IndexOracle.matches(t, t, null)).isTrue();
        assertThat(IndexOracle.matches(t, tid(110), null)).isFalse();
        assertThat(IndexOracle.matches(t, tid(110), tid(105))).as("marked after the query time").isTrue();
        assertThat(IndexOracle.matches(t, tid(110), tid(110))).isFalse();
        assertThat(IndexOracle.matches(null, null, null)).isFalse();
    }

    @Test
    void should_give_no_entry_when_a_key_value_is_null_an_empty_hash_or_too_large() {
        IndexOracle oracle = new IndexOracle(USERS);
        List<ByteBuffer> row = Arrays.asList(text("u1"), text(""), text("fr"), null, text("N"));
        assertThat(oracle.entryKey("by_email", row)).as("an empty hash value").isNull();
        assertThat(oracle.entryKey("by_country", row)).as("a null range value").isNull();
        // (2 + n + 1) + (2 + 2 + 1) bytes: n = 65,527 takes exactly 65,535
        ByteBuffer big = ByteBuffer.allocate(0xFFFF - 7);
        assertThat(oracle.entryKey("by_email", Arrays.asList(text("u1"), big, null, null, null))).isNull();
        ByteBuffer fits = ByteBuffer.allocate(0xFFFF - 8);
        assertThat(oracle.entryKey("by_email", Arrays.asList(text("u1"), fits, null, null, null))).containsExactly(fits, text("u1"));
    }

    @Test
    void should_take_the_newest_key_cell_as_the_version_when_an_unversioned_row_has_an_entry() {
        IndexOracle oracle = new IndexOracle(USERS);
        IndexOracle.Cell none = IndexOracle.Cell.NONE;
        oracle.row(List.of(new IndexOracle.Cell(text("u1"), Long.MIN_VALUE), new IndexOracle.Cell(text("a@x"), 5), new IndexOracle.Cell(text("fr"), 7),
                new IndexOracle.Cell(ByteBuffer.allocate(4).putInt(0, 30), 9), new IndexOracle.Cell(text("N"), 11)));
        oracle.row(List.of(new IndexOracle.Cell(text("u2"), Long.MIN_VALUE), new IndexOracle.Cell(text("b@x"), 5), none, none, none));
        Map<List<ByteBuffer>, IndexOracle.Entry> byEmail = oracle.expected("by_email");
        assertThat(byEmail.get(List.of(text("a@x"), text("u1"))).versionTicks()).isEqualTo(50);
        assertThat(byEmail.get(List.of(text("a@x"), text("u1"))).proj()).containsExactly(text("N"));
        assertThat(byEmail.get(List.of(text("b@x"), text("u2"))).proj()).containsExactly((ByteBuffer) null);
        Map<List<ByteBuffer>, IndexOracle.Entry> byCountry = oracle.expected("by_country");
        assertThat(byCountry.keySet()).containsExactly(List.of(text("fr"), ByteBuffer.allocate(4).putInt(0, 30), text("u1")));
        assertThat(byCountry.values().iterator().next().versionTicks()).as("the newer of country (7) and age (9)").isEqualTo(90);
    }

    @Test
    void should_order_by_signed_bytes_of_clock_and_node_when_timeuuids_share_a_tick() {
        UUID a = Timeuuids.at(1_000, 0x0000_0000_0000_0001L);
        UUID b = Timeuuids.at(1_000, 0x3F00_0000_0000_0000L);
        UUID c = Timeuuids.at(1_001, 0);
        assertThat(Timeuuids.ticks(a)).isEqualTo(1_000);
        assertThat(a.version()).isEqualTo(1);
        assertThat(Timeuuids.compare(a, c)).isNegative();
        // the variant bits make the first byte 0x80..0xBF: negative as a signed byte, so 0x80 < 0xBF
        assertThat(Timeuuids.compare(a, b)).isNegative();
        UUID high = Timeuuids.at(1_000, 0x3F7F_0000_0000_0000L);
        UUID low = Timeuuids.at(1_000, 0x3F80_0000_0000_0000L);
        assertThat(Timeuuids.compare(low, high)).as("0x80 is below 0x7f signed").isNegative();
        assertThat(Timeuuids.ticks(Timeuuids.at(137_000_000_000_000_000L, 7))).isEqualTo(137_000_000_000_000_000L);
    }
}
