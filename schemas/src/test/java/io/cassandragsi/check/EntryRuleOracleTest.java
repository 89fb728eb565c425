package io.cassandragsi.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.RowReconcile.BaseCell;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The jobs' rules against the independent oracle ({@link IndexOracle}, docs/design.md section 11),
 * on random rows of both examples: the entries a rule expects are the oracle's, and a rebuild's
 * writes, applied in any order and some twice through the one last-write-wins model ({@link
 * LwwTable}), leave entries the rule judges clean. The seed is printed; {@code -Dgsi.seed=N}
 * replays.
 */
class EntryRuleOracleTest {
    private static final TableDef REVISIONS = Definitions.read(Path.of("examples/revisions.json"));
    private static final TableDef USERS = Definitions.read(Path.of("examples/users.json"));
    private static final long BASE_TICKS = Tids.ticks(java.time.Instant.parse("2025-01-01T00:00:00Z"));
    private static final int HISTORIES = 300;

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("EntryRuleOracleTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** An index table under last-write-wins, keyed by entry key, written as the index statements write. */
    private static final class Index {
        final LwwTable t = new LwwTable(() -> 1_800_000_000_000L);

        void apply(TablePlan.IndexWrite w) {
            List<ByteBuffer> key = List.copyOf(w.key());
            List<String> proj = w.index().index().proj().stream().map(c -> c.name()).toList();
            if (w instanceof TablePlan.Upsert u) {
                t.insertMarker(key, null, u.timestamp(), 0);
                if (!u.index().perVersion()) {
                    t.write(key, null, "_tid", u.tid(), u.timestamp(), 0);
                }
                for (int i = 0; i < proj.size(); i++) {
                    t.write(key, null, proj.get(i), u.entry().proj()[i], u.timestamp(), 0);
                }
            } else if (w instanceof TablePlan.MarkDeleted m) {
                t.write(key, null, "_deleted", m.deletedAt(), m.timestamp(), 0);
            } else if (w instanceof TablePlan.Reconciled r) {
                if (r.tid() != null) {
                    t.write(key, null, "_tid", r.tid(), r.timestamp(), r.ttl());
                }
                for (int i = 0; i < proj.size(); i++) {
                    if (r.proj()[i] != null) {
                        t.write(key, null, proj.get(i), r.proj()[i].value(), r.proj()[i].timestamp(), r.proj()[i].ttl());
                    }
                }
            } else {
                t.deleteRow(key, null, w.timestamp());
            }
        }

        @SuppressWarnings("unchecked")
        Map<List<ByteBuffer>, Observed> entries(IndexPlan p) {
            Map<List<ByteBuffer>, Observed> out = new LinkedHashMap<>();
            for (LwwTable.RowKey k : t.liveRows()) {
                List<ByteBuffer> key = (List<ByteBuffer>) k.partition();
                List<ByteBuffer> proj = new ArrayList<>();
                p.index().proj().forEach(c -> proj.add(t.value(key, null, c.name())));
                ByteBuffer tid = t.value(key, null, "_tid");
                ByteBuffer deleted = t.value(key, null, "_deleted");
                out.put(key, Observed.of(tid == null ? null : Tids.uuid(tid), deleted == null ? null : Tids.uuid(deleted), proj));
            }
            return out;
        }
    }

    private static <H extends RowHistory> void assertRebuildJudgedClean(EntryRule<H> rule, List<H> rows, Random rnd, long seed) {
        for (IndexPlan p : rule.plan().indexes()) {
            List<TablePlan.IndexWrite> writes = new ArrayList<>();
            for (H row : rows) {
                writes.addAll(rule.rebuild(row, null, List.of(p), Map.of()).index());
            }
            writes.addAll(writes.subList(0, writes.size() / 3)); // some twice
            Collections.shuffle(writes, rnd);
            Index index = new Index();
            writes.forEach(index::apply);
            Map<List<ByteBuffer>, Observed> found = index.entries(p);
            for (H row : rows) {
                rule.expected(p, row).forEach((key, e) -> assertThat(rule.judge(p, key, e, found.remove(key), row))
                        .as("seed %d, index %s, row %s", seed, p.index().name(), row.rowKey()).isEmpty());
            }
            assertThat(found).as("seed %d, index %s: entries no row explains", seed, p.index().name()).isEmpty();
        }
    }

    @Test
    void should_expect_what_the_oracle_expects_and_judge_a_rebuild_clean_when_versions_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        VersionedEntries rule = (VersionedEntries) EntryRule.of(TablePlan.of(REVISIONS));
        for (int h = 0; h < HISTORIES; h++) {
            IndexOracle oracle = new IndexOracle(REVISIONS);
            List<RowHistory.Versions> rows = new ArrayList<>();
            long tick = BASE_TICKS;
            for (int k = 0; k < 1 + rnd.nextInt(4); k++) {
                List<Version> versions = new ArrayList<>();
                for (int v = 0; v < 1 + rnd.nextInt(6); v++) {
                    tick += 1 + rnd.nextInt(3);
                    Integer length = rnd.nextInt(6) == 0 ? null : rnd.nextInt(3);
                    ByteBuffer[] values = {text("k" + k), Tids.bytes(Tids.fromTicks(tick, rnd.nextLong())),
                        length == null ? null : ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray()), text("v" + rnd.nextInt(3))};
                    versions.add(new Version(values, 1));
                    oracle.write(values);
                }
                Collections.shuffle(versions, rnd); // the rule keeps them ascending
                rows.add(new RowHistory.Versions(List.of(text("k" + k)), versions));
            }
            for (IndexPlan p : rule.plan().indexes()) {
                Map<List<ByteBuffer>, Expected> expected = new LinkedHashMap<>();
                rows.forEach(r -> expected.putAll(rule.expected(p, r)));
                Map<List<ByteBuffer>, Expected> fromOracle = new LinkedHashMap<>();
                oracle.expected(p.index().name()).forEach((key, e) -> fromOracle.put(key,
                        new Expected(e.tid(), p.perVersion() ? null : e.deleted(), e.proj())));
                assertThat(expected).as("seed %d, index %s", seed, p.index().name()).isEqualTo(fromOracle);
            }
            assertRebuildJudgedClean(rule, rows, rnd, seed);
        }
    }

    @Test
    void should_expect_what_the_oracle_expects_and_judge_a_rebuild_clean_when_cells_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        UnversionedEntries rule = (UnversionedEntries) EntryRule.of(TablePlan.of(USERS));
        long micros = WriteTimestamps.toEpochMillis(BASE_TICKS) * 1000;
        String[] emails = {"a@x", "b@x", "c@x"};
        for (int h = 0; h < HISTORIES; h++) {
            IndexOracle oracle = new IndexOracle(USERS);
            List<RowHistory.Current> rows = new ArrayList<>();
            for (int k = 0; k < 1 + rnd.nextInt(5); k++) {
                // id, email, country, age, name: each regular cell live or dead, at its own write time
                BaseCell[] cells = new BaseCell[5];
                List<IndexOracle.Cell> seen = new ArrayList<>();
                cells[0] = BaseCell.key(text("u" + k));
                seen.add(new IndexOracle.Cell(text("u" + k), Long.MIN_VALUE));
                for (int a = 1; a < 5; a++) {
                    ByteBuffer v = rnd.nextInt(5) == 0 ? null : switch (a) {
                        case 1 -> text(emails[rnd.nextInt(3)]);
                        case 2 -> text(rnd.nextBoolean() ? "fr" : "de");
                        case 3 -> ByteBuffer.allocate(4).putInt(0, 20 + rnd.nextInt(3));
                        default -> text("n" + rnd.nextInt(3));
                    };
                    long w = micros + rnd.nextInt(1_000_000);
                    cells[a] = v == null ? BaseCell.DEAD : new BaseCell(v, w, rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(3600) : 0);
                    seen.add(v == null ? IndexOracle.Cell.NONE : new IndexOracle.Cell(v, w));
                }
                rows.add(new RowHistory.Current(new CurrentRow(List.of(text("u" + k)), new RowReconcile.BaseRow(cells))));
                oracle.row(seen);
            }
            for (IndexPlan p : rule.plan().indexes()) {
                Map<List<ByteBuffer>, Expected> expected = new LinkedHashMap<>();
                rows.forEach(r -> expected.putAll(rule.expected(p, r)));
                Map<List<ByteBuffer>, IndexOracle.Entry> fromOracle = oracle.expected(p.index().name());
                assertThat(expected.keySet()).as("seed %d, index %s", seed, p.index().name()).isEqualTo(fromOracle.keySet());
                fromOracle.forEach((key, e) -> {
                    assertThat(WriteTimestamps.of(expected.get(key).tid())).as("seed %d: _tid's tick", seed).isEqualTo(e.versionTicks());
                    assertThat(expected.get(key).proj()).as("seed %d: projections", seed).isEqualTo(e.proj());
                    assertThat(expected.get(key).deleted()).isNull();
                });
            }
            assertRebuildJudgedClean(rule, rows, rnd, seed);
        }
    }
}
