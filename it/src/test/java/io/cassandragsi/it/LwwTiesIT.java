package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultProtocolVersion;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.oracle.LwwTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cassandra 5.0.6's last-write-wins tie rules on a real node, against the tests' one model of them
 * ({@link LwwTable}, schemas test-jar). Each scenario writes cells at one client timestamp through
 * CQL and, step by step, into the model, then reads every cell of its rows back from the node
 * (value, {@code WRITETIME}, {@code TTL}; for the set, its elements with theirs) and from the
 * model, prints both and requires them equal. Every statement carries the protocol's {@code
 * now_in_seconds} (native protocol v5), so the node computes expiries and TTLs from the same second
 * as the model; reads can be made at a later second to see an expiry. Each scenario runs twice, its
 * writes in the order given and reversed (a tie must not depend on the order), each time in a
 * partition of its own.
 *
 * <p>Tables: {@code t (k text, c int, v text, b blob, s set<text>, PRIMARY KEY (k, c))} for cells,
 * row and range deletes; {@code p (k text PRIMARY KEY, v text)}, whose row delete is a partition
 * delete.
 */
class LwwTiesIT {
    private static final String KS = "it_lww_ties";
    private static CqlSession session;
    /** Every scenario's client timestamp: ties are at T, a few steps away from it. */
    private static final long T = System.currentTimeMillis() * 1000;
    /** Every scenario's now: the statements' now_in_seconds (TTLs count from it). */
    private static final long N = System.currentTimeMillis() / 1000;

    /** The model: the same two tables, on a clock each step and read sets. */
    private static final class Model {
        final AtomicLong clock = new AtomicLong();
        final LwwTable t = new LwwTable(clock::get);
        final LwwTable p = new LwwTable(clock::get);
    }

    /** One write: its CQL, whose last bind marker is the partition key {@code k}, the second it is made at, and what it does to the model. */
    private record Op(String cql, List<Object> values, long now, BiConsumer<Model, String> model) {}

    private record Scenario(String name, List<Op> ops, List<Integer> rows, boolean partitionTable, List<Long> readAt) {}

    @BeforeAll
    static void setUp() {
        session = SharedCluster.session();
        assertThat(session.getContext().getProtocolVersion().getCode())
                .as("now_in_seconds needs native protocol v5 (Cassandra 5.0 speaks it)").isGreaterThanOrEqualTo(DefaultProtocolVersion.V5.getCode());
        session.execute(SimpleStatement.newInstance("DROP KEYSPACE IF EXISTS " + KS).setTimeout(java.time.Duration.ofSeconds(60)));
        session.execute("CREATE KEYSPACE " + KS + " WITH replication = " + SharedCluster.REPLICATION);
        session.execute("CREATE TABLE " + KS + ".t (k text, c int, v text, b blob, s set<text>, PRIMARY KEY (k, c))");
        session.execute("CREATE TABLE " + KS + ".p (k text PRIMARY KEY, v text)");
        session.checkSchemaAgreement();
    }

