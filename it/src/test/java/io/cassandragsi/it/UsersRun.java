package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.NodeState;
import io.cassandragsi.oracle.Timeuuids;
import io.cassandragsi.schema.TableDef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A randomized history of an unversioned table shaped like schemas/examples/users.json (rows
 * overwritten in place) by concurrent writers: client timestamps up to 20 ms out of order, moves
 * to another email, projection changes, row deletes, cells set to null, emails written with a TTL
 * of 3 s, conditional updates, retries of the same statement. Faults make writes fail, and whether
 * a failed write landed is unknown, so the judge ({@link #drift}) takes what the base holds, read
 * at ALL, and derives the expected entries from it by the contract's rule alone (an entry matches
 * while its key attributes are live cells, docs/design.md sections 2 and 3.1), sharing no code
 * with the project.
 */
final class UsersRun {
    private static final String[] COUNTRIES = {"fr", "de", "jp"};
    final TableDef def;
    final long seed;
    final AtomicLong failed = new AtomicLong();
    final AtomicLong written = new AtomicLong();
    private final CqlSession session;
    private volatile Node coordinator;

    UsersRun(CqlSession session, TableDef def, long seed) {
        this.session = session;
        this.def = def;
        this.seed = seed;
    }

    /** From now on the writes go to {@code node} as coordinator while it is up (null: the driver's choice). */
    UsersRun coordinator(Node node) {
        this.coordinator = node;
        return this;
    }

    private String table() {
        return def.keyspace() + "." + def.table();
    }

    private void execute(SimpleStatement st) {
        Node node = coordinator;
        if (node != null && node.getState() == NodeState.UP) {
            st = st.setNode(node);
        }
        try {
            session.execute(st);
            written.incrementAndGet();
        } catch (RuntimeException e) {
            failed.incrementAndGet();
        }
    }

    /** Writes {@code writes} statements over {@code rows} rows with {@code writers} threads. Always sent as text (never prepared). */
    void write(int rows, int writes, int writers) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            Random rnd = new Random(seed * 31 + w);
            int count = writes / writers;
            done.add(pool.submit(() -> {
                SimpleStatement last = null;
                for (int i = 0; i < count; i++) {
                    String id = "u" + rnd.nextInt(rows);
                    String email = "e" + rnd.nextInt(6) + "@x";
                    long ts = Instant.now().toEpochMilli() * 1000 + rnd.nextInt(40_000) - 20_000;
                    String t = table();
                    SimpleStatement st = switch (rnd.nextInt(10)) {
                        case 0, 1 -> SimpleStatement.newInstance("INSERT INTO " + t + " (id, email, country, age, name) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP "
                                + ts, id, email, COUNTRIES[rnd.nextInt(3)], 20 + rnd.nextInt(4), "n" + rnd.nextInt(100));
                        case 2, 3 -> SimpleStatement.newInstance("UPDATE " + t + " USING TIMESTAMP " + ts + " SET email = ? WHERE id = ?", email, id);
                        case 4 -> SimpleStatement.newInstance("UPDATE " + t + " USING TIMESTAMP " + ts + " SET name = ? WHERE id = ?",
                                "n" + rnd.nextInt(100), id);
                        case 5 -> SimpleStatement.newInstance("DELETE FROM " + t + " USING TIMESTAMP " + ts + " WHERE id = ?", id);
                        case 6 -> SimpleStatement.newInstance("UPDATE " + t + " USING TTL 3 AND TIMESTAMP " + ts + " SET email = ? WHERE id = ?", email, id);
                        case 7 -> SimpleStatement.newInstance("UPDATE " + t + " SET country = ?, age = ? WHERE id = ? IF EXISTS",
                                COUNTRIES[rnd.nextInt(3)], 20 + rnd.nextInt(4), id);
                        case 8 -> SimpleStatement.newInstance("UPDATE " + t + " USING TIMESTAMP " + ts + " SET email = null WHERE id = ?", id);
                        default -> last; // a retry of the previous statement, same client timestamp
                    };
                    if (st != null) {
                        execute(st);
                        last = st;
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
    }

    /** An index entry as the judge keys it: the index name, its key values, the row id. */
    private record Key(String index, List<Object> values, String id) {}

    /**
     * Missing, stale and wrongly projected entries of both indexes (by_email, by_country) against
     * the base read at ALL now; empty when the index is exact.
     */
    List<String> drift() {
        Map<Key, String> expected = new HashMap<>();
        Map<String, String> rows = new HashMap<>();
        for (Row r : session.execute(SimpleStatement.newInstance("SELECT id, email, country, age, name, writetime(email), writetime(country), "
                + "writetime(age) FROM " + table()).setConsistencyLevel(ConsistencyLevel.ALL).setPageSize(5000))) {
            String id = r.getString("id");
            rows.put(id, String.format("email %s@%s country %s@%s age %s@%s", r.getString("email"), r.getObject(5), r.getString("country"),
                    r.getObject(6), r.getObject("age"), r.getObject(7)));
            if (r.getString("email") != null) {
                expected.put(new Key("by_email", List.of(r.getString("email")), id), r.getString("name"));
            }
            if (r.getString("country") != null && !r.isNull("age")) {
                expected.put(new Key("by_country", List.of(r.getString("country"), r.getInt("age")), id), r.getString("name"));
            }
        }
        Map<Key, String> matching = new HashMap<>();
        Map<Key, String> present = new HashMap<>();
        read("by_email", "email", matching, present);
        read("by_country", "country, age", matching, present);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Key, String> e : expected.entrySet()) {
            if (!matching.containsKey(e.getKey())) {
                problems.add("missing " + e.getKey() + " (" + (present.containsKey(e.getKey()) ? "not matching: " + present.get(e.getKey()) : "absent")
                        + "; base row " + rows.get(e.getKey().id()) + ")");
            } else if (!Objects.equals(matching.get(e.getKey()), e.getValue())) {
                problems.add("projection " + e.getKey() + ": name " + matching.get(e.getKey()) + ", base " + e.getValue());
            }
        }
        for (Key k : matching.keySet()) {
            if (!expected.containsKey(k)) {
                problems.add("stale " + k + " (" + present.get(k) + "; base row " + rows.get(k.id()) + "; rows table " + recorded(k.id()) + ")");
            }
        }
        return problems;
    }

    /** What the rows table holds for a row: {@code _w}, and each recorded key (hex) with its write time. */
    private String recorded(String id) {
        Row r = session.execute(SimpleStatement.newInstance("SELECT \"_w\", \"_keys\", writetime(\"_keys\") FROM " + def.keyspace() + ".idx_"
                + def.table() + "__rows WHERE id = ?", id).setConsistencyLevel(ConsistencyLevel.ALL)).one();
        if (r == null) {
            return "none";
        }
        List<String> keys = new ArrayList<>();
        List<java.nio.ByteBuffer> elements = new ArrayList<>(r.getSet(1, java.nio.ByteBuffer.class));
        List<Long> times = r.getList(2, Long.class);
        for (int i = 0; i < elements.size(); i++) {
            keys.add(com.datastax.oss.protocol.internal.util.Bytes.toHexString(elements.get(i)) + "@" + (i < times.size() ? times.get(i) : "?"));
        }
        return "_w " + (r.isNull(0) ? "null" : r.getLong(0)) + " _keys " + keys;
    }

    /** The entries of one index at ALL; those that match now (a live {@code _tid}, not deleted now: docs/design.md 3.1) go to {@code matching}. */
    private void read(String index, String keyColumns, Map<Key, String> matching, Map<Key, String> present) {
        Instant at = Instant.now();
        long now = at.getEpochSecond() * 10_000_000 + at.getNano() / 100;
        int keys = keyColumns.split(",").length;
        for (Row r : session.execute(SimpleStatement.newInstance("SELECT " + keyColumns + ", id, name, \"_tid\", \"_deleted\" FROM " + def.keyspace()
                + ".idx_" + def.table() + "_" + index + "_ever").setConsistencyLevel(ConsistencyLevel.ALL).setPageSize(5000))) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < keys; i++) {
                values.add(r.getObject(i));
            }
            Key key = new Key(index, values, r.getString("id"));
            UUID tid = r.getUuid("_tid");
            UUID deleted = r.getUuid("_deleted");
            present.put(key, "_tid " + tid + " _deleted " + deleted);
            boolean deletedNow = deleted != null && tid != null && Timeuuids.ticks(deleted) > Timeuuids.ticks(tid) && Timeuuids.ticks(deleted) <= now;
            if (tid != null && !deletedNow) {
                matching.put(key, r.getString("name"));
            }
        }
    }
}
