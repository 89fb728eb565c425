package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.oracle.Timeuuids;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A randomized history of versions written through CQL to a revisions-shaped table by concurrent
 * writers (old tids, retries of the same tid, tids 100 ns apart, A-B-A flips, partial updates,
 * conditional inserts, nulls), with the oracle of the final state ({@link IndexOracle}: the
 * expected index from the versions alone, sharing no code with the project), and a comparison of
 * the index tables with it.
 */
final class HistoryRun {
    final long seed;
    final TableDef def;
    final TablePlan plan;
    IndexOracle oracle;
    /** Writes that failed (only in a tolerant run, {@link #tolerateFailures}): they may or may not have landed. */
    final AtomicLong failed = new AtomicLong();
    /** The row keys of the writes that failed: whether they landed is unknown. */
    final Set<String> failedKeys = ConcurrentHashMap.newKeySet();
    private volatile boolean tolerant;
    /** Whether a twentieth of the writes are conditional ({@code IF NOT EXISTS}; the default). */
    private volatile boolean conditional = true;
    /** Statements prepared (the default) or sent as text: a statement prepared before DROP TRIGGER still runs the trigger. */
    private volatile boolean prepared = true;
    /** The coordinator the writes go to while it is up, or null for the driver's choice. */
    private volatile com.datastax.oss.driver.api.core.metadata.Node coordinator;
    private final CqlSession session;
    private final Map<UUID, Object[]> written = new ConcurrentHashMap<>();
    private final Set<Long> usedTicks = ConcurrentHashMap.newKeySet();
    private final AtomicLong clock = new AtomicLong(Tids.ticks(Instant.now()));
    /** Time warp of the tids ({@link #warped}): 100-ns ticks from {@code warpStart} become {@code stretch} times as many from {@code warpOrigin}. */
    private volatile long warpOrigin;
    private volatile long warpStart;
    private volatile long stretch = 1;

    HistoryRun(CqlSession session, TableDef def, long seed) {
        this.session = session;
        this.def = def;
        this.plan = TablePlan.of(def);
        this.oracle = new IndexOracle(def);
        this.seed = seed;
    }

    /**
     * A new version's tid: at least now (a client makes its tid a moment before it writes; a write
     * more than a second after its tid's time is a rewrite, docs/design.md section 5), a quarter of
     * them 100 ns after the previous one.
     */
    /**
     * From now on the tids are spread from {@code origin} on: the gaps this run draws between
     * tids, {@code stretch} times as wide, no longer kept behind the clock (a history over days or
     * months, for bucketed indexes); old tids lie back up to the start of the warp. Every write's
     * tid is then older than its write, so the trigger and the service treat it as a rewrite.
     */
    HistoryRun warped(Instant origin, long stretch) {
        this.warpStart = clock.get();
        this.warpOrigin = Tids.ticks(origin);
        this.stretch = stretch;
        return this;
    }

    private long warp(long tick) {
        long s = stretch;
        return s == 1 ? tick : warpOrigin + (tick - warpStart) * s;
    }

    private UUID freshTid(Random rnd) {
        long delta = rnd.nextInt(4) == 0 ? 1 : 1 + rnd.nextInt(20_000);
        long now = stretch == 1 ? Tids.ticks(Instant.now()) : Long.MIN_VALUE;
        long tick = clock.updateAndGet(c -> Math.max(c + delta, now));
        usedTicks.add(tick);
        return Tids.fromTicks(warp(tick), rnd.nextLong());
    }

    private UUID oldTid(Random rnd) {
        long back = stretch == 1 ? 30_000_000 : Math.max(1, clock.get() - warpStart); // warped: back to the warp's start
        long tick = clock.get() - 1 - (long) (rnd.nextDouble() * Math.min(back, 30_000_000)); // up to 3 s back: some are taken for rewrites
        while (!usedTicks.add(tick)) {
            tick--;
        }
        return Tids.fromTicks(warp(tick), rnd.nextLong());
    }