    private static ByteBuffer utf8(String s) {
        return s == null ? null : ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static String using(long ts, int ttl) {
        return " USING TIMESTAMP " + ts + (ttl > 0 ? " AND TTL " + ttl : "");
    }

    // ----- the writes, each in CQL and in the model

    /** {@code UPDATE t SET v = ?} (null: a tombstone). */
    private static Op v(int c, String value, long ts, int ttl, long now) {
        return new Op("UPDATE " + KS + ".t" + using(ts, ttl) + " SET v = ? WHERE c = ? AND k = ?", Arrays.asList(value, c), now,
                (m, k) -> m.t.write(k, c, "v", utf8(value), ts, ttl));
    }

    /** {@code UPDATE t SET b = ?}. */
    private static Op b(int c, int[] bytes, long ts, long now) {
        ByteBuffer value = ByteBuffer.allocate(bytes.length);
        for (int x : bytes) {
            value.put((byte) x);
        }
        value.flip();
        return new Op("UPDATE " + KS + ".t" + using(ts, 0) + " SET b = ? WHERE c = ? AND k = ?", Arrays.asList(value.duplicate(), c), now,
                (m, k) -> m.t.write(k, c, "b", value.duplicate(), ts, 0));
    }

    /** {@code DELETE v FROM t}. */
    private static Op deleteV(int c, long ts, long now) {
        return new Op("DELETE v FROM " + KS + ".t" + using(ts, 0) + " WHERE c = ? AND k = ?", List.of(c), now,
                (m, k) -> m.t.deleteColumn(k, c, "v", ts));
    }

    /** {@code INSERT INTO t (k, c, v)}: a row marker and the cell. */
    private static Op insert(int c, String value, long ts, int ttl, long now) {
        return new Op("INSERT INTO " + KS + ".t (c, v, k) VALUES (?, ?, ?)" + using(ts, ttl), Arrays.asList(c, value), now, (m, k) -> {
            m.t.insertMarker(k, c, ts, ttl);
            m.t.write(k, c, "v", utf8(value), ts, ttl);
        });
    }

    /** {@code DELETE FROM t WHERE k = ? AND c = ?}: a row delete. */
    private static Op deleteRow(int c, long ts, long now) {
        return new Op("DELETE FROM " + KS + ".t" + using(ts, 0) + " WHERE c = ? AND k = ?", List.of(c), now, (m, k) -> m.t.deleteRow(k, c, ts));
    }

    /** {@code DELETE FROM t WHERE k = ? AND c >= ?}: a range delete. */
    private static Op deleteFrom(int c, long ts, long now) {
        return new Op("DELETE FROM " + KS + ".t" + using(ts, 0) + " WHERE c >= ? AND k = ?", List.of(c), now,
                (m, k) -> m.t.deleteRange(k, c, true, null, false, ts));
    }

    /** {@code UPDATE t SET s = s + {e}}. */
    private static Op add(int c, String e, long ts, int ttl, long now) {
        return new Op("UPDATE " + KS + ".t" + using(ts, ttl) + " SET s = s + ? WHERE c = ? AND k = ?", Arrays.asList(Set.of(e), c), now,
                (m, k) -> m.t.addElement(k, c, "s", utf8(e), ts, ttl));
    }

    /** {@code UPDATE t SET s = s - {e}}. */
    private static Op remove(int c, String e, long ts, long now) {
        return new Op("UPDATE " + KS + ".t" + using(ts, 0) + " SET s = s - ? WHERE c = ? AND k = ?", Arrays.asList(Set.of(e), c), now,
                (m, k) -> m.t.removeElement(k, c, "s", utf8(e), ts));
    }

    /** {@code UPDATE t SET s = {elements}}: the set deleted at ts - 1, then the elements at ts. */
    private static Op setS(int c, List<String> elements, long ts, long now) {
        return new Op("UPDATE " + KS + ".t" + using(ts, 0) + " SET s = ? WHERE c = ? AND k = ?", Arrays.asList(new LinkedHashSet<>(elements), c),
                now, (m, k) -> m.t.setCollection(k, c, "s", elements.stream().map(LwwTiesIT::utf8).toList(), ts, 0));
    }

    /** {@code DELETE s FROM t}: the set's own deletion. */
    private static Op deleteS(int c, long ts, long now) {
        return new Op("DELETE s FROM " + KS + ".t" + using(ts, 0) + " WHERE c = ? AND k = ?", List.of(c), now,
                (m, k) -> m.t.deleteCollection(k, c, "s", ts));
    }

    /** {@code UPDATE p SET v = ?}. */
    private static Op pv(String value, long ts, long now) {
        return new Op("UPDATE " + KS + ".p" + using(ts, 0) + " SET v = ? WHERE k = ?", Arrays.asList(value), now,
                (m, k) -> m.p.write(k, null, "v", utf8(value), ts, 0));
    }

    /** {@code INSERT INTO p (k, v)}. */
    private static Op pInsert(String value, long ts, long now) {
        return new Op("INSERT INTO " + KS + ".p (v, k) VALUES (?, ?)" + using(ts, 0), Arrays.asList(value), now, (m, k) -> {
            m.p.insertMarker(k, null, ts, 0);
            m.p.write(k, null, "v", utf8(value), ts, 0);
        });
    }

    /** {@code DELETE FROM p WHERE k = ?}: on a table without clustering columns, a partition delete. */
    private static Op pDelete(long ts, long now) {
        return new Op("DELETE FROM " + KS + ".p" + using(ts, 0) + " WHERE k = ?", List.of(), now, (m, k) -> m.p.deletePartition(k, ts));
    }

    private static Scenario scenario(String name, List<Integer> rows, List<Long> readAt, Op... ops) {
        return new Scenario(name, List.of(ops), rows, false, readAt);
    }

    // ----- running and comparing

    /** What a read of one row shows: whether it exists, each cell's value, WRITETIME and TTL, the set's elements with theirs. */
    private record Seen(boolean exists, String v, Long vWritetime, Integer vTtl, String b, Long bWritetime, Integer bTtl, List<String> s,
            List<Long> sWritetimes, List<Integer> sTtls) {}

    private static String hex(ByteBuffer b) {
        if (b == null) {
            return null;
        }
        StringBuilder out = new StringBuilder("0x");
        for (int i = b.position(); i < b.limit(); i++) {
            out.append(String.format("%02x", b.get(i)));
        }
        return out.toString();
    }

    /** A list<bigint> or list<int> as the protocol serializes it (v3+: an int count, then each element as an int length and its bytes; -1: null). */
    private static List<Long> numbers(ByteBuffer raw) {
        if (raw == null) {
            return List.of();
        }
        ByteBuffer b = raw.duplicate();
        int n = b.getInt();
        List<Long> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            if (len < 0) {
                out.add(null);
            } else {
                out.add(len == 8 ? b.getLong() : (long) b.getInt());
            }
        }
        return out;
    }

