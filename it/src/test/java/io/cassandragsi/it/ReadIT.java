package io.cassandragsi.it;

import io.cassandragsi.maintain.MarkerGroup;
import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.http.HttpApi;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.TableDef;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Reads against the oracle after a randomized history on a real node: eventual, consistent and
 * as-of, paged with small limits; consistent reads also while writers write and while the queue
 * consumer is stopped; reads of an index that contains the tid; and the malformed-input suite over
 * HTTP.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReadIT {
    private static final String KS = "it_read";
    private static CqlSession session;
    private static TableDef def;
    private static GsiServer server;
    private static HistoryRun run;
    private static long seed;

    @BeforeAll
    static void setUp() throws Exception {
        session = SharedCluster.session();
        def = SharedCluster.example("revisions", KS);
        SharedCluster.apply(def);
        seed = RepairServiceIT.seed();
        System.out.println("ReadIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        GsiConfig defaults = GsiConfig.defaults();
        GsiConfig config = new GsiConfig(defaults.cassandra(), defaults.consistency(), defaults.queue(),
                new HttpConfig("127.0.0.1", 0, null, false), defaults.antiEntropy().withEnabled(false)); // the tests plant drift
        server = new GsiServer(session, config);
        run = new HistoryRun(session, def, seed);
        run.write(30, 900, 3);
        Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
        System.out.println("ReadIT converged: " + drift);
        for (HistoryRun.Drift d : drift.values()) {
            assertThat(d.clean()).as("seed %d: %s", seed, d).isTrue();
        }
    }

    @AfterAll
    static void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private static IndexPlan byLength() {
        return run.plan.indexes().stream().filter(p -> p.index().name().equals("by_length")).findFirst().orElseThrow();
    }

    /** Keys (base rows) the oracle says match length L at q, in index order (key ascending). */
    private static List<String> expected(long length, UUID q) {
        ByteBuffer l = ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray());
        TreeMap<String, UUID> out = new TreeMap<>();
        for (Map.Entry<List<ByteBuffer>, UUID> e : run.oracle.matchesAt("by_length", q).entrySet()) {
            if (e.getKey().get(0).equals(l)) {
                out.put(StandardCharsets.UTF_8.decode(e.getKey().get(1).duplicate()).toString(), e.getValue());
            }
        }
        return new ArrayList<>(out.keySet());
    }

    /** All pages of a read, checking there are no duplicates. */
    private static List<Map<String, Object>> readAll(IndexReader.Query q) {
        return readAll(q, null);
    }

    /** All pages of a read, each with a limit from 1 to 9 drawn from {@code limits} (null: the query's own). */
    private static List<Map<String, Object>> readAll(IndexReader.Query q, Random limits) {
        return readAll(q, limits, new Instant[1]);
    }

    /** As {@link #readAll(IndexReader.Query, Random)}, with the moment the first page is as of in {@code asOf[0]}. */
    private static List<Map<String, Object>> readAll(IndexReader.Query q, Random limits, Instant[] asOf) {
        return PagedReads.readAll(server.reader(), q, limits, asOf);
    }

    private static List<String> keys(List<Map<String, Object>> items) {
        return items.stream().map(i -> (String) i.get("key")).toList();
    }

    /** Moments spread over the history: before it, inside it, now. */
    private static List<UUID> queryTimes(Random rnd, int n) {
        List<UUID> tids = new ArrayList<>();
        run.oracle.rows().values().forEach(m -> tids.addAll(m.keySet()));
        List<UUID> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            UUID t = tids.get(rnd.nextInt(tids.size()));
            out.add(rnd.nextBoolean() ? t : Tids.maxAtTicks(io.cassandragsi.index.WriteTimestamps.of(t) + rnd.nextInt(3) - 1));
        }
        out.add(Tids.maxAtTicks(Tids.ticks(Instant.now())));
        return out;
    }

    @Test
    void should_equal_the_oracle_when_reading_now_eventually_and_consistently_with_small_pages() {
        UUID now = Tids.maxAtTicks(Tids.ticks(Instant.now()));
        for (long length = 0; length < 4; length++) {
            List<String> want = expected(length, now);
            // items built from index rows (eventual) and from base versions (consistent, which read
            // only the attributes the index needs) are the same, attribute for attribute
            IndexReader.Query all = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                    .withLimit(IndexReader.MAX_LIMIT).withAsOf(now.toString());
            assertThat(readAll(all.withConsistent(true))).as("seed %d length %d: consistent items", seed, length)
                    .isEqualTo(readAll(all)).hasSize(want.size());
            for (boolean consistent : new boolean[] {false, true}) {
                for (int limit : new int[] {1, 3, 7, 100}) {
                    IndexReader.Query q = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                            .withConsistent(consistent).withLimit(limit).withAsOf(now.toString());
                    assertThat(keys(readAll(q))).as("seed %d length %d consistent %s limit %d", seed, length, consistent, limit)
                            .isEqualTo(want);
                }
                // a token stays valid when the next page asks for a different limit
                IndexReader.Query q = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                        .withConsistent(consistent).withAsOf(now.toString());
                assertThat(keys(readAll(q, new Random(seed + length)))).as("seed %d length %d consistent %s, limits 1-9 per page",
                        seed, length, consistent).isEqualTo(want);
            }
        }
    }

    @Test
    void should_equal_the_oracle_when_reading_as_of_past_moments() {
        Random rnd = new Random(seed);
        int eventualMismatches = 0;
        int reads = 0;
        for (UUID q : queryTimes(rnd, 40)) {
            long length = rnd.nextInt(4);
            List<String> want = expected(length, q);
            IndexReader.Query query = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                    .withAsOf(q.toString()).withLimit(1 + rnd.nextInt(5));
            assertThat(keys(readAll(query.withConsistent(true)))).as("seed %d consistent as of %s", seed, q).isEqualTo(want);
            if (!keys(readAll(query)).equals(want)) {
                eventualMismatches++;
            }
            reads++;
        }
        int approximate = run.compare(byLength()).laterDeleted();
        System.out.printf("ReadIT as-of: %d reads, %d eventual reads differ from the oracle (entries with a later _deleted: %d)%n",
                reads, eventualMismatches, approximate);
        // entries whose _deleted names a later version than the exact one are checked against the
        // base when the read is as of a moment before that _deleted: eventual as-of reads stay exact
        assertThat(eventualMismatches).as("seed %d: eventual as-of reads", seed).isZero();
    }

    /** Keys (base rows) the oracle says match length L in a window, with the latest version that did there, in index order. */
    private static Map<String, String> expectedWithin(long length, UUID from, UUID upTo) {
        ByteBuffer l = ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray());
        TreeMap<String, String> out = new TreeMap<>();
        for (Map.Entry<List<ByteBuffer>, UUID> e : run.oracle.matchesWithin("by_length", from, upTo).entrySet()) {
            if (e.getKey().get(0).equals(l)) {
                out.put(StandardCharsets.UTF_8.decode(e.getKey().get(1).duplicate()).toString(), e.getValue().toString());
            }
        }
        return out;
    }

    private static Map<String, String> keysAndTids(List<Map<String, Object>> items) {
        return PagedReads.keysAndTids(items);
    }

    /**
     * Windows over the history (its rows flip between lengths, old tids and deletes among its
     * writes): each read, eventual and consistent, in pages of 1 to 9 items, has exactly the
     * oracle's rows, each with the latest version that matched in the window. Bounds are timeuuids
     * (the version current at ts_ge counts; ts_lt excludes its tick), instants, or left out.
     */
    @Test
    void should_equal_the_oracle_when_reading_windows_eventually_and_consistently() {
        Random rnd = new Random(seed + 7);
        List<UUID> times = queryTimes(rnd, 60);
        int reads = 0;
        int nonEmpty = 0;
        for (int n = 0; n < 30; n++) {
            UUID a = times.get(rnd.nextInt(times.size()));
            // wide windows between two moments of the history, and narrow ones of up to 20 ms
            UUID b = n % 2 == 0 ? times.get(rnd.nextInt(times.size()))
                    : Tids.maxAtTicks(io.cassandragsi.index.WriteTimestamps.of(a) + 1 + rnd.nextInt(200_000));
            if (Tids.compare(a, b) > 0) {
                UUID t = a;
                a = b;
                b = t;
            }
            if (io.cassandragsi.index.WriteTimestamps.of(a) >= io.cassandragsi.index.WriteTimestamps.of(b)) {
                continue; // an empty window is a 400
            }
            int form = rnd.nextInt(4);
            String tsGe = form == 1 ? null : form == 2 ? Tids.instant(a).toString() : a.toString();
            String tsLt = form == 3 ? null : form == 2 ? Tids.instant(b).toString() : b.toString();
            UUID from = tsGe == null ? Tids.minAtTicks(-io.cassandragsi.index.WriteTimestamps.UUID_EPOCH_OFFSET)
                    : form == 2 ? Tids.maxAtTicks(io.cassandragsi.index.WriteTimestamps.of(a)) : a;
            long length = rnd.nextInt(4);
            for (boolean consistent : new boolean[] {false, true}) {
                IndexReader.Query query = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length)).withWindow(tsGe, tsLt)
                        .withConsistent(consistent);
                Instant[] asOf = new Instant[1];
                Map<String, String> got = keysAndTids(readAll(query, new Random(seed + n), asOf));
                if (tsLt != null) {
                    assertThat(asOf[0]).as("an answer as of the window's end").isEqualTo(Tids.instant(b));
                }
                Map<String, String> want = expectedWithin(length, from, Tids.maxAtTicks(Tids.ticks(asOf[0]) - 1));
                assertThat(got).as("seed %d window %s..%s length %d consistent %s", seed, tsGe, tsLt, length, consistent).isEqualTo(want);
                assertThat(new ArrayList<>(got.keySet())).as("index order").isEqualTo(new ArrayList<>(want.keySet()));
                nonEmpty += want.isEmpty() ? 0 : 1;
                reads++;
            }
        }
        System.out.printf("ReadIT windows: %d reads, %d with items%n", reads, nonEmpty);
        assertThat(nonEmpty).as("seed %d: windows that hold rows", seed).isPositive();
    }

    /**
     * A trigger's batch applies its mutations one by one: a recompute of a row can read a new
     * version's entry and rows-table key before its base row. Its first pass must leave that entry
     * alone (a correction above its cells would hide the version once it lands, from consistent
     * reads too); the pass a second later takes a version still not there for gone.
     */
    @Test
    void should_leave_an_entry_whose_base_row_is_still_landing_when_a_recompute_reads_it() throws Exception {
        String ks = "it_read_landing";
        SharedCluster.apply(SharedCluster.example("revisions", ks));
        String key = "landing-" + seed;
        long ts = Tids.ticks(Instant.now());
        UUID t0 = Tids.fromTicks(ts - 30_000_000, 1);
        UUID t1 = Tids.fromTicks(ts - 20_000_000, 1);
        UUID t2 = Tids.fromTicks(ts - 10_000_000, 2);
        var insert = session.prepare("INSERT INTO " + ks + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        session.execute(insert.bind(key, t0, BigInteger.TWO, "z"));
        session.execute(insert.bind(key, t1, BigInteger.ONE, "a"));
        // t2 (length 2 again) is half landed: its by_length entry, not its base row (nor its rows-table
        // element, which joins the base row's mutation; the rows table knows key 2 from t0)
        long ts2 = io.cassandragsi.index.WriteTimestamps.of(t2);
        session.execute(SimpleStatement.newInstance("INSERT INTO " + ks + ".idx_revisions_by_length_ever (length, key, \"_tid\", value)"
                + " VALUES (2, ?, ?, 'b') USING TIMESTAMP ?", key, t2, ts2));
        var repairer = server.service().repairer();
        var group = new MarkerGroup(ks, "revisions", ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)),
                io.cassandragsi.schema.Composite.encode(List.of()), t1, t1, io.cassandragsi.schema.QueueLayout.FLAG_DELETE,
                List.of(Tids.fromTicks(ts, 3)), Tids.fromTicks(ts, 3), false);
        io.cassandragsi.repair.queue.Repairer.Sink sink = statements -> statements.forEach(session::execute);
        assertThat(repairer.repair(group, null, sink)).isEqualTo(io.cassandragsi.maintain.Outcome.AGAIN);

        var entry = session.execute(SimpleStatement.newInstance("SELECT \"_tid\", \"_deleted\" FROM " + ks
                + ".idx_revisions_by_length_ever WHERE length = 2 AND key = ?", key)).one();
        assertThat(entry.getUuid(0)).isEqualTo(t2);
        assertThat(entry.getUuid(1) == null || Tids.compare(entry.getUuid(1), t2) <= 0)
                .as("the entry of a version still landing is not marked gone: _deleted %s", entry.getUuid(1)).isTrue();

        // the base row lands: consistent reads find it before the service has seen its marker
        session.execute(insert.bind(key, t2, BigInteger.TWO, "b"));
        IndexReader.Query q = IndexReader.Query.of(ks, "revisions", "by_length", "2").withConsistent(true).withLimit(IndexReader.MAX_LIMIT);
        assertThat(keys(readAll(q))).contains(key);
        // had it not landed, the pass a second later would have marked the entry gone (VersionRecomputeTest)
    }

    @Test
    void should_read_versions_by_tid_and_drop_ghost_entries_when_consistent() {
        Random rnd = new Random(seed + 7);
        List<Map.Entry<String, UUID>> versions = new ArrayList<>();
        run.oracle.rows().forEach((rowKey, byTid) -> byTid.keySet().forEach(
                tid -> versions.add(Map.entry(StandardCharsets.UTF_8.decode(rowKey.get(0).duplicate()).toString(), tid))));
        for (int i = 0; i < 20; i++) {
            Map.Entry<String, UUID> v = versions.get(rnd.nextInt(versions.size()));
            IndexReader.Query q = IndexReader.Query.of(KS, "revisions", "by_tid", v.getValue().toString());
            for (boolean consistent : new boolean[] {false, true}) {
                assertThat(keys(readAll(q.withConsistent(consistent)))).as("seed %d version %s consistent %s", seed, v, consistent)
                        .containsExactly(v.getKey());
            }
        }
        // an entry no version backs: a tid no version has, and a real tid under another row's key
        long ts = Tids.ticks(Instant.now());
        UUID ghostTid = Tids.fromTicks(ts - 10_000_000, rnd.nextLong());
        Map.Entry<String, UUID> real = versions.get(rnd.nextInt(versions.size()));
        String otherKey = "not-" + real.getKey();
        var insert = session.prepare("INSERT INTO " + KS + ".idx_revisions_by_tid_ever (tid, key) VALUES (?, ?) USING TIMESTAMP ?");
        var delete = session.prepare("DELETE FROM " + KS + ".idx_revisions_by_tid_ever USING TIMESTAMP ? WHERE tid = ? AND key = ?");
        session.execute(insert.bind(ghostTid, "ghost", ts));
        session.execute(insert.bind(real.getValue(), otherKey, ts));
        try {
            IndexReader.Query ghost = IndexReader.Query.of(KS, "revisions", "by_tid", ghostTid.toString());
            assertThat(keys(readAll(ghost))).as("eventual reads answer from the index alone").containsExactly("ghost");
            assertThat(keys(readAll(ghost.withConsistent(true)))).as("consistent read of a tid no version has").isEmpty();
            IndexReader.Query both = IndexReader.Query.of(KS, "revisions", "by_tid", real.getValue().toString());
            assertThat(keys(readAll(both))).containsExactlyInAnyOrder(real.getKey(), otherKey);
            assertThat(keys(readAll(both.withConsistent(true)))).as("consistent read of %s", real).containsExactly(real.getKey());
        } finally {
            session.execute(delete.bind(ts + 1, ghostTid, "ghost"));
            session.execute(delete.bind(ts + 1, real.getValue(), otherKey));
        }
    }

    /** Adds a complete version (key, tid, length, value) to the oracle. */
    private static void oracleWrite(String key, UUID tid, BigInteger length, String value) {
        ByteBuffer[] v = {ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8)), Tids.bytes(tid),
            length == null ? null : ByteBuffer.wrap(length.toByteArray()), ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8))};
        run.oracle.write(v);
    }

    /** A write the concurrent writers of {@link #should_have_no_false_positives_or_misses_while_writers_write} made. */
    private record Written(String key, UUID tid, BigInteger length, String value) {}

    /**
     * Consistent reads while writers write: each read is as of a moment q that every write in
     * flight is after (a writer announces a lower bound of its next tid before choosing it), so
     * the writes at or before q are exactly those acknowledged, and the read must equal the
     * oracle of them: no miss, no false positive, with small pages.
     */
    @Test
    @Order(1) // before the test whose rows the oracle does not know, so that convergence can be checked
    void should_have_no_false_positives_or_misses_while_writers_write() throws Exception {
        var insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        int writers = 3;
        long[] floors = new long[writers]; // per writer: a lower bound of the tid in flight, or MAX_VALUE
        Arrays.fill(floors, Long.MAX_VALUE);
        AtomicLongArray floor = new AtomicLongArray(floors);
        ConcurrentLinkedQueue<Written> acked = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong clock = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        List<Future<Integer>> done = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int writer = w;
            done.add(pool.submit(() -> {
                Random rnd = new Random(seed * 17 + writer);
                int n = 0;
                while (!stop.get()) {
                    floor.set(writer, Tids.ticks(Instant.now()));
                    // the tid's time is taken after the floor is announced: a reader that did not see the floor yet took
                    // its moment before this one (taking it before announcing let a tid fall behind a read's moment)
                    long now = Tids.ticks(Instant.now());
                    // a tick of its own: tids of one row in the same 100-ns tick tie (README, write-timestamp rule)
                    UUID tid = Tids.fromTicks(clock.updateAndGet(c -> Math.max(c + 1, now)), rnd.nextLong());
                    String key = "k" + rnd.nextInt(30);
                    BigInteger length = rnd.nextInt(8) == 0 ? null : BigInteger.valueOf(rnd.nextInt(4));
                    String value = "c" + n;
                    session.execute(insert.bind(key, tid, length, value));
                    acked.add(new Written(key, tid, length, value));
                    floor.set(writer, Long.MAX_VALUE);
                    n++;
                }
                return n;
            }));
        }
        Random rnd = new Random(seed + 11);
        int reads = 0;
        int items = 0;
        int misses = 0;
        Map<String, HistoryRun.Drift> converged;
        try {
            long until = System.currentTimeMillis() + 8_000;
            while (System.currentTimeMillis() < until) {
                long q = Tids.ticks(Instant.now());
                for (int w = 0; w < writers; w++) {
                    q = Math.min(q, floor.get(w));
                }
                UUID asOf = Tids.maxAtTicks(q - 1);
                for (Written x; (x = acked.poll()) != null;) {
                    oracleWrite(x.key(), x.tid(), x.length(), x.value());
                }
                long length = rnd.nextInt(4);
                List<String> want = expected(length, asOf);
                IndexReader.Query query = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                        .withConsistent(true).withAsOf(asOf.toString());
                List<String> got = keys(readAll(query, rnd));
                if (SharedCluster.INDEXING == Indexing.EVENTUAL) {
                    // entries follow their writes (docs/design.md section 7.11): a consistent read may miss a write within the
                    // lag, never return a row the oracle does not have; the convergence below judges the misses
                    assertThat(want).as("seed %d length %d consistent as of %s while writers write: no false positive", seed, length, asOf)
                            .containsAll(got);
                    misses += want.size() - got.size();
                } else {
                    assertThat(got).as("seed %d length %d consistent as of %s while writers write", seed, length, asOf).isEqualTo(want);
                }
                reads++;
                items += got.size();
            }
        } finally {
            // also after a failed read, so that its failure stays its own: the other tests judge this table
            // against the oracle, which must know every write, and read eventually, after the consumer caught up
            stop.set(true);
            pool.shutdown();
            pool.awaitTermination(60, java.util.concurrent.TimeUnit.SECONDS);
            for (Written x; (x = acked.poll()) != null;) {
                oracleWrite(x.key(), x.tid(), x.length(), x.value());
            }
            converged = RepairServiceIT.awaitConverged(run, 90_000);
        }
        int writes = 0;
        for (var f : done) {
            writes += f.get();
        }
        System.out.printf("ReadIT concurrent: %d consistent reads (%d items, %d acknowledged writes not indexed yet) during %d writes%n", reads,
                items, misses, writes);
        assertThat(reads).isGreaterThan(10);
        assertThat(writes).isGreaterThan(100);
        Map<String, HistoryRun.Drift> drift = converged;
        for (HistoryRun.Drift d : drift.values()) {
            assertThat(d.clean()).as("seed %d after concurrent writes: %s", seed, d).isTrue();
        }
    }

    /** The order ids of items, in their order. */
    private static List<String> orderIds(List<Map<String, Object>> items) {
        return items.stream().map(i -> (String) i.get("order_id")).toList();
    }

    /**
     * An index with a range attribute (the example orders' by_customer: customer, then placed
     * descending): items come in range order, bounds on the range attribute and a range value in
     * the path select exactly what the current versions say, eventually and consistently, with
     * small pages; orders move between customers and times, so stale entries exist.
     */
    @Test
    void should_read_a_range_index_in_order_with_bounds_and_range_values() throws Exception {
        String ks = "it_read_orders";
        SharedCluster.apply(SharedCluster.example("orders", ks));
        var insert = session.prepare("INSERT INTO " + ks + ".orders (order_id, tid, customer, status, total, placed, items)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?)");
        Random rnd = new Random(seed + 13);
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            ids.add(UUID.nameUUIDFromBytes(("order-" + seed + "-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        record Order(String customer, Instant placed) {}
        Map<UUID, Order> current = new HashMap<>();
        Set<Instant> used = new HashSet<>();
        long clock = Tids.ticks(Instant.now());
        for (int i = 0; i < 200; i++) {
            UUID id = ids.get(rnd.nextInt(ids.size()));
            String customer = "c" + rnd.nextInt(3);
            Instant placed;
            do {
                placed = Instant.ofEpochMilli(1_780_000_000_000L + rnd.nextInt(1_000_000));
            } while (!used.add(placed));
            clock += 1 + rnd.nextInt(1000);
            session.execute(insert.bind(id, Tids.fromTicks(clock, rnd.nextLong()), customer, List.of("new", "paid", "sent").get(rnd.nextInt(3)),
                    BigDecimal.valueOf(rnd.nextInt(100_000), 2), placed, "{\"n\": " + i + "}"));
            current.put(id, new Order(customer, placed));
        }
        // each customer's orders, newest placed first (the index order)
        Map<String, List<Map.Entry<UUID, Order>>> byCustomer = new TreeMap<>();
        for (Map.Entry<UUID, Order> e : current.entrySet()) {
            byCustomer.computeIfAbsent(e.getValue().customer(), c -> new ArrayList<>()).add(e);
        }
        byCustomer.values().forEach(l -> l.sort((a, b) -> b.getValue().placed().compareTo(a.getValue().placed())));
        java.util.function.BiFunction<String, java.util.function.Predicate<Instant>, List<String>> want = (c, keep) -> byCustomer.get(c).stream().filter(e -> keep.test(e.getValue().placed())).map(e -> e.getKey().toString()).toList();
        // the repair service marks the entries of orders that moved
        long deadline = System.currentTimeMillis() + 60_000;
        for (String c : byCustomer.keySet()) {
            IndexReader.Query q = IndexReader.Query.of(ks, "orders", "by_customer", c).withLimit(IndexReader.MAX_LIMIT);
            while (!orderIds(readAll(q)).equals(want.apply(c, p -> true)) && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
            }
        }
        for (String c : byCustomer.keySet()) {
            for (boolean consistent : new boolean[] {false, true}) {
                IndexReader.Query q = IndexReader.Query.of(ks, "orders", "by_customer", c).withConsistent(consistent);
                String what = "seed " + seed + " customer " + c + " consistent " + consistent;
                assertThat(orderIds(readAll(q, rnd))).as(what).isEqualTo(want.apply(c, p -> true));
                List<Map.Entry<UUID, Order>> orders = byCustomer.get(c);
                Instant pivot = orders.get(rnd.nextInt(orders.size())).getValue().placed();
                String p = pivot.toString();
                assertThat(orderIds(readAll(q.withBounds(p, null, null, null), rnd))).as(what + " gt " + p)
                        .isEqualTo(want.apply(c, x -> x.isAfter(pivot)));
                assertThat(orderIds(readAll(q.withBounds(null, p, null, null), rnd))).as(what + " ge " + p)
                        .isEqualTo(want.apply(c, x -> !x.isBefore(pivot)));
                assertThat(orderIds(readAll(q.withBounds(null, null, p, null), rnd))).as(what + " lt " + p)
                        .isEqualTo(want.apply(c, x -> x.isBefore(pivot)));
                assertThat(orderIds(readAll(q.withBounds(null, null, null, p), rnd))).as(what + " le " + p)
                        .isEqualTo(want.apply(c, x -> !x.isAfter(pivot)));
                Instant low = pivot.minusSeconds(300);
                assertThat(orderIds(readAll(q.withBounds(low.toString(), null, null, p), rnd))).as(what + " gt " + low + " le " + p)
                        .isEqualTo(want.apply(c, x -> x.isAfter(low) && !x.isAfter(pivot)));
                IndexReader.Query exact = IndexReader.Query.of(ks, "orders", "by_customer", c, p).withConsistent(consistent);
                assertThat(orderIds(readAll(exact))).as(what + " placed " + p).isEqualTo(want.apply(c, pivot::equals));
            }
            // projections (status, total) from the index equal those of the base versions
            IndexReader.Query all = IndexReader.Query.of(ks, "orders", "by_customer", c).withLimit(IndexReader.MAX_LIMIT);
            assertThat(readAll(all.withConsistent(true))).as("seed %d customer %s: consistent items", seed, c).isEqualTo(readAll(all));
        }
    }

    /** Waits until the index entry (length, key) has {@code _deleted} equal to one of {@code wanted}. */
    private static void awaitDeleted(long length, String key, UUID... wanted) throws InterruptedException {
        List<UUID> want = List.of(wanted);
        var select = session.prepare("SELECT \"_deleted\" FROM " + KS + ".idx_revisions_by_length_ever WHERE length = ? AND key = ?");
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            var row = session.execute(select.bind(BigInteger.valueOf(length), key)).one();
            if (row != null && row.getUuid(0) != null && want.contains(row.getUuid(0))) {
                return;
            }
            assertThat(System.currentTimeMillis()).as("entry (%d, %s) never got _deleted = %s", length, key, want).isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    @Order(2)
    void should_read_exactly_as_of_a_moment_before_a_deletion_that_a_late_version_made_approximate() throws Exception {
        var insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        long clock = Tids.ticks(Instant.now());
        UUID t1 = Tids.fromTicks(clock, 1);
        UUID t2 = Tids.fromTicks(clock + 20_000, 1);
        UUID t3 = Tids.fromTicks(clock + 40_000, 1);
        session.execute(insert.bind("late", t1, BigInteger.valueOf(1001), "v1"));
        session.execute(insert.bind("late", t3, BigInteger.valueOf(1003), "v3"));
        awaitDeleted(1001, "late", t3);
        // t2 arrives after t3 was diffed: its diff sets _deleted = t2 at TS(t2) on entry 1001,
        // which loses to the _deleted = t3 at TS(t3) already there (unless t2 was written more
        // than a second after its own time: then the row is recomputed and 1001 gets t2 exactly)
        session.execute(insert.bind("late", t2, BigInteger.valueOf(1002), "v2"));
        awaitDeleted(1002, "late", t3);
        awaitDeleted(1001, "late", t3, t2);
        UUID betweenT1AndT2 = Tids.maxAtTicks(clock + 10_000);
        UUID betweenT2AndT3 = Tids.maxAtTicks(clock + 30_000);
        for (boolean consistent : new boolean[] {false, true}) {
            java.util.function.BiFunction<Long, UUID, List<String>> read = (length, q) -> keys(readAll(
                    IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length)).withConsistent(consistent).withAsOf(q.toString())));
            assertThat(read.apply(1001L, betweenT1AndT2)).as("consistent %s", consistent).containsExactly("late");
            assertThat(read.apply(1001L, betweenT2AndT3)).as("consistent %s", consistent).isEmpty();
            assertThat(read.apply(1002L, betweenT2AndT3)).as("consistent %s", consistent).containsExactly("late");
            assertThat(read.apply(1003L, betweenT2AndT3)).as("consistent %s", consistent).isEmpty();
        }
    }

    @Test
    @Order(Integer.MAX_VALUE) // stops the consumer that the other tests need
    void should_have_no_false_positives_or_misses_when_the_consumer_is_stopped() throws Exception {
        server.service().consumer().close(); // the trigger keeps writing entries; nothing marks them _deleted
        // Plain writes only: conditional writes are indexed by the consumer, so they wait for it.
        Random rnd = new Random(seed + 7);
        var insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        long clock = Tids.ticks(Instant.now());
        for (int i = 0; i < 300; i++) {
            String key = "k" + rnd.nextInt(30);
            UUID tid = Tids.fromTicks(clock += 1 + rnd.nextInt(10_000), rnd.nextLong());
            BigInteger length = rnd.nextInt(8) == 0 ? null : BigInteger.valueOf(rnd.nextInt(4));
            session.execute(insert.bind(key, tid, length, "w" + i));
            oracleWrite(key, tid, length, "w");
        }
        UUID now = Tids.maxAtTicks(Tids.ticks(Instant.now()));
        if (SharedCluster.INDEXING == Indexing.EVENTUAL) {
            SharedCluster.awaitMaintainersIdle(); // the node writes the entries after the writes (docs/design.md section 7.11)
        }
        IndexReader reader = server.reader();
        long falsePositives = reader.falsePositives.sum();
        long repairs = reader.readRepairs.sum();
        for (long length = 0; length < 4; length++) {
            IndexReader.Query q = IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                    .withConsistent(true).withLimit(5).withAsOf(now.toString());
            assertThat(keys(readAll(q))).as("seed %d length %d, consumer stopped", seed, length).isEqualTo(expected(length, now));
        }
        // entries whose row moved on still claim a match: each one dropped is handed to the queue (read repair).
        // In node mode the node's maintainer keeps diffing with the consumer stopped, and may have marked them all.
        long dropped = reader.falsePositives.sum() - falsePositives;
        if (SharedCluster.MAINTENANCE == io.cassandragsi.schema.Maintenance.SERVICE) {
            assertThat(dropped).as("seed %d: stale entries dropped by consistent reads", seed).isPositive();
        }
        long deadline = System.currentTimeMillis() + 10_000;
        while (reader.readRepairs.sum() - repairs < dropped && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        assertThat(reader.readRepairs.sum() - repairs).as("seed %d: read repairs queued", seed).isEqualTo(dropped);
    }

    /** A raw HTTP/1.1 GET, so that requests a URI class would refuse (bad escapes) reach the server as sent. */
    record Raw(int statusCode, String contentType, String body) {}

    private static Raw get(String pathAndQuery) throws Exception {
        return get(server.httpPort(), pathAndQuery, "");
    }

    /** A raw GET to {@code port} with extra header lines (each ending in CRLF). */
    private static Raw get(int port, String pathAndQuery, String headers) throws Exception {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int headerEnd = response.indexOf("\r\n\r\n");
            String head = response.substring(0, headerEnd);
            String body = response.substring(headerEnd + 4);
            String type = null;
            for (String line : head.split("\r\n")) {
                if (line.toLowerCase().startsWith("content-type:")) {
                    type = line.substring(13).trim();
                }
            }
            return new Raw(Integer.parseInt(head.split(" ")[1]), type, body);
        }
    }

    @Test
    void should_answer_json_errors_never_500_when_input_is_malformed() throws Exception {
        String base = "/v1/" + KS + "/revisions//by_length/";
        Object[][] cases = {
            {base + "1", 200, null},
            {"/v1/nokeyspace/revisions//by_length/1", 404, "unknown keyspace"},
            {"/v1/" + KS + "/nope//by_length/1", 404, "no indexed table"},
            {"/v1/" + KS + "/revisions//by_nope/1", 404, "no index 'by_nope'"},
            {"/v1/" + KS + "/revisions/by_length/1", 400, "//"},
            {base + "abc", 400, "not a valid varint for attribute 'length'"},
            {base + "1/2", 400, "takes 1 hash value"},
            {base, 400, "takes 1 hash value"},
            {base + "1?limit=0", 400, "limit"},
            {base + "1?limit=1001", 400, "limit"},
            {base + "1?limit=ten", 400, "limit"},
            {base + "1?next=garbage", 400, "'next'"},
            {base + "1?next=AQ" + "A".repeat(120), 400, "'next'"},
            {base + "1?as_of=yesterday", 400, "as_of"},
            {base + "1?as_of=0cd3d930-e5ce-41f1-bedb-1100a1903cc0", 400, "not a timeuuid"},
            {base + "1?ts_ge=2026-01-01T00:00:00Z&as_of=2026-01-02T00:00:00Z", 400, "not both"},
            {base + "1?ts_ge=2026-01-02T00:00:00Z&ts_lt=2026-01-01T00:00:00Z", 400, "must be before ts_lt"},
            {base + "1?ts_lt=tomorrow", 400, "ts_lt"},
            {base + "1?ts_ge=2026-01-01T00:00:00Z", 200, null},
            {base + "1?consistent=maybe", 400, "consistent"},
            {base + "1?gt=2", 400, "'gt' needs a range attribute"},
            {base + "1?bogus=1", 400, "unknown parameter"},
            {base + "1?limit=1&limit=2", 400, "more than once"},
            {base + "%FF", 400, "not valid UTF-8"},
            {base + "%G1", 400, "invalid percent escape"},
            {base + "1'%20OR%201=1", 400, "not a valid varint"},
            {base + "1%3B%20DROP%20TABLE%20x", 400, "not a valid varint"},
            {"/v1/" + KS + "/revisions//by_tid/not-a-uuid", 400, "not a valid timeuuid"},
            {"/nowhere", 404, "no such endpoint"},
        };
        for (Object[] c : cases) {
            Raw r = get((String) c[0]);
            assertThat(r.statusCode()).as("%s -> %s", c[0], r.body()).isEqualTo(c[1]);
            assertThat(r.contentType()).isEqualTo("application/json");
            if (c[2] != null) {
                assertThat(r.body()).as((String) c[0]).startsWith("{\"error\":").contains((String) c[2]);
            }
        }
        // a token from one query is refused by another
        IndexReader.Page p = server.reader().read(IndexReader.Query.of(KS, "revisions", "by_length", "1").withLimit(1));
        if (p.next() != null) {
            Raw r = get(base + "2?next=" + p.next());
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(r.body()).contains("another query");
            String tampered = p.next().substring(0, 10) + (p.next().charAt(10) == 'A' ? 'B' : 'A') + p.next().substring(11);
            assertThat(get(base + "1?limit=1&next=" + tampered).statusCode()).isEqualTo(400);
        }
        // a non-ASCII digit is not a varint
        assertThat(catchRead(() -> server.reader().read(IndexReader.Query.of(KS, "revisions", "by_length", "\u0663")))).isEqualTo(400);
    }

    @Test
    void should_require_the_bearer_token_when_one_is_configured() throws Exception {
        String path = "/v1/" + KS + "/revisions//by_length/1";
        try (HttpApi api = new HttpApi("127.0.0.1", 0, "it-read-token", server.reader(), Map::of, () -> "", null)) {
            for (String headers : new String[] {"", "Authorization: Bearer wrong-token\r\n", "Authorization: it-read-token\r\n",
                "Authorization: Bearer it-read-token-and-more\r\n"}) {
                Raw r = get(api.port(), path, headers);
                assertThat(r.statusCode()).as("headers '%s'", headers.trim()).isEqualTo(401);
                assertThat(r.contentType()).isEqualTo("application/json");
                assertThat(r.body()).startsWith("{\"error\":\"unauthorized\"").contains("Bearer");
            }
            assertThat(get(api.port(), "/admin/status", "").statusCode()).as("status needs the token too").isEqualTo(401);
            Raw ok = get(api.port(), path, "Authorization: Bearer it-read-token\r\n");
            assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
            assertThat(ok.body()).startsWith("{\"items\":[").contains("\"as_of\":\"");
            Raw past = get(api.port(), path + "?as_of=2026-01-01T00:00:00Z", "Authorization: Bearer it-read-token\r\n");
            assertThat(past.body()).as("the moment the answer is as of").endsWith("\"as_of\":\"2026-01-01T00:00:00Z\"}");
        }
    }

    @Test
    void should_answer_503_when_cassandra_cannot_reach_the_read_consistency() throws Exception {
        // the same tables in a keyspace with three replicas on this one node: LOCAL_QUORUM is unavailable
        TableDef rf3 = SharedCluster.example("revisions", "it_read_rf3");
        for (CqlGenerator.Statement st : CqlGenerator.all(rf3, "gsi", "{'class': 'SimpleStrategy', 'replication_factor': 3}")) {
            session.execute(SimpleStatement.newInstance(st.cql()).setTimeout(Duration.ofSeconds(60)));
        }
        session.checkSchemaAgreement();
        for (String query : new String[] {"", "?consistent=true", "?as_of=2026-01-01T00:00:00Z"}) {
            Raw r = get("/v1/it_read_rf3/revisions//by_length/1" + query);
            assertThat(r.statusCode()).as("%s -> %s", query, r.body()).isEqualTo(503);
            assertThat(r.contentType()).isEqualTo("application/json");
            assertThat(r.body()).startsWith("{\"error\":\"cassandra_unavailable\"");
        }
    }

    private static int catchRead(Runnable r) {
        try {
            r.run();
            return 200;
        } catch (ReadException e) {
            return io.cassandragsi.repair.http.ErrorMapper.status(e);
        }
    }
}
