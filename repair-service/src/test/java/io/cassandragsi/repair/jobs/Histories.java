package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.Observed;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * Histories of the two example tables written into {@link MemoryTables} and, beside them, into the
 * independent oracle ({@link IndexOracle}), for the jobs' unit tests: {@code revisions} (versioned;
 * {@code by_length} keeps one entry per row, {@code by_tid} one per version) and {@code users}
 * (unversioned; {@code by_email}, {@code by_country}). A few rows have the shapes the tests
 * damage; the others are random from a fixed seed.
 */
final class Histories {
    static final TableDef REVISIONS = Definitions.read(Path.of("../schemas/examples/revisions.json"));
    static final TableDef USERS = Definitions.read(Path.of("../schemas/examples/users.json"));
    /** The clock of the tables (TTLs), and the TS of now for the jobs: after every write of the histories. */
    static final long NOW_MILLIS = Instant.parse("2025-06-01T00:00:00Z").toEpochMilli();
    static final long NOW_TS = NOW_MILLIS * 10_000;
    static final long BASE_TICKS = Tids.ticks(Instant.parse("2025-01-01T00:00:00Z"));

    private Histories() {}

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer varint(BigInteger v) {
        return ByteBuffer.wrap(v.toByteArray());
    }

    /** A table with its history, and the oracle of that history. */
    record World(MemoryTables tables, IndexOracle oracle, Map<String, UUID> tids) {
        IndexPlan index(String name) {
            return tables.index(name);
        }

        /** The tid of a named version of the crafted rows ("a1": row a, version 1). */
        UUID tid(String name) {
            return tids.get(name);
        }
    }

    /**
     * revisions: crafted rows a and f (lengths 1, 2, 3), b (1, 1), c (2, then none), d (5, 6; the
     * second deleted), e (a length too large for a key, then 3), and 20 random rows.
     */
    static World versioned() {
        MemoryTables t = new MemoryTables(REVISIONS, NOW_MILLIS);
        IndexOracle oracle = new IndexOracle(REVISIONS);
        Map<String, UUID> tids = new LinkedHashMap<>();
        long[] tick = {BASE_TICKS};
        Random rnd = new Random(24);
        class Writer {
            ByteBuffer[] version(String key, String name, BigInteger length, String value) {
                tick[0] += 1 + rnd.nextInt(3);
                UUID tid = Tids.fromTicks(tick[0], rnd.nextLong());
                tids.put(name, tid);
                ByteBuffer[] values = {text(key), Tids.bytes(tid), length == null ? null : varint(length), text(value)};
                t.insert(tick[0] / 10, values);
                oracle.write(values);
                return values;
            }
        }
        Writer w = new Writer();
        w.version("a", "a1", BigInteger.ONE, "a1");
        w.version("a", "a2", BigInteger.TWO, "a2");
        w.version("a", "a3", BigInteger.valueOf(3), "a3");
        w.version("b", "b1", BigInteger.ONE, "b1");
        w.version("b", "b2", BigInteger.ONE, "b2");
        w.version("c", "c1", BigInteger.TWO, "c1");
        w.version("c", "c2", null, "c2");
        w.version("d", "d1", BigInteger.valueOf(5), "d1");
        ByteBuffer[] d2 = w.version("d", "d2", BigInteger.valueOf(6), "d2");
        t.delete(d2, tick[0] / 10 + 1);
        oracle.delete(List.of(text("d")), tids.get("d2"));
        w.version("e", "e1", BigInteger.ONE.shiftLeft(8 * 70_000), "e1"); // a varint of 70,001 bytes
        w.version("e", "e2", BigInteger.valueOf(3), "e2");
        w.version("f", "f1", BigInteger.ONE, "f1");
        w.version("f", "f2", BigInteger.TWO, "f2");
        w.version("f", "f3", BigInteger.valueOf(3), "f3");
        for (int k = 0; k < 20; k++) {
            for (int v = 0; v < 1 + rnd.nextInt(4); v++) {
                w.version("k" + k, "k" + k + "-" + v, rnd.nextInt(6) == 0 ? null : BigInteger.valueOf(1 + rnd.nextInt(4)), "v" + rnd.nextInt(3));
            }
        }
        return new World(t, oracle, tids);
    }

