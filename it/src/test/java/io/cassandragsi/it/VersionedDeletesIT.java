package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deletes, expiries and rewrites on a versioned table, on a real node: random histories of new
 * versions (some with old tids, some expiring after 2 s, some re-inserting a deleted version),
 * in-place rewrites of older versions (an update or a delete of the indexed attribute), row deletes
 * (mostly of the newest version), range deletes and partition deletes, part of them while the
 * repair service is stopped. The oracle is an in-test model: a row's current version is its
 * newest version that is still there (not deleted, not expired). Once the service has drained,
 * eventual and consistent reads equal it, and consistent reads as of random past moments equal the
 * newest remaining version at or before that moment. The seed is printed; replay with
 * -Dgsi.seed=N.
 */
class VersionedDeletesIT {
    private static final String KS = "it_versioned_deletes";
    private static final int LENGTHS = 4;

    private static CqlSession session;
    private static IndexReader reader;

    @BeforeAll
    static void setUp() {
        session = SharedCluster.session();
        TableDef def = SharedCluster.example("revisions", KS);
        SharedCluster.apply(def);
        reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 32);
    }

    @AfterAll
    static void tearDown() {
        if (reader != null) {
            reader.close();
        }
    }

    /** One stored version as the oracle sees it: expiresAt epoch millis, 0 when it does not expire. */
    private record Version(UUID tid, Integer length, String value, long expiresAt) {
        boolean liveAt(long nowMillis) {
            return expiresAt == 0 || expiresAt > nowMillis;
        }
    }

    private static final class History {
        final Random random;
        /** Per key, the versions that are stored (by tid). */
        final Map<String, TreeMap<UUID, Version>> rows = new TreeMap<>();
        final List<Version> deleted = new ArrayList<>();
        int steps;
        int rewrites;
        long lastExpiry;

        History(long seed) {
            random = new Random(seed);
        }

        TreeMap<UUID, Version> row(String key) {
            return rows.computeIfAbsent(key, k -> new TreeMap<>(Tids::compare));
        }

        void step() {
            steps++;
            String key = "k" + random.nextInt(8);
            TreeMap<UUID, Version> row = row(key);
            int op = random.nextInt(20);
            if (op < 9 || row.isEmpty()) {
                // an old tid of any age, also one within the second the trigger takes for a new version's (seed 9417263071464)
                UUID tid = random.nextInt(6) == 0 ? Uuids.startOf(System.currentTimeMillis() - random.nextInt(60_000))
                        : Uuids.timeBased();
                boolean expiring = random.nextInt(8) == 0;
                insert(key, new Version(tid, random.nextInt(LENGTHS), "v" + random.nextInt(3), expiring ? expiry(2) : 0));
            } else if ((op == 9 || op == 10) && !row.isEmpty()) {
                rewrite(key);
            } else if (op == 11 && reinsertable() >= 0) {
                // a deleted version written again, also within the second after its tid's time
                Version again = deleted.remove(reinsertable());
                insert(keyOf(again), new Version(again.tid(), again.length(), again.value(), 0));
            } else if (op < 16) {
                UUID tid = random.nextInt(4) == 0 ? new ArrayList<>(row.keySet()).get(random.nextInt(row.size())) : row.lastKey();
                session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions WHERE key = ? AND tid = ?", key, tid));
                trace(key, "delete " + tid);
                forget(key, row.remove(tid));
            } else if (op < 18) {
                UUID cut = new ArrayList<>(row.keySet()).get(random.nextInt(row.size()));
                boolean below = random.nextBoolean();
                session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions WHERE key = ? AND tid " + (below ? "<" : ">=")
                        + " ?", key, cut));
                trace(key, "delete tid " + (below ? "<" : ">=") + " " + cut);
                for (UUID t : new ArrayList<>(below ? row.headMap(cut, false).keySet() : row.tailMap(cut, true).keySet())) {
                    forget(key, row.remove(t));
                }
            } else {
                session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions WHERE key = ?", key));
                trace(key, "delete partition");
                for (UUID t : new ArrayList<>(row.keySet())) {
                    forget(key, row.remove(t));
                }
            }
        }

        private final Map<UUID, String> keys = new java.util.HashMap<>();
        /** Per key, the newest tid ever written whole (deleted and expired ones too). */
        private final Map<String, UUID> newestWhole = new java.util.HashMap<>();
        /** What happened to each row, for a failure's message. */
        final Map<String, List<String>> trace = new java.util.HashMap<>();

        void trace(String key, String what) {
            trace.computeIfAbsent(key, k -> new ArrayList<>()).add(Instant.now() + " " + what);
        }

        /** The traces of the rows a failure message names. */
        String traces(List<String> failures) {
            StringBuilder out = new StringBuilder();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("key=(k\\d+)").matcher(String.join(" ", failures));
            Set<String> named = new java.util.TreeSet<>();
            while (m.find()) {
                named.add(m.group(1));
            }
            for (String key : named) {
                out.append("\n  ").append(key).append(":");
                trace.getOrDefault(key, List.of()).forEach(t -> out.append("\n    ").append(t));
            }
            return out.toString();
        }

        /** An in-place rewrite of the row's newest version, if it is more than 2 s old: its indexed attribute changes or goes. */
        void rewrite(String key) {
            TreeMap<UUID, Version> row = row(key);
            Version v = rewritable(row);
            if (v == null) {
                return;
            }
            if (v.tid().equals(newestWhole.get(key)) && random.nextInt(4) == 0) {
                // the newest version written whole again with another projection (also within the second after the tid's
                // time: no recompute flag, the projections tie at its TS, and the rows table's newest-write cells tell;
                // only of the newest version the row ever had written whole: README Limits, "Rewrites and ties")
                String value = (random.nextBoolean() ? "a" : "z") + random.nextInt(4); // below and above the stored one, so that ties go both ways
                session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)", key,
                        v.tid(), v.length() == null ? null : BigInteger.valueOf(v.length()), value));
                row.put(v.tid(), new Version(v.tid(), v.length(), value, 0));
                trace(key, "rewrite whole " + v.tid() + " value " + value);
                rewrites++;
                return;
            }
            if (random.nextInt(3) == 0) {
                // the projection alone (also within the second after the tid's time, when it ties with the stored one)
                String value = "v" + random.nextInt(4);
                session.execute(SimpleStatement.newInstance("UPDATE " + KS + ".revisions SET value = ? WHERE key = ? AND tid = ?", value, key,
                        v.tid()));
                row.put(v.tid(), new Version(v.tid(), v.length(), value, 0));
                trace(key, "rewrite " + v.tid() + " value " + value);
                rewrites++;
                return;
            }
            Integer length = random.nextInt(4) == 0 ? null : (v.length() == null ? 0 : v.length() + 1) % LENGTHS;
            session.execute(length == null
                    ? SimpleStatement.newInstance("DELETE length FROM " + KS + ".revisions WHERE key = ? AND tid = ?", key, v.tid())
                    : SimpleStatement.newInstance("UPDATE " + KS + ".revisions SET length = ? WHERE key = ? AND tid = ?",
                            BigInteger.valueOf(length), key, v.tid()));
            row.put(v.tid(), new Version(v.tid(), length, v.value(), 0));
            trace(key, "rewrite " + v.tid() + " length " + length);
            rewrites++;
        }

        /** The row's newest version, or now and then an older one, when it does not expire (of any age), or null. */
        Version rewritable(TreeMap<UUID, Version> row) {
            if (row.isEmpty()) {
                return null;
            }
            Version v = random.nextInt(3) == 0 ? new ArrayList<>(row.values()).get(random.nextInt(row.size())) : row.lastEntry().getValue();
            return v.expiresAt() == 0 ? v : null;
        }

        /** The position of a deleted version (of any age), or -1. */
        int reinsertable() {
            return deleted.isEmpty() ? -1 : random.nextInt(deleted.size());
        }

        String keyOf(Version v) {
            return keys.get(v.tid());
        }

        void forget(String key, Version v) {
            if (v != null && v.expiresAt() == 0) {
                deleted.add(v);
            }
        }

        long expiry(int ttl) {
            return (System.currentTimeMillis() / 1000 + ttl) * 1000;
        }

        void insert(String key, Version v) {
            String ttl = v.expiresAt() == 0 ? "" : " USING TTL 2";
            session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)" + ttl,
                    key, v.tid(), v.length() == null ? null : BigInteger.valueOf(v.length()), v.value())
                    .setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
            row(key).put(v.tid(), v);
            newestWhole.merge(key, v.tid(), (a, b) -> Tids.compare(a, b) >= 0 ? a : b);
            trace(key, "insert " + v.tid() + " length " + v.length() + " value " + v.value() + (v.expiresAt() == 0 ? "" : " ttl 2"));
            keys.put(v.tid(), key);
            lastExpiry = Math.max(lastExpiry, v.expiresAt());
        }

        /** The items of by_length/{length} at {@code q} (epoch millis; Long.MAX_VALUE: now), as the read API renders them. */
        Set<Map<String, String>> expected(int length, long q, long now) {
            Set<Map<String, String>> out = new HashSet<>();
            for (Map.Entry<String, TreeMap<UUID, Version>> e : rows.entrySet()) {
                Version current = null;
                for (Version v : e.getValue().values()) {
                    if (v.liveAt(now) && (q == Long.MAX_VALUE || Tids.instant(v.tid()).toEpochMilli() <= q)) {
                        current = v;
                    }
                }
                if (current != null && current.length() != null && current.length() == length) {
                    out.add(item(e.getKey(), current));
                }
            }
            return out;
        }

        /**
         * The items of length {@code length} in the window [{@code fromMillis}, {@code untilMillis})
         * with the versions live at {@code now}: per row, the latest version with that length among
         * the one current at the window's start and those after it before its end.
         */
        Set<Map<String, String>> expectedWithin(int length, long fromMillis, long untilMillis, long now) {
            long from = fromMillis * 10_000;
            long until = untilMillis * 10_000;
            Set<Map<String, String>> out = new HashSet<>();
            for (Map.Entry<String, TreeMap<UUID, Version>> e : rows.entrySet()) {
                Version latest = null;
                boolean started = false;
                List<Version> live = e.getValue().values().stream().filter(v -> v.liveAt(now)).toList();
                for (int i = live.size() - 1; i >= 0 && !started; i--) { // newest first, down to the one current at the start
                    long ticks = io.cassandragsi.index.WriteTimestamps.of(live.get(i).tid());
                    started = ticks <= from;
                    if (ticks < until && latest == null && live.get(i).length() != null && live.get(i).length() == length) {
                        latest = live.get(i);
                    }
                }
                if (latest != null) {
                    out.add(item(e.getKey(), latest));
                }
            }
            return out;
        }

        /** True when a version of the model expires within {@code margin} ms of {@code now}: reads then are not judged. */
        boolean expiresNear(long now, long margin) {
            for (TreeMap<UUID, Version> row : rows.values()) {
                for (Version v : row.values()) {
                    if (v.expiresAt() != 0 && Math.abs(v.expiresAt() - now) <= margin) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private static Map<String, String> item(String key, Version v) {
        Map<String, String> m = new TreeMap<>();
        m.put("key", key);
        m.put("tid", v.tid().toString());
        m.put("length", String.valueOf(v.length()));
        m.put("value", v.value());
        return m;
    }

    private static Set<Map<String, String>> readAll(int length, boolean consistent, String asOf, Random random) {
        return readAll(IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length)).withConsistent(consistent).withAsOf(asOf),
                random);
    }

    /** Every page of a read, of 1 to 4 items each; no item twice. */
    private static Set<Map<String, String>> readAll(IndexReader.Query query, Random random) {
        Set<Map<String, String>> out = new LinkedHashSet<>();
        String next = null;
        do {
            IndexReader.Query q = query.withLimit(1 + random.nextInt(4)).withNext(next);
            IndexReader.Page page = reader.read(q);
            for (Map<String, Object> i : page.items()) {
                Map<String, String> m = new TreeMap<>();
                i.forEach((k, v) -> m.put(k, String.valueOf(v)));
                assertThat(out.add(m)).as("duplicate item %s", m).isTrue();
            }
            next = page.next();
        } while (next != null);
        return out;
    }

    private static List<String> drift(History h, boolean consistent) {
        long now = System.currentTimeMillis();
        List<String> out = new ArrayList<>();
        for (int length = 0; length < LENGTHS; length++) {
            Set<Map<String, String>> want = h.expected(length, Long.MAX_VALUE, now);
            Set<Map<String, String>> got = readAll(length, consistent, null, h.random);
            for (Map<String, String> i : got) {
                if (!want.contains(i)) {
                    out.add((consistent ? "consistent" : "eventual") + " extra " + i);
                }
            }
            for (Map<String, String> i : want) {
                if (!got.contains(i)) {
                    out.add((consistent ? "consistent" : "eventual") + " missing " + i);
                }
            }
        }
        return out;
    }

    /**
     * The entries of by_tid (its key holds the tid: one entry per version) that differ from the
     * versions the model holds: every stored, unexpired version has one, nothing else does.
     */
    private static List<String> perVersionDrift(History h) {
        long now = System.currentTimeMillis();
        Set<String> want = new java.util.TreeSet<>();
        h.rows.forEach((key, row) -> row.values().forEach(v -> {
            if (v.liveAt(now)) {
                want.add(v.tid() + " key=" + key);
            }
        }));
        Set<String> got = new java.util.TreeSet<>();
        for (com.datastax.oss.driver.api.core.cql.Row r : session.execute(SimpleStatement.newInstance(
                "SELECT tid, key FROM " + KS + ".idx_revisions_by_tid_ever").setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM))) {
            if (r.getString(1).matches("k\\d+")) { // the rows of the history (the other test writes others)
                got.add(r.getUuid(0) + " key=" + r.getString(1));
            }
        }
        List<String> out = new ArrayList<>();
        got.stream().filter(e -> !want.contains(e)).forEach(e -> out.add("by_tid extra " + e));
        want.stream().filter(e -> !got.contains(e)).forEach(e -> out.add("by_tid missing " + e));
        return out;
    }

    private static long seed() {
        String s = System.getProperty("gsi.seed", "");
        return s.isBlank() ? System.nanoTime() : Long.parseLong(s.trim());
    }

    @Test
    void should_bring_back_the_version_before_when_the_newest_is_deleted_or_expires() throws Exception {
        long seed = seed();
        System.out.println("VersionedDeletesIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        History h = new History(seed);
        int falsePositives = 0;
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            for (int i = 0; i < 300; i++) {
                h.step();
                if (i % 20 == 19 && !h.expiresNear(System.currentTimeMillis(), 2_500)) {
                    // consistent reads during the history never return what the base lacks
                    int length = h.random.nextInt(LENGTHS);
                    Set<Map<String, String>> want = h.expected(length, Long.MAX_VALUE, System.currentTimeMillis());
                    for (Map<String, String> got : readAll(length, true, null, h.random)) {
                        if (!want.contains(got)) {
                            falsePositives++;
                            System.out.println("VersionedDeletesIT false positive " + got);
                        }
                    }
                }
            }
        }
        for (int i = 0; i < 150; i++) {
            h.step(); // the service is down while deletes and expiries happen
        }
        Thread.sleep(2_100);
        for (String key : new ArrayList<>(h.rows.keySet())) {
            h.rewrite(key); // the newest version of each row rewritten in place, with nothing after it
        }
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            Thread.sleep(Math.max(0, h.lastExpiry + 3_000 - System.currentTimeMillis()));
            long deadline = System.currentTimeMillis() + 90_000;
            List<String> drift;
            do {
                Thread.sleep(500);
                drift = drift(h, false);
                drift.addAll(perVersionDrift(h));
            } while (!drift.isEmpty() && System.currentTimeMillis() < deadline);
            List<String> consistent = drift(h, true);
            List<String> past = new ArrayList<>();
            long now = System.currentTimeMillis();
            for (int i = 0; i < 20; i++) {
                long q = now - h.random.nextInt(90_000);
                int length = h.random.nextInt(LENGTHS);
                Set<Map<String, String>> want = h.expected(length, q, now);
                Set<Map<String, String>> got = readAll(length, true, Instant.ofEpochMilli(q).toString(), h.random);
                if (!want.equals(got)) {
                    past.add("as of " + Instant.ofEpochMilli(q) + " length " + length + ": got " + got + ", want " + want);
                }
            }
            // windows over the history, eventual and consistent: each row with its latest version of the length in the window
            List<String> windows = new ArrayList<>();
            int windowsWithRows = 0;
            for (int i = 0; i < 20; i++) {
                long from = now - h.random.nextInt(120_000);
                long until = from + 1 + h.random.nextInt(40_000);
                int length = h.random.nextInt(LENGTHS);
                Set<Map<String, String>> want = h.expectedWithin(length, from, until, now);
                windowsWithRows += want.isEmpty() ? 0 : 1;
                for (boolean c : new boolean[] {false, true}) {
                    Set<Map<String, String>> got = readAll(IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))
                            .withConsistent(c).withWindow(Instant.ofEpochMilli(from).toString(), Instant.ofEpochMilli(until).toString()), h.random);
                    if (!want.equals(got)) {
                        windows.add((c ? "consistent" : "eventual") + " window " + Instant.ofEpochMilli(from) + ".." + Instant.ofEpochMilli(until)
                                + " length " + length + ": got " + got + ", want " + want);
                    }
                }
            }
            System.out.printf("VersionedDeletesIT seed %d: %d steps (%d in-place rewrites); false positives during the history %d; after drain: eventual %s,"
                    + " consistent %s, consistent as of past moments %s, windows %s; service %s%n", seed, h.steps, h.rewrites, falsePositives, drift,
                    consistent, past, windows, service.status());
            List<String> failures = new ArrayList<>(drift);
            failures.addAll(consistent);
            failures.addAll(past);
            failures.addAll(windows);
            if (!failures.isEmpty()) {
                System.out.println("VersionedDeletesIT seed " + seed + ": rows that differ:" + h.traces(failures));
            }
            assertThat(falsePositives).as("seed %d: consistent-read false positives", seed).isZero();
            assertThat(drift).as("seed %d: eventual reads after drain", seed).isEmpty();
            assertThat(consistent).as("seed %d: consistent reads after drain", seed).isEmpty();
            assertThat(past).as("seed %d: consistent reads as of past moments", seed).isEmpty();
            assertThat(windows).as("seed %d: window reads", seed).isEmpty();
            assertThat(windowsWithRows).as("seed %d: windows the model says hold rows", seed).isPositive();
            // nothing stays pending: a diff marker whose version was deleted before the service read it is not retried
            // until it gives up (10 minutes), it recomputes the row once the version has been missing for a few seconds
            long quiet = System.currentTimeMillis() + 60_000;
            while (pendingHere(service) && System.currentTimeMillis() < quiet) {
                Thread.sleep(500);
            }
            assertThat(service.status()).as("seed %d: the service after drain", seed).containsEntry("gave_up", 0L)
                    .extractingByKey("pending_by_table", InstanceOfAssertFactories.MAP).doesNotContainKey(KS + ".revisions");
            assertThat(drift(h, false)).as("seed %d: eventual reads once nothing is pending", seed).isEmpty();
            // what the repairs left (entries of deleted versions marked after their _tid) is what check expects
            io.cassandragsi.repair.jobs.Jobs jobs = new io.cassandragsi.repair.jobs.Jobs(session, GsiConfig.defaults());
            io.cassandragsi.repair.jobs.CheckResult check = jobs.check(KS, "revisions", "by_length", false, null);
            System.out.println("VersionedDeletesIT seed " + seed + ": " + check.summary());
            // Reads are exact (above), and so is every entry: an expired _tid is rewritten above the expired cells
            // (seeds 7818718600678 and 12385320790534 left one before the rows table's key times set that floor).
            io.cassandragsi.repair.jobs.CheckResult.IndexReport r = check.index("by_length");
            assertThat(r.driftCount()).as("seed %d: check after drain: %s", seed, check.summary()).isZero();
            assertThat(jobs.check(KS, "revisions", "by_length", true, null).index("by_length").unfixable()).isZero();
            // an index whose key holds the tid lost the entries of deleted and expired versions too (perVersionDrift above)
            io.cassandragsi.repair.jobs.CheckResult perVersion = jobs.check(KS, "revisions", "by_tid", false, null);
            System.out.println("VersionedDeletesIT seed " + seed + ": " + perVersion.summary());
            assertThat(perVersion.drift()).as("seed %d: check of by_tid after drain: %s", seed, perVersion.summary()).isFalse();
        }
    }

    /** An in-place rewrite of the newest version (a second after its tid's time) moves its entry; without a recompute the old one stays. */
    @Test
    void should_move_the_entry_when_the_newest_version_is_rewritten_in_place() throws Exception {
        UUID tid = Uuids.timeBased();
        session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('rw', ?, 100, 'x')", tid));
        Thread.sleep(1_200);
        session.execute(SimpleStatement.newInstance("UPDATE " + KS + ".revisions SET length = 101 WHERE key = 'rw' AND tid = ?", tid));
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            long deadline = System.currentTimeMillis() + 30_000;
            Set<Map<String, String>> old;
            Set<Map<String, String>> moved;
            do {
                Thread.sleep(200);
                old = read(100);
                moved = read(101);
            } while ((!old.isEmpty() || moved.size() != 1) && System.currentTimeMillis() < deadline);
            assertThat(old).as("the entry of the version's old length").isEmpty();
            assertThat(moved).extracting(m -> m.get("tid")).containsExactly(tid.toString());

            // within the second after its tid's time, once the first write was diffed: the rows table tells
            UUID soon = Uuids.timeBased();
            session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('rw2', ?, 102, 'x')", soon));
            Thread.sleep(400);
            session.execute(SimpleStatement.newInstance("UPDATE " + KS + ".revisions SET length = 103 WHERE key = 'rw2' AND tid = ?", soon));
            deadline = System.currentTimeMillis() + 30_000;
            do {
                Thread.sleep(200);
                old = read(102);
                moved = read(103);
            } while ((!old.isEmpty() || moved.size() != 1) && System.currentTimeMillis() < deadline);
            assertThat(old).as("the entry of the version's old length, rewritten within a second").isEmpty();
            assertThat(moved).extracting(m -> m.get("tid")).containsExactly(soon.toString());
            assertThat(((Number) service.status().get("rewrites")).longValue()).as("found by the diff, not the trigger's rule").isPositive();
        }
    }

    /**
     * A projection rewritten in place at once (within the second the trigger takes for a new
     * version's write): at the version's TS it ties with the stored one, and Cassandra would keep
     * the greater value; the recompute the trigger asks for writes the base's value above it.
     */
    @Test
    void should_take_the_rewritten_projection_when_a_version_is_rewritten_at_once() throws Exception {
        try (RepairService service = writtenTwiceAtOnce("pr", 104, "UPDATE " + KS + ".revisions SET value = 'aa' WHERE key = 'pr' AND tid = ?")) {
            assertThat(awaitValue(104, "aa")).extracting(m -> m.get("value")).as("the base's value, not the greater one").containsExactly("aa");
        }
    }

    /**
     * A version written whole again at once (a client retry with a new timestamp, say): every
     * indexed attribute is there, so the trigger asks for no recompute, and the two writes'
     * projections tie at the version's TS, where Cassandra keeps the greater value. The rows table's
     * newest-write cells show the second write, and the service recomputes the row.
     */
    @Test
    void should_take_the_later_projection_when_a_version_is_written_whole_twice_at_once() throws Exception {
        try (RepairService service = writtenTwiceAtOnce("ww", 106,
                "INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('ww', ?, 106, 'aa')")) {
            assertThat(awaitValue(106, "aa")).extracting(m -> m.get("value")).as("the later write's value, not the greater one").containsExactly("aa");
            if (SharedCluster.INDEXING != Indexing.EVENTUAL) {
                // in eventual indexing the node's diff finds it and hands the row off as a recompute (docs/design.md
                // section 7.11), so the service's diff never sees it
                assertThat(((Number) service.status().get("rewrites")).longValue()).as("found by the diff").isPositive();
            }
        }
    }

    /**
     * A version written after a delete that shadows it (the delete has the higher timestamp) never
     * becomes readable, but the trigger wrote its entries. The version's own marker finds no
     * version: after 20 s the service takes it for deleted and recomputes the row,
     * instead of retrying it for ten minutes (lag and pending retries stuck above zero, and the
     * entries left matching when nothing else recomputes the row).
     */
    @Test
    void should_drop_the_entries_of_a_version_written_under_a_newer_delete() throws Exception {
        // a tid of the moment the version is written (4 s from now): the trigger takes it for a new version, not a rewrite
        UUID tid = Uuids.startOf(System.currentTimeMillis() + 3_800);
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            long later = (System.currentTimeMillis() + 60_000) * 1000;
            session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions USING TIMESTAMP " + later
                    + " WHERE key = 'shadowed' AND tid = ?", tid));
            Thread.sleep(4_000); // its marker is handled, and the pass a second later too: nothing to do yet
            session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('shadowed', ?, 105, 's')",
                    tid));
            assertThat(session.execute(SimpleStatement.newInstance("SELECT tid FROM " + KS + ".revisions WHERE key = 'shadowed'")).one())
                    .as("the delete shadows the version").isNull();
            long deadline = System.currentTimeMillis() + 60_000; // taken for deleted after 20 s, at the next retry
            boolean listed;
            boolean byTid;
            do {
                Thread.sleep(200);
                listed = !read(105).isEmpty();
                byTid = !reader.read(IndexReader.Query.of(KS, "revisions", "by_tid", tid.toString())).items().isEmpty();
            } while ((listed || byTid) && System.currentTimeMillis() < deadline);
            assertThat(listed).as("by_length still lists the shadowed version").isFalse();
            assertThat(byTid).as("by_tid still lists the shadowed version").isFalse();
            // other suites' tables may still have retries pending on a shared node: only this keyspace's count
            while (pendingHere(service) && System.currentTimeMillis() < deadline + 30_000) {
                Thread.sleep(200);
            }
            System.out.println("retries pending on the shared node: " + service.consumer().pendingByTable());
            assertThat(service.status()).as("the version's marker is not retried for ten minutes").containsEntry("gave_up", 0L)
                    .extractingByKey("pending_by_table", InstanceOfAssertFactories.MAP).doesNotContainKey(KS + ".revisions");
        }
    }

    /** True while the service has retries of this suite's table pending. */
    private static boolean pendingHere(RepairService service) {
        return service.consumer().pendingByTable().containsKey(KS + ".revisions");
    }

    /**
     * A version of {@code key} written with {@code length} and the value 'zz', then at once again by
     * {@code rewrite} (its one bind value: the tid), before the service runs; the service, started.
     */
    private static RepairService writtenTwiceAtOnce(String key, int length, String rewrite) {
        UUID tid = Uuids.timeBased();
        session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, 'zz')", key, tid,
                BigInteger.valueOf(length)));
        session.execute(SimpleStatement.newInstance(rewrite, tid));
        return new RepairService(session, GsiConfig.defaults()).start();
    }

    /** The items of by_length/{length} once they are one item with this value, or as they are after 30 s. */
    private static Set<Map<String, String>> awaitValue(int length, String value) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        Set<Map<String, String>> items;
        do {
            Thread.sleep(200);
            items = read(length);
        } while (!(items.size() == 1 && value.equals(items.iterator().next().get("value"))) && System.currentTimeMillis() < deadline);
        return items;
    }

    private static Set<Map<String, String>> read(int length) {
        Set<Map<String, String>> out = new LinkedHashSet<>();
        for (Map<String, Object> i : reader.read(IndexReader.Query.of(KS, "revisions", "by_length", String.valueOf(length))).items()) {
            Map<String, String> m = new TreeMap<>();
            i.forEach((k, v) -> m.put(k, String.valueOf(v)));
            out.add(m);
        }
        return out;
    }
}