    private static Seen node(String k, int c, long now) {
        Row r = session.execute(SimpleStatement.newInstance("SELECT v, WRITETIME(v), TTL(v), b, WRITETIME(b), TTL(b), s, WRITETIME(s), TTL(s)"
                + " FROM " + KS + ".t WHERE k = ? AND c = ?", k, c).setNowInSeconds((int) now)).one();
        if (r == null) {
            return new Seen(false, null, null, null, null, null, null, List.of(), List.of(), List.of());
        }
        List<Long> ttls = numbers(r.getBytesUnsafe(8));
        return new Seen(true, r.getString(0), r.isNull(1) ? null : r.getLong(1), r.isNull(2) ? null : r.getInt(2), hex(r.getBytesUnsafe(3)),
                r.isNull(4) ? null : r.getLong(4), r.isNull(5) ? null : r.getInt(5), new ArrayList<>(r.getSet(6, String.class)),
                numbers(r.getBytesUnsafe(7)), ttls.stream().map(x -> x == null ? null : x.intValue()).toList());
    }

    private static Seen model(Model m, String k, int c, long now) {
        m.clock.set(now * 1000);
        if (!m.t.exists(k, c)) {
            return new Seen(false, null, null, null, null, null, null, List.of(), List.of(), List.of());
        }
        ByteBuffer v = m.t.value(k, c, "v");
        List<String> s = new ArrayList<>();
        List<Long> sWritetimes = new ArrayList<>();
        List<Integer> sTtls = new ArrayList<>();
        for (Map.Entry<ByteBuffer, LwwTable.Cell> e : m.t.elements(k, c, "s").entrySet()) {
            s.add(StandardCharsets.UTF_8.decode(e.getKey().duplicate()).toString());
            sWritetimes.add(e.getValue().timestamp());
            sTtls.add(LwwTable.ttlOf(e.getValue(), now));
        }
        return new Seen(true, v == null ? null : StandardCharsets.UTF_8.decode(v.duplicate()).toString(), m.t.writetime(k, c, "v"),
                m.t.ttl(k, c, "v"), hex(m.t.value(k, c, "b")), m.t.writetime(k, c, "b"), m.t.ttl(k, c, "b"), s, sWritetimes, sTtls);
    }

    /** What a read of a row of p shows: whether it exists, v, WRITETIME(v). */
    private static List<Object> nodeP(String k, long now) {
        Row r = session.execute(SimpleStatement.newInstance("SELECT v, WRITETIME(v) FROM " + KS + ".p WHERE k = ?", k)
                .setNowInSeconds((int) now)).one();
        return r == null ? Arrays.asList(false, null, null) : Arrays.asList(true, r.getString(0), r.isNull(1) ? null : r.getLong(1));
    }

    private static List<Object> modelP(Model m, String k, long now) {
        m.clock.set(now * 1000);
        ByteBuffer v = m.p.value(k, null, "v");
        return Arrays.asList(m.p.exists(k, null), v == null ? null : StandardCharsets.UTF_8.decode(v.duplicate()).toString(),
                m.p.writetime(k, null, "v"));
    }

    /** Runs a scenario in the given order and reversed, each in its own partition, and compares every row at every read second. */
    private static void run(Scenario sc) {
        for (boolean reversed : new boolean[] {false, true}) {
            String k = sc.name() + (reversed ? "/reversed" : "/in-order");
            List<Op> ops = new ArrayList<>(sc.ops());
            if (reversed) {
                Collections.reverse(ops);
            }
            Model m = new Model();
            for (Op op : ops) {
                List<Object> values = new ArrayList<>(op.values());
                values.add(k);
                session.execute(SimpleStatement.newInstance(op.cql(), values.toArray()).setNowInSeconds((int) op.now()));
                m.clock.set(op.now() * 1000);
                op.model().accept(m, k);
            }
            for (long dt : sc.readAt()) {
                long now = N + dt;
                if (sc.partitionTable()) {
                    List<Object> node = nodeP(k, now);
                    List<Object> model = modelP(m, k, now);
                    System.out.printf("LwwTiesIT %s at now+%d: node %s | model %s%n", k, dt, node, model);
                    assertThat(node).as("%s at now+%d: [exists, v, WRITETIME(v)]", k, dt).isEqualTo(model);
                    continue;
                }
                for (int c : sc.rows()) {
                    Seen node = node(k, c, now);
                    Seen model = model(m, k, c, now);
                    System.out.printf("LwwTiesIT %s c=%d at now+%d:%n  node  %s%n  model %s%n", k, c, dt, node, model);
                    assertThat(node).as("%s c=%d at now+%d", k, c, dt).isEqualTo(model);
                }
            }
        }
    }