    /**
     * users: 20 rows written cell by cell at client timestamps (some older than the cell they meet,
     * some with a TTL, some deleting a cell); crafted rows m, t, k, r, x ({@code <id>@x} and a name),
     * p ({@code p@x}, no name), o ({@code o2@x}); row "gone" deleted, row "big" with an email too
     * large for a key; then the oracle given every row as the base holds it.
     */
    static World unversioned() {
        MemoryTables t = new MemoryTables(USERS, NOW_MILLIS);
        long micros = WriteTimestamps.toEpochMillis(BASE_TICKS) * 1000;
        Random rnd = new Random(24);
        String[] emails = {"a@x", "b@x", "c@x"};
        List<String> ids = new ArrayList<>();
        for (int k = 0; k < 20; k++) {
            String id = "u" + k;
            ids.add(id);
            ByteBuffer[] key = {text(id), null, null, null, null};
            for (int n = 0; n < 1 + rnd.nextInt(4); n++) {
                long ts = micros + rnd.nextInt(10_000_000);
                int ttl = rnd.nextInt(5) == 0 ? 3600 : 0;
                t.write(key, "email", rnd.nextInt(6) == 0 ? null : text(emails[rnd.nextInt(3)]), ts, ttl);
                if (rnd.nextBoolean()) {
                    t.write(key, "country", text(rnd.nextBoolean() ? "fr" : "de"), ts + rnd.nextInt(5), 0);
                    t.write(key, "age", ByteBuffer.allocate(4).putInt(0, 20 + rnd.nextInt(3)), ts + rnd.nextInt(5), 0);
                }
                t.write(key, "name", rnd.nextInt(5) == 0 ? null : text("n" + rnd.nextInt(3)), ts + rnd.nextInt(5), ttl);
            }
        }
        // crafted rows, each with an email and (but for "p") a name, at times of their own: the tests damage their entries
        long crafted = micros + 20_000_000;
        for (String id : List.of("m", "t", "k", "p", "o", "r", "x")) {
            ByteBuffer[] key = {text(id), null, null, null, null};
            crafted += 1_000;
            t.write(key, "email", text((id.equals("o") ? "o2" : id) + "@x"), crafted, 0);
            if (!id.equals("p")) {
                t.write(key, "name", text(id.toUpperCase(java.util.Locale.ROOT)), crafted + 10, 0);
            }
            ids.add(id);
        }
        ByteBuffer[] gone = {text("gone"), null, null, null, null};
        t.write(gone, "email", text("gone@x"), micros, 0);
        t.delete(gone, micros + 1);
        ByteBuffer[] big = {text("big"), null, null, null, null};
        t.write(big, "email", text("x".repeat(70_000)), micros, 0);
        t.write(big, "country", text("fr"), micros, 0);
        t.write(big, "age", ByteBuffer.allocate(4).putInt(0, 30), micros, 0);
        ids.addAll(List.of("gone", "big"));
        IndexOracle oracle = new IndexOracle(USERS);
        for (String id : ids) {
            RowHistory.Current row = t.current().row(List.of(text(id))).join();
            List<IndexOracle.Cell> cells = new ArrayList<>();
            boolean live = false;
            for (var c : row.row().cells().cells()) {
                cells.add(c.value() == null ? IndexOracle.Cell.NONE : new IndexOracle.Cell(c.value(), c.writetime()));
                live |= c.value() != null && c.writetime() != Long.MIN_VALUE;
            }
            if (live) {
                oracle.row(cells);
            }
        }
        return new World(t, oracle, Map.of());
    }

    /**
     * How the index differs from the oracle as reads see it (docs/design.md section 3.1): an
     * expected entry missing, or with another {@code _tid} (unversioned: another tick than its
     * newest key cell's, or than its mark's next one), a wrong {@code _deleted} (a later
     * non-matching version is counted apart, in {@code approximate[0]}), other projections; an entry
     * no row explains that still claims a match.
     */
    static List<String> drift(World w, String index, int[] approximate) {
        IndexPlan p = w.index(index);
        Map<List<ByteBuffer>, Observed> found = new LinkedHashMap<>(w.tables().entries(p));
        List<String> out = new ArrayList<>();
        w.oracle().expected(index).forEach((key, e) -> {
            Observed a = found.remove(key);
            if (a == null) {
                out.add("missing " + key);
                return;
            }
            if (!a.proj().equals(e.proj())) {
                out.add("projection " + key);
            }
            if (p.perVersion()) {
                return;
            }
            if (w.oracle().versioned()) {
                if (!e.tid().equals(a.tid())) {
                    out.add("_tid " + key);
                }
                switch (w.oracle().judgeDeleted(index, key, e, a.effectiveDeleted())) {
                    case WRONG -> out.add("_deleted " + key);
                    case LATER_NON_MATCHING_VERSION -> approximate[0]++;
                    default -> {}
                }
                return;
            }
            long tick = a.tid() == null ? Long.MIN_VALUE : WriteTimestamps.of(a.tid());
            boolean again = a.deleted() != null && WriteTimestamps.of(a.deleted()) >= e.versionTicks() && tick == WriteTimestamps.of(a.deleted()) + 1;
            if (tick != e.versionTicks() && !again) {
                out.add("_tid " + key);
            }
            if (a.effectiveDeleted() != null) {
                out.add("_deleted " + key);
            }
        });
        found.forEach((key, a) -> {
            if (a.claimsMatch(p.perVersion())) {
                out.add("orphan " + key);
            }
        });
        return out;
    }
}
