package io.cassandragsi.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The versioned rule: expected entries, the judgement of observed ones, rebuild and fix writes, on the revisions example; no node. */
class VersionedEntriesTest {
    private static final TableDef DEF = Definitions.parse("""
            {
              "keyspace": "wiki",
              "table": "revisions",
              "attributes": { "key": "string", "tid": "timeuuid", "length": "varint", "value": "string" },
              "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
              "secondaryIndexes": {
                "by_length": [ { "type": "hash", "attribute": "length" }, { "type": "proj", "attribute": "value" } ],
                "by_tid": [ { "type": "hash", "attribute": "tid" } ]
              }
            }
            """, "revisions.json");
    private static final TablePlan PLAN = TablePlan.of(DEF);
    private static final IndexPlan BY_LENGTH = PLAN.indexes().get(0);
    private static final IndexPlan BY_TID = PLAN.indexes().get(1);
    private final VersionedEntries rule = new VersionedEntries(PLAN);
    private final Judge check = new Judge(BY_LENGTH);
    private final Judge perVersion = new Judge(BY_TID);

    /** The rule for one index, over the versions of row "k". */
    private final class Judge {
        private final IndexPlan index;

        Judge(IndexPlan index) {
            this.index = index;
        }

        Map<List<ByteBuffer>, Expected> expected(List<Version> versions) {
            return rule.expected(index, row(versions));
        }

        Set<Finding> judge(List<ByteBuffer> key, Expected e, Observed a, List<Version> versions) {
            return rule.judge(index, key, e, a, row(versions));
        }

        /** Both sides judged: every expected key, then every observed key the row does not explain; keys without findings left out. */
        Map<List<ByteBuffer>, Set<Finding>> compare(Map<List<ByteBuffer>, Expected> expected, Map<List<ByteBuffer>, Observed> actual,
                List<Version> versions) {
            Map<List<ByteBuffer>, Set<Finding>> out = new java.util.LinkedHashMap<>();
            for (Map.Entry<List<ByteBuffer>, Expected> e : expected.entrySet()) {
                Set<Finding> f = judge(e.getKey(), e.getValue(), actual.get(e.getKey()), versions);
                if (!f.isEmpty()) {
                    out.put(e.getKey(), f);
                }
            }
            actual.forEach((key, a) -> {
                Set<Finding> f = expected.containsKey(key) ? Set.of() : judge(key, null, a, versions);
                if (!f.isEmpty()) {
                    out.put(key, f);
                }
            });
            return out;
        }
    }