    private static final List<Integer> ROW = List.of(1);
    private static final List<Long> NOW = List.of(0L);

    // ----- the scenarios

    @Test
    void should_keep_the_greater_value_by_unsigned_bytes_when_two_live_cells_tie() {
        run(scenario("live-live-text", ROW, NOW, v(1, "a", T, 0, N), v(1, "b", T, 0, N)));
        run(scenario("live-live-blob", ROW, NOW, b(1, new int[] {0x7f}, T, N), b(1, new int[] {0x80}, T, N))); // 0x80 is the greater unsigned
        run(scenario("live-live-prefix", ROW, NOW, b(1, new int[] {0x01}, T, N), b(1, new int[] {0x01, 0x00}, T, N)));
        run(scenario("later-timestamp", ROW, NOW, v(1, "z", T, 0, N), v(1, "a", T + 1, 0, N)));
    }

    @Test
    void should_keep_the_tombstone_when_it_ties_with_a_live_cell() {
        run(scenario("live-tombstone", ROW, NOW, v(1, "z", T, 0, N), deleteV(1, T, N)));
        run(scenario("live-null", ROW, NOW, v(1, "z", T, 0, N), v(1, null, T, 0, N)));
    }

    @Test
    void should_keep_the_expiring_cell_and_not_bring_the_live_one_back_when_they_tie_and_it_expires() {
        run(scenario("live-expiring", ROW, List.of(0L, 99L, 100L), v(1, "z", T, 0, N), v(1, "a", T, 100, N)));
    }

    @Test
    void should_keep_the_later_expiry_then_the_lower_ttl_then_the_greater_value_when_two_expiring_cells_tie() {
        run(scenario("expiring-longer-ttl", ROW, List.of(0L, 50L), v(1, "z", T, 50, N), v(1, "a", T, 100, N)));
        run(scenario("expiring-written-later", ROW, NOW, v(1, "z", T, 100, N), v(1, "a", T, 100, N + 1)));
        // both expire at N + 100: the one with the lower TTL (written 10 s later) wins, whatever its value
        run(scenario("expiring-same-expiry-lower-ttl", ROW, List.of(10L), v(1, "z", T, 100, N), v(1, "a", T, 90, N + 10)));
        run(scenario("expiring-equal-ttl", ROW, NOW, v(1, "a", T, 100, N), v(1, "b", T, 100, N)));
    }

    @Test
    void should_keep_the_tombstone_when_it_ties_with_an_expiring_cell() {
        run(scenario("expiring-tombstone", ROW, NOW, v(1, "a", T, 100, N), deleteV(1, T, N)));
    }

    @Test
    void should_shadow_what_was_written_at_its_timestamp_when_a_row_range_or_partition_is_deleted() {
        run(scenario("row-delete-tie", ROW, NOW, v(1, "a", T, 0, N), b(1, new int[] {1}, T + 1, N), deleteRow(1, T, N)));
        run(scenario("insert-row-delete-tie", ROW, NOW, insert(1, "a", T, 0, N), deleteRow(1, T, N)));
        run(scenario("range-delete-tie", List.of(1, 2, 3), NOW, v(1, "a", T, 0, N), v(2, "b", T, 0, N), v(3, "c", T, 0, N), v(3, "d", T + 1, 0, N),
                deleteFrom(2, T, N)));
        run(new Scenario("partition-delete-tie", List.of(pv("a", T, N), pDelete(T, N)), List.of(), true, NOW));
        run(new Scenario("partition-delete-then-insert", List.of(pv("a", T, N), pDelete(T, N), pInsert("b", T + 1, N)), List.of(), true, NOW));
    }

    @Test
    void should_reconcile_elements_as_cells_when_a_set_is_added_to_removed_from_overwritten_or_deleted() {
        run(scenario("element-add-remove-tie", ROW, NOW, add(1, "x", T, 0, N), remove(1, "x", T, N)));
        run(scenario("element-live-expiring-tie", ROW, List.of(0L, 100L), add(1, "x", T, 0, N), add(1, "x", T, 100, N), add(1, "y", T, 0, N)));
        // the overwrite deletes the set at T - 1: an element added at T - 1 goes, one added at T stays
        run(scenario("set-overwrite", ROW, NOW, add(1, "c", T - 1, 0, N), setS(1, List.of("a", "b"), T, N), add(1, "d", T, 0, N)));
        run(scenario("set-delete-tie", ROW, NOW, add(1, "y", T, 0, N), deleteS(1, T, N), add(1, "z", T + 1, 0, N)));
    }
}