    /**
     * From now on a write that fails (a node killed under load) is counted and the run goes on; the
     * oracle must then come from the base table itself ({@link #oracleFromBase}).
     */
    HistoryRun tolerateFailures() {
        this.tolerant = true;
        return this;
    }

    /**
     * The oracle of what the base table holds, read at {@code cl} (ALL after a fault: the
     * acknowledged writes, and whichever unacknowledged ones landed).
     */
    void oracleFromBase(com.datastax.oss.driver.api.core.ConsistencyLevel cl) {
        IndexOracle fromBase = new IndexOracle(def);
        for (Row r : session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(
                "SELECT key, tid, length, value FROM " + def.keyspace() + ".revisions").setConsistencyLevel(cl).setPageSize(5000))) {
            fromBase.write(r.getBytesUnsafe(0), r.getBytesUnsafe(1), r.getBytesUnsafe(2), r.getBytesUnsafe(3));
        }
        this.oracle = fromBase;
    }

    /**
     * From now on no write is conditional. A conditional write's group is repaired again for 2
     * minutes (docs/design.md section 7.5), and in an ended bucket each pass ends its seals.
     */
    HistoryRun withoutConditionalWrites() {
        this.conditional = false;
        return this;
    }

    /** From now on the writes are sent as text, not prepared: they bypass a trigger dropped since. */
    HistoryRun unprepared() {
        this.prepared = false;
        return this;
    }

    /** From now on the writes go to {@code node} as coordinator while it is up (null: the driver's choice). */
    HistoryRun coordinator(com.datastax.oss.driver.api.core.metadata.Node node) {
        this.coordinator = node;
        return this;
    }

    private void execute(String key, PreparedStatement statement, Object... values) {
        com.datastax.oss.driver.api.core.cql.Statement<?> st = prepared ? statement.bind(values)
                : com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(statement.getQuery(), values);
        com.datastax.oss.driver.api.core.metadata.Node node = coordinator;
        if (node != null && node.getState() == com.datastax.oss.driver.api.core.metadata.NodeState.UP) {
            st = st.setNode(node);
        }
        try {
            session.execute(st);
        } catch (RuntimeException e) {
            if (!tolerant) {
                throw e;
            }
            failed.incrementAndGet();
            failedKeys.add(key);
        }
    }

    /** Writes {@code writes} versions over {@code keys} keys with {@code writers} threads. */
    void write(int keys, int writes, int writers) throws Exception {
        String t = def.keyspace() + ".revisions";
        PreparedStatement insert = session.prepare("INSERT INTO " + t + " (key, tid, length, value) VALUES (?, ?, ?, ?)");
        PreparedStatement partial = session.prepare("UPDATE " + t + " SET value = ? WHERE key = ? AND tid = ?");
        PreparedStatement cas = session.prepare("INSERT INTO " + t + " (key, tid, length, value) VALUES (?, ?, ?, ?) IF NOT EXISTS");
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<?>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            final long threadSeed = seed * 31 + w;
            final int count = writes / writers;
            done.add(pool.submit(() -> {
                Random rnd = new Random(threadSeed);
                List<UUID> mine = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                    String key = "k" + rnd.nextInt(keys);
                    int kind = rnd.nextInt(20);
                    if (kind == 0 && !mine.isEmpty()) { // a retry of an earlier write, same tid and values
                        UUID tid = mine.get(rnd.nextInt(mine.size()));
                        Object[] v = written.get(tid);
                        if (v != null && v[2] != null) {
                            execute((String) v[0], insert, v[0], tid, v[2] == NULL ? null : v[2], v[3]);
                        }
                        continue;
                    }
                    UUID tid = kind == 1 ? oldTid(rnd) : freshTid(rnd);
                    BigInteger length = rnd.nextInt(8) == 0 ? null : BigInteger.valueOf(rnd.nextInt(4));
                    String value = "v" + rnd.nextInt(1000);
                    if (kind == 2) { // partial update of a new version: no length
                        execute(key, partial, value, key, tid);
                        written.put(tid, new Object[] {key, tid, null, value});
                    } else if (kind == 3 && conditional) {
                        execute(key, cas, key, tid, length, value);
                        written.put(tid, new Object[] {key, tid, length == null ? NULL : length, value});
                    } else {
                        execute(key, insert, key, tid, length, value);
                        written.put(tid, new Object[] {key, tid, length == null ? NULL : length, value});
                    }
                    mine.add(tid);
                }
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        for (Object[] v : written.values()) {
            ByteBuffer[] values = {text((String) v[0]), Tids.bytes((UUID) v[1]),
                v[2] == null || v[2] == NULL ? null : ByteBuffer.wrap(((BigInteger) v[2]).toByteArray()), text((String) v[3])};
            oracle.write(values);
        }
    }

    private static final Object NULL = new Object();

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /** What the index holds against the oracle. */
    /**
     * {@code marked}: entries the oracle does not expect (their versions were deleted) that are
     * marked deleted ({@code _deleted} later than {@code _tid}): they match at no moment from the
     * mark on, and a read before it checks them against the base (docs/design.md section 8.2).
     */
    record Drift(int expected, int missing, int orphans, int wrongTid, int wrongDeleted, int laterDeleted, int marked) {
        Drift(int expected, int missing, int orphans, int wrongTid, int wrongDeleted, int laterDeleted) {
            this(expected, missing, orphans, wrongTid, wrongDeleted, laterDeleted, 0);
        }

        boolean clean() {
            return missing == 0 && orphans == 0 && wrongTid == 0 && wrongDeleted == 0;
        }
    }

    Drift compare(IndexPlan index) {
        String name = index.index().name();
        Map<List<ByteBuffer>, IndexOracle.Entry> expected = oracle.expected(name);
        Map<List<ByteBuffer>, Row> actual = new HashMap<>();
        String cols = String.join(", ", index.index().keyColumns().stream().map(c -> c.cqlName()).toList());
        String extra = index.perVersion() ? "" : ", \"_tid\", \"_deleted\"";
        for (Row r : session.execute("SELECT " + cols + extra + " FROM " + def.keyspace() + "." + index.tableName())) {
            List<ByteBuffer> key = new ArrayList<>();
            for (int i = 0; i < index.index().keyColumns().size(); i++) {
                key.add(r.getBytesUnsafe(i));
            }
            actual.put(key, r);
        }
        int missing = 0, orphans = 0, wrongTid = 0, wrongDeleted = 0, later = 0;
        for (Map.Entry<List<ByteBuffer>, IndexOracle.Entry> e : expected.entrySet()) {
            Row r = actual.get(e.getKey());
            if (r == null) {
                missing++;
                continue;
            }
            if (index.perVersion()) {
                continue;
            }
            int n = index.index().keyColumns().size();
            if (!e.getValue().tid().equals(r.getUuid(n))) {
                wrongTid++;
            }
            java.util.UUID deleted = r.getUuid(n + 1);
            if (deleted != null && r.getUuid(n) != null && Timeuuids.compare(deleted, r.getUuid(n)) <= 0) {
                deleted = null; // a mark not later than _tid: the entry matches again (docs/design.md section 3.1)
            }
            switch (oracle.judgeDeleted(name, e.getKey(), e.getValue(), deleted)) {
                case WRONG -> wrongDeleted++;
                case LATER_NON_MATCHING_VERSION -> later++;
                default -> {}
            }
        }
        int marked = 0;
        for (Map.Entry<List<ByteBuffer>, Row> e : actual.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                int n = index.index().keyColumns().size();
                Row r = e.getValue();
                boolean isMarked = !index.perVersion() && !r.isNull(n + 1) && (r.isNull(n) || Timeuuids.compare(r.getUuid(n + 1), r.getUuid(n)) > 0);
                if (isMarked) {
                    marked++;
                } else {
                    orphans++;
                }
            }
        }
        return new Drift(expected.size(), missing, orphans, wrongTid, wrongDeleted, later, marked);
    }
}