    private static RowHistory.Versions row(List<Version> versions) {
        return new RowHistory.Versions(List.of(text("k")), versions);
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer varint(long n) {
        return ByteBuffer.wrap(BigInteger.valueOf(n).toByteArray());
    }

    private static UUID tid(long tick) {
        return Tids.fromTicks(1_000_000 + tick, 0x1234);
    }

    private static Version v(String key, long tick, Long length, String value) {
        return new Version(new ByteBuffer[] {text(key), Tids.bytes(tid(tick)), length == null ? null : varint(length), text(value)}, 1);
    }

    private static List<ByteBuffer> key(long length, String key) {
        return List.of(varint(length), text(key));
    }

    private static Observed actual(UUID tid, UUID deleted, String value) {
        return new Observed(tid, deleted, Collections.singletonList(value == null ? null : text(value)), 0, Long.MIN_VALUE, new long[] {0});
    }

    @Test
    void should_expect_latest_matching_version_and_first_later_non_matching_one_when_key_flips() {
        // length 1 at t1, 2 at t2, 1 again at t3, 3 at t4, then a version without length
        List<Version> vs = List.of(v("k", 4, 3L, "d"), v("k", 1, 1L, "a"), v("k", 3, 1L, "c"), v("k", 2, 2L, "b"), v("k", 5, null, "e"));
        Map<List<ByteBuffer>, Expected> e = check.expected(vs);
        assertThat(e).containsOnlyKeys(key(1, "k"), key(2, "k"), key(3, "k"));
        assertThat(e.get(key(1, "k"))).isEqualTo(new Expected(tid(3), tid(4), List.of(text("c"))));
        assertThat(e.get(key(2, "k"))).isEqualTo(new Expected(tid(2), tid(3), List.of(text("b"))));
        assertThat(e.get(key(3, "k"))).isEqualTo(new Expected(tid(4), tid(5), List.of(text("d"))));
    }

    @Test
    void should_expect_no_deleted_when_latest_version_matches() {
        Map<List<ByteBuffer>, Expected> e = check.expected(List.of(v("k", 1, 7L, "a"), v("k", 2, 7L, "b")));
        assertThat(e).containsExactly(Map.entry(key(7, "k"), new Expected(tid(2), null, List.of(text("b")))));
    }

    @Test
    void should_find_nothing_when_index_equals_expected() {
        List<Version> vs = List.of(v("k", 1, 1L, "a"), v("k", 2, 2L, "b"));
        Map<List<ByteBuffer>, Observed> actual = Map.of(
                key(1, "k"), actual(tid(1), tid(2), "a"),
                key(2, "k"), actual(tid(2), null, "b"));
        assertThat(check.compare(check.expected(vs), actual, vs)).isEmpty();
    }

    @Test
    void should_report_each_kind_when_entries_differ() {
        List<Version> vs = List.of(v("k", 1, 1L, "a"), v("k", 2, 2L, "b"), v("k", 3, 2L, "c"), v("k", 4, 4L, "d"));
        Map<List<ByteBuffer>, Expected> expected = check.expected(vs);
        Map<List<ByteBuffer>, Observed> actual = new HashMap<>();
        // key 1: _deleted never set (a marker lost)
        actual.put(key(1, "k"), actual(tid(1), null, "a"));
        // key 2: the newest matching version t3 never arrived: old _tid and projection
        actual.put(key(2, "k"), actual(tid(2), tid(4), "b"));
        // key 4: missing
        // key 9: nothing explains it
        actual.put(key(9, "k"), actual(tid(1), null, "zz"));
        Map<List<ByteBuffer>, Set<Finding>> f = check.compare(expected, actual, vs);
        assertThat(f).containsOnlyKeys(key(1, "k"), key(2, "k"), key(4, "k"), key(9, "k"));
        assertThat(f.get(key(1, "k"))).containsExactly(Finding.WRONG_DELETED);
        assertThat(f.get(key(2, "k"))).containsExactlyInAnyOrder(Finding.WRONG_TID, Finding.WRONG_PROJECTION);
        assertThat(f.get(key(4, "k"))).containsExactly(Finding.MISSING);
        assertThat(f.get(key(9, "k"))).containsExactly(Finding.ORPHAN);
    }

    @Test
    void should_call_deleted_approximate_when_it_is_a_later_non_matching_version() {
        // 1 at t1, 2 at t2 (arrived late), 3 at t3: the diff of t1/t3 wrote _deleted = t3 first, which wins by TS
        List<Version> vs = List.of(v("k", 1, 1L, "a"), v("k", 2, 2L, "b"), v("k", 3, 3L, "c"));
        Map<List<ByteBuffer>, Expected> expected = check.expected(vs);
        Set<Finding> f = check.judge(key(1, "k"), expected.get(key(1, "k")), actual(tid(1), tid(3), "a"), vs);
        assertThat(f).containsExactly(Finding.APPROXIMATE_DELETED);
        assertThat(f.stream().anyMatch(Finding::drift)).isFalse();
    }

    @Test
    void should_call_deleted_wrong_when_it_is_earlier_or_matching_or_not_a_version() {
        List<Version> vs = List.of(v("k", 1, 1L, "a"), v("k", 3, 2L, "b"), v("k", 4, 1L, "c"), v("k", 5, 5L, "d"));
        Expected e = check.expected(vs).get(key(1, "k"));
        assertThat(e).isEqualTo(new Expected(tid(4), tid(5), List.of(text("c"))));
        assertThat(check.judge(key(1, "k"), e, actual(tid(4), tid(3), "c"), vs)).as("earlier").containsExactly(Finding.WRONG_DELETED);
        assertThat(check.judge(key(1, "k"), e, actual(tid(4), tid(9), "c"), vs)).as("no such version").containsExactly(Finding.WRONG_DELETED);
        assertThat(check.judge(key(1, "k"), e, actual(tid(4), null, "c"), vs)).as("never set").containsExactly(Finding.WRONG_DELETED);
        Expected live = check.expected(vs).get(key(5, "k"));
        assertThat(check.judge(key(5, "k"), live, actual(tid(5), tid(4), "d"), vs)).as("a mark before _tid: matches again, no tombstone needed")
                .isEmpty();
        assertThat(check.judge(key(5, "k"), live, actual(tid(5), tid(6), "d"), vs)).as("set while matching").containsExactly(Finding.WRONG_DELETED);
    }

    @Test
    void should_only_check_existence_and_projections_when_index_contains_the_tid() {
        List<Version> vs = List.of(v("k", 1, 1L, "a"), v("k", 2, 2L, "b"));
        Map<List<ByteBuffer>, Expected> expected = perVersion.expected(vs);
        assertThat(expected).containsOnlyKeys(List.of(Tids.bytes(tid(1)), text("k")), List.of(Tids.bytes(tid(2)), text("k")));
        assertThat(expected.values()).allMatch(x -> x.deleted() == null);
        Map<List<ByteBuffer>, Observed> actual = Map.of(
                List.of(Tids.bytes(tid(1)), text("k")), Observed.of(null, null, List.of()),
                List.of(Tids.bytes(tid(7)), text("k")), Observed.of(null, null, List.of()));
        Map<List<ByteBuffer>, Set<Finding>> f = perVersion.compare(expected, actual, vs);
        assertThat(f).containsExactlyInAnyOrderEntriesOf(Map.of(
                List.of(Tids.bytes(tid(2)), text("k")), EnumSet.of(Finding.MISSING),
                List.of(Tids.bytes(tid(7)), text("k")), EnumSet.of(Finding.ORPHAN)));
    }

    @Test
    void should_delete_orphans_above_every_version_and_cell_when_fixing() {
        assertThat(EntryRule.orphanDeleteTimestamp(100, 50, 1_000)).isEqualTo(101);
        assertThat(EntryRule.orphanDeleteTimestamp(100, 5_000, 1_000)).as("a ghost written with a large TS").isEqualTo(5_001);
        assertThat(EntryRule.orphanDeleteTimestamp(Long.MIN_VALUE, 50, 1_000)).as("no versions: now").isEqualTo(1_000);
        assertThat(EntryRule.orphanDeleteTimestamp(100, Long.MIN_VALUE, 1_000)).as("no readable cell: now").isEqualTo(1_000);
    }

    // ----------------------------------------------------------- rebuild writes vs check, many seeds

    /** An index table under Cassandra's last-write-wins (ties: tombstone, then greater value), enough for these columns. */
    private static final class Lww {
        record Cell(ByteBuffer value, long ts) {}

        final Map<List<ByteBuffer>, Cell[]> rows = new HashMap<>(); // _tid, _deleted, value

        static Cell win(Cell a, Cell b) {
            if (a == null) {
                return b;
            }
            if (a.ts != b.ts) {
                return a.ts > b.ts ? a : b;
            }
            if ((a.value == null) != (b.value == null)) {
                return a.value == null ? a : b;
            }
            return a.value == null || Arrays.compareUnsigned(bytes(a.value), bytes(b.value)) >= 0 ? a : b;
        }

        static byte[] bytes(ByteBuffer b) {
            byte[] out = new byte[b.remaining()];
            b.duplicate().get(out);
            return out;
        }

        void apply(TablePlan.IndexWrite w) {
            Cell[] row = rows.computeIfAbsent(w.key(), k -> new Cell[3]);
            if (w instanceof TablePlan.Upsert u) {
                row[0] = win(row[0], new Cell(u.tid(), u.timestamp()));
                row[1] = win(row[1], new Cell(null, u.timestamp()));
                row[2] = win(row[2], new Cell(u.entry().proj()[0], u.timestamp()));
            } else {
                TablePlan.MarkDeleted m = (TablePlan.MarkDeleted) w;
                row[1] = win(row[1], new Cell(m.deletedAt(), m.timestamp()));
            }
        }

        Map<List<ByteBuffer>, Observed> actual() {
            Map<List<ByteBuffer>, Observed> out = new HashMap<>();
            rows.forEach((k, c) -> out.put(k, Observed.of(c[0] == null ? null : Tids.uuid(c[0].value()),
                    c[1] == null || c[1].value() == null ? null : Tids.uuid(c[1].value()),
                    Collections.singletonList(c[2] == null ? null : c[2].value()))));
            return out;
        }
    }

    @Test
    void should_find_nothing_when_index_holds_the_rebuild_writes_in_any_order() {
        long base = System.nanoTime();
        for (long seed = base; seed < base + 2000; seed++) {
            Random rnd = new Random(seed);
            List<Version> vs = new ArrayList<>();
            int n = 1 + rnd.nextInt(12);
            long tick = 0;
            for (int i = 0; i < n; i++) {
                tick += 1 + rnd.nextInt(3);
                vs.add(v("k", tick, rnd.nextInt(6) == 0 ? null : (long) rnd.nextInt(3), "v" + rnd.nextInt(3)));
            }
            List<TablePlan.IndexWrite> writes = new ArrayList<>(PLAN.diff(vs, true));
            Collections.shuffle(writes, rnd);
            Lww index = new Lww();
            writes.stream().filter(w -> w.index() == BY_LENGTH).forEach(index::apply);
            assertThat(check.compare(check.expected(vs), index.actual(), vs)).as("seed %d (%s)", seed, vs).isEmpty();
            for (TablePlan.IndexWrite w : writes) {
                assertThat(w.timestamp()).isGreaterThan(WriteTimestamps.of(tid(0)));
            }
        }
    }
}
