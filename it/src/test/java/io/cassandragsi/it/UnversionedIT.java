package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.Definitions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Unversioned tables on a real node, judged against {@link LwwRows} (an in-test model of
 * Cassandra's per-cell last-write-wins with its tie rules, sharing no code with the project):
 * randomized histories of inserts, partial updates, nulls, column, row, range and partition
 * deletes, TTLs, client timestamps out of order and tied, retries and conditional writes, from
 * {@value History#WRITERS} concurrent writers, some of them while the repair service is stopped. Consistent reads taken during the history never
 * return a row the base lacks; once the service has drained, eventual and consistent reads equal
 * the oracle exactly, read in pages of random size. The seed is printed; replay with -Dgsi.seed=N.
 */
class UnversionedIT {
    private static final String KS = "it_unversioned";
    private static final String USERS = """
            {"keyspace": "it_unversioned", "table": "users",
             "attributes": {"id": "string", "email": "string", "country": "string", "age": "int", "name": "string", "bio": "string"},
             "index": [{"type": "hash", "attribute": "id"}],
             "secondaryIndexes": {
               "by_email": [{"type": "hash", "attribute": "email"}, {"type": "proj", "attribute": "name"}],
               "by_country": [{"type": "hash", "attribute": "country"}, {"type": "range", "attribute": "age"},
                              {"type": "proj", "attribute": "name"}]}}""";
    private static final String MEMBERS = """
            {"keyspace": "it_unversioned", "table": "members",
             "attributes": {"org": "string", "uid": "int", "role": "string", "level": "int"},
             "index": [{"type": "hash", "attribute": "org"}, {"type": "range", "attribute": "uid"}],
             "secondaryIndexes": {
               "by_role": [{"type": "hash", "attribute": "role"}, {"type": "range", "attribute": "level"}]}}""";

    private static final List<String> EMAILS = List.of("a@x", "b@x", "c@x", "d@x");
    private static final List<String> COUNTRIES = List.of("fr", "de", "jp");
    private static final List<String> ROLES = List.of("admin", "dev", "ops");

    private static CqlSession session;
    private static IndexReader reader;

    @BeforeAll
    static void setUp() {
        session = SharedCluster.session();
        SharedCluster.apply(Definitions.parse(USERS, "users.json"));
        SharedCluster.apply(Definitions.parse(MEMBERS, "members.json"));
        reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 32);
    }

    @AfterAll
    static void tearDown() {
        if (reader != null) {
            reader.close();
        }
    }

    /** The index entries the oracle says exist, per index name and hash value: items as the read API renders them. */
    private record Expected(Map<String, Map<String, Set<Map<String, String>>>> byIndex) {}

    /** One randomized history, executed one statement at a time so that the oracle knows the order. */
    private static final class History {
        final Random random;
        final LwwRows users = new LwwRows();
        final LwwRows members = new LwwRows();
        final List<Long> plainTimestamps = new ArrayList<>();
        long clock;
        int step;
        SimpleStatement last;
        Runnable lastEffect;
        int conditional;
        int falsePositives;
        int misses;
        int consistentReads;

        History(long seed) {
            this.random = new Random(seed);
            this.clock = System.currentTimeMillis() * 1000;
        }

        /** A client timestamp: mostly ahead of the last, up to 20 ms out of order, sometimes tied with an earlier plain write. */
        long timestamp(boolean expiring) {
            step++;
            if (!expiring && !plainTimestamps.isEmpty() && random.nextInt(10) == 0) {
                return plainTimestamps.get(random.nextInt(plainTimestamps.size()));
            }
            long ts = Math.max(clock, System.currentTimeMillis() * 1000) + 1000 + random.nextInt(40_000) - 20_000;
            clock += 1000;
            if (!expiring) {
                plainTimestamps.add(ts);
            }
            return ts;
        }

        /**
         * Concurrent writers: up to {@value #WRITERS} writes in flight at once, so they reach the node, the
         * trigger and the service in any order. Their client timestamps decide last-write-wins whatever the order,
         * so the oracle takes each at once; a conditional write or a read waits until none is in flight.
         */
        static final int WRITERS = 4;
        final java.util.concurrent.Semaphore writers = new java.util.concurrent.Semaphore(WRITERS);
        final List<java.util.concurrent.CompletableFuture<?>> inFlight = new ArrayList<>();

        void run(SimpleStatement st, Runnable effect) {
            writers.acquireUninterruptibly();
            inFlight.add(session.executeAsync(st.setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM)).toCompletableFuture()
                    .whenComplete((r, x) -> writers.release()));
            effect.run();
            last = st;
            lastEffect = effect;
            for (java.util.Iterator<java.util.concurrent.CompletableFuture<?>> it = inFlight.iterator(); it.hasNext();) {
                java.util.concurrent.CompletableFuture<?> f = it.next();
                if (f.isDone()) {
                    f.join(); // a failed write fails the test here
                    it.remove();
                }
            }
        }

        /** Waits for the writes in flight (a failed one fails the test). */
        void sync() {
            inFlight.forEach(java.util.concurrent.CompletableFuture::join);
            inFlight.clear();
        }

        String id() {
            return "u" + random.nextInt(10);
        }

        void userStep() {
            String id = id();
            List<Object> row = List.of(id);
            int op = random.nextInt(12);
            String email = EMAILS.get(random.nextInt(EMAILS.size()));
            String country = COUNTRIES.get(random.nextInt(COUNTRIES.size()));
            int age = 20 + random.nextInt(4);
            String name = "n" + random.nextInt(5);
            switch (op) {
                case 0, 1 -> {
                    int ttl = random.nextInt(8) == 0 ? (random.nextBoolean() ? 2 : 3600) : 0;
                    long ts = timestamp(ttl > 0);
                    run(SimpleStatement.newInstance("INSERT INTO it_unversioned.users (id, email, country, age, name, bio) VALUES (?, ?, ?, ?, ?, 'x')"
                            + " USING TIMESTAMP " + ts + (ttl > 0 ? " AND TTL " + ttl : ""), id, email, country, age, name), () -> {
                                users.write(row, "email", email, ts, ttl);
                                users.write(row, "country", country, ts, ttl);
                                users.write(row, "age", age, ts, ttl);
                                users.write(row, "name", name, ts, ttl);
                            });
                }
                case 2 -> {
                    long ts = timestamp(false);
                    run(SimpleStatement.newInstance("UPDATE it_unversioned.users USING TIMESTAMP " + ts + " SET email = ? WHERE id = ?", email, id),
                            () -> users.write(row, "email", email, ts, 0));
                }
                case 3 -> {
                    int ttl = random.nextInt(6) == 0 ? 2 : 0;
                    long ts = timestamp(ttl > 0);
                    run(SimpleStatement.newInstance("UPDATE it_unversioned.users USING TIMESTAMP " + ts + (ttl > 0 ? " AND TTL " + ttl : "")
                            + " SET country = ?, age = ? WHERE id = ?", country, age, id), () -> {
                                users.write(row, "country", country, ts, ttl);
                                users.write(row, "age", age, ts, ttl);
                            });
                }
                case 4 -> {
                    long ts = timestamp(false);
                    run(SimpleStatement.newInstance("UPDATE it_unversioned.users USING TIMESTAMP " + ts + " SET name = ? WHERE id = ?", name, id),
                            () -> users.write(row, "name", name, ts, 0));
                }
                case 5 -> {
                    long ts = timestamp(false);
                    run(SimpleStatement.newInstance("UPDATE it_unversioned.users USING TIMESTAMP " + ts + " SET email = null WHERE id = ?", id),
                            () -> users.write(row, "email", null, ts, 0));
                }
                case 6 -> {
                    long ts = timestamp(false);
                    String col = random.nextBoolean() ? "age" : "name";
                    run(SimpleStatement.newInstance("DELETE " + col + " FROM it_unversioned.users USING TIMESTAMP " + ts + " WHERE id = ?", id),
                            () -> users.write(row, col, null, ts, 0));
                }
                case 7 -> {
                    long ts = timestamp(false);
                    run(SimpleStatement.newInstance("DELETE FROM it_unversioned.users USING TIMESTAMP " + ts + " WHERE id = ?", id),
                            () -> users.deleteRow(row, ts));
                }
                case 8 -> {
                    if (last != null) {
                        run(last, lastEffect); // a client retry: the same statement, the same timestamp
                    }
                }
                case 9, 10 -> conditionalStep(id, row, email, country, age, name);
                default -> {
                    long ts = timestamp(true);
                    run(SimpleStatement.newInstance("UPDATE it_unversioned.users USING TIMESTAMP " + ts + " AND TTL 2 SET email = ? WHERE id = ?",
                            email, id), () -> users.write(row, "email", email, ts, 2));
                }
            }
        }

        /** A conditional write; the oracle applies it at the timestamp Paxos gave it when Cassandra says it applied. */
        void conditionalStep(String id, List<Object> row, String email, String country, int age, String name) {
            sync();
            boolean insert = random.nextBoolean();
            ResultSet rs = insert
                    ? session.execute(SimpleStatement.newInstance("INSERT INTO it_unversioned.users (id, email, country, age, name) VALUES (?, ?, ?, ?, ?)"
                            + " IF NOT EXISTS", id, email, country, age, name))
                    : session.execute(SimpleStatement.newInstance("UPDATE it_unversioned.users SET email = ? WHERE id = ? IF country = ?",
                            email, id, country));
            conditional++;
            if (!rs.wasApplied()) {
                return;
            }
            // Paxos gives the write its own timestamp. Each written cell is read back: when it holds the written
            // value, the oracle takes it with the timestamp it has; when it does not, the write's cell lost to a
            // cell with a later timestamp (or a deletion), and a cell that lost never wins anything later: left out
            Row w = session.execute(SimpleStatement.newInstance("SELECT email, WRITETIME(email), country, WRITETIME(country), age,"
                    + " WRITETIME(age), name, WRITETIME(name) FROM it_unversioned.users WHERE id = ?", id)
                    .setConsistencyLevel(ConsistencyLevel.SERIAL)).one();
            last = null;
            if (w == null) {
                return;
            }
            Object[][] written = insert
                    ? new Object[][] {{"email", email}, {"country", country}, {"age", age}, {"name", name}}
                    : new Object[][] {{"email", email}};
            for (Object[] c : written) {
                int i = switch ((String) c[0]) {
                    case "email" -> 0;
                    case "country" -> 2;
                    case "age" -> 4;
                    default -> 6;
                };
                Object now = w.getObject(i);
                if (now != null && now.equals(c[1])) {
                    users.write(row, (String) c[0], c[1], w.getLong(i + 1), 0);
                    plainTimestamps.add(w.getLong(i + 1));
                }
            }
        }

        void memberStep() {
            String org = "o" + random.nextInt(2);
            int uid = random.nextInt(6);
            List<Object> row = List.of(org, uid);
            String role = ROLES.get(random.nextInt(ROLES.size()));
            int level = 1 + random.nextInt(3);
            int op = random.nextInt(10);
            long ts = timestamp(false);
            if (op < 5) {
                run(SimpleStatement.newInstance("INSERT INTO it_unversioned.members (org, uid, role, level) VALUES (?, ?, ?, ?) USING TIMESTAMP " + ts,
                        org, uid, role, level), () -> {
                            members.write(row, "role", role, ts, 0);
                            members.write(row, "level", level, ts, 0);
                        });
            } else if (op < 7) {
                run(SimpleStatement.newInstance("UPDATE it_unversioned.members USING TIMESTAMP " + ts + " SET role = ? WHERE org = ? AND uid = ?",
                        role, org, uid), () -> members.write(row, "role", role, ts, 0));
            } else if (op == 7) {
                run(SimpleStatement.newInstance("DELETE FROM it_unversioned.members USING TIMESTAMP " + ts + " WHERE org = ? AND uid = ?", org, uid),
                        () -> members.deleteRow(row, ts));
            } else if (op == 8) {
                int lo = random.nextInt(5);
                int hi = lo + 1 + random.nextInt(3);
                run(SimpleStatement.newInstance("DELETE FROM it_unversioned.members USING TIMESTAMP " + ts
                        + " WHERE org = ? AND uid >= ? AND uid < ?", org, lo, hi), () -> members.deleteRange(org, lo, hi, ts));
            } else if (random.nextInt(3) == 0) {
                run(SimpleStatement.newInstance("DELETE FROM it_unversioned.members USING TIMESTAMP " + ts + " WHERE org = ?", org),
                        () -> members.deletePartition(org, ts));
            }
        }

        /** What the oracle says the indexes hold at {@code now}. */
        Expected expected(long now) {
            Map<String, Map<String, Set<Map<String, String>>>> out = new TreeMap<>();
            for (List<Object> row : users.rowKeys()) {
                Object email = users.live(row, "email", now);
                Object name = users.live(row, "name", now);
                if (email != null) {
                    out.computeIfAbsent("by_email", k -> new TreeMap<>()).computeIfAbsent(email.toString(), k -> new HashSet<>())
                            .add(item("email", email, "id", row.get(0), "name", name));
                }
                Object country = users.live(row, "country", now);
                Object age = users.live(row, "age", now);
                if (country != null && age != null) {
                    out.computeIfAbsent("by_country", k -> new TreeMap<>()).computeIfAbsent(country.toString(), k -> new HashSet<>())
                            .add(item("country", country, "age", age, "id", row.get(0), "name", name));
                }
            }
            for (List<Object> row : members.rowKeys()) {
                Object role = members.live(row, "role", now);
                Object level = members.live(row, "level", now);
                if (role != null && level != null) {
                    out.computeIfAbsent("by_role", k -> new TreeMap<>()).computeIfAbsent(role.toString(), k -> new HashSet<>())
                            .add(item("role", role, "level", level, "org", row.get(0), "uid", row.get(1)));
                }
            }
            return new Expected(out);
        }

        /** Rows whose indexed cells expire within a margin of {@code now}: their entries are not judged then. */
        boolean ambiguous(String index, Map<String, String> item, long now) {
            if (index.equals("by_role")) {
                return false;
            }
            return users.expiresNear(List.of(item.get("id")), List.of("email", "country", "age", "name"), now, 2_500);
        }
    }

    private static Map<String, String> item(Object... kv) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i].toString(), kv[i + 1] == null ? null : kv[i + 1].toString());
        }
        return m;
    }

    private static String table(String index) {
        return index.equals("by_role") ? "members" : "users";
    }

    private static List<String> hashValues(String index) {
        return switch (index) {
            case "by_email" -> EMAILS;
            case "by_country" -> COUNTRIES;
            default -> ROLES;
        };
    }

    /** Every item of one read, through all its pages (each of a random size from 1 to 4). */
    private static Set<Map<String, String>> readAll(String index, String value, boolean consistent, Random random) {
        Set<Map<String, String>> out = new LinkedHashSet<>();
        String next = null;
        int pages = 0;
        do {
            IndexReader.Query q = IndexReader.Query.of(KS, table(index), index, value).withConsistent(consistent)
                    .withLimit(1 + random.nextInt(4)).withNext(next);
            IndexReader.Page page = reader.read(q);
            for (Map<String, Object> i : page.items()) {
                Map<String, String> m = new TreeMap<>();
                i.forEach((k, v) -> m.put(k, v == null ? null : v.toString()));
                assertThat(out.add(m)).as("duplicate item %s", m).isTrue();
            }
            next = page.next();
            assertThat(++pages).isLessThan(500);
        } while (next != null);
        return out;
    }

    /** Differences between the reads of every index and the oracle; empty when equal. */
    private static List<String> drift(History h, boolean consistent, Random random) {
        long now = System.currentTimeMillis();
        Expected expected = h.expected(now);
        List<String> out = new ArrayList<>();
        for (String index : List.of("by_email", "by_country", "by_role")) {
            for (String value : hashValues(index)) {
                Set<Map<String, String>> want = expected.byIndex().getOrDefault(index, Map.of()).getOrDefault(value, Set.of());
                Set<Map<String, String>> got = readAll(index, value, consistent, random);
                for (Map<String, String> i : got) {
                    if (!want.contains(i)) {
                        out.add(index + "/" + value + ": extra " + i);
                    }
                }
                for (Map<String, String> i : want) {
                    if (!got.contains(i)) {
                        out.add(index + "/" + value + ": missing " + i);
                    }
                }
            }
        }
        return out;
    }

    /** A consistent read during the history: it may miss what only the service can index yet, never return what the base lacks. */
    private static void consistentProbe(History h) {
        h.sync();
        String index = List.of("by_email", "by_country", "by_role").get(h.random.nextInt(3));
        String value = hashValues(index).get(h.random.nextInt(hashValues(index).size()));
        long before = System.currentTimeMillis();
        Set<Map<String, String>> got = readAll(index, value, true, h.random);
        long after = System.currentTimeMillis();
        Set<Map<String, String>> want = h.expected(after).byIndex().getOrDefault(index, Map.of()).getOrDefault(value, Set.of());
        h.consistentReads++;
        for (Map<String, String> i : got) {
            if (!want.contains(i) && !h.ambiguous(index, i, before) && !h.ambiguous(index, i, after)) {
                h.falsePositives++;
                System.out.println("UnversionedIT false positive: " + index + "/" + value + " " + i + "; expected " + want);
            }
        }
        for (Map<String, String> i : want) {
            if (!got.contains(i)) {
                h.misses++;
            }
        }
    }

    private static long seed() {
        String s = System.getProperty("gsi.seed", "");
        return s.isBlank() ? System.nanoTime() : Long.parseLong(s.trim());
    }

    private static void steps(History h, int n) {
        for (int i = 0; i < n; i++) {
            if (h.random.nextInt(3) == 0) {
                h.memberStep();
            } else {
                h.userStep();
            }
            if (h.random.nextInt(25) == 0) {
                consistentProbe(h);
            }
        }
        h.sync();
    }

    /** Waits until reads equal the oracle (the service drains), or the timeout; returns the last drift. */
    private static List<String> converge(History h, boolean consistent, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        List<String> drift;
        while (true) {
            drift = drift(h, consistent, h.random);
            if (drift.isEmpty() || System.currentTimeMillis() > deadline) {
                return drift;
            }
            Thread.sleep(500);
        }
    }

    @Test
    void should_equal_last_write_wins_through_random_histories_with_the_service_running_and_stopped() throws Exception {
        long seed = seed();
        System.out.println("UnversionedIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        History h = new History(seed);
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            steps(h, 500);
        }
        // the service is down while more writes, deletes and expiries happen; consistent reads stay exact
        steps(h, 300);
        long lastExpiry = h.users.lastExpiry(System.currentTimeMillis() + 60_000);
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            // judge once every short TTL has passed (entries may outlive their cells by up to 2 s)
            Thread.sleep(Math.max(0, lastExpiry + 3_000 - System.currentTimeMillis()));
            List<String> eventual = converge(h, false, 120_000);
            List<String> consistent = drift(h, true, h.random);
            System.out.printf("UnversionedIT seed %d: %d steps, %d conditional; consistent reads during the history: %d, false positives %d,"
                    + " rows missed until the service indexed them %d; after drain: eventual drift %s, consistent drift %s; service %s%n",
                    seed, h.step, h.conditional, h.consistentReads, h.falsePositives, h.misses, eventual, consistent, service.status());
            assertThat(h.falsePositives).as("seed %d: consistent-read false positives", seed).isZero();
            assertThat(eventual).as("seed %d: eventual reads against the oracle after drain", seed).isEmpty();
            assertThat(consistent).as("seed %d: consistent reads against the oracle after drain", seed).isEmpty();
        }
        checkFixAndRebuild(h, seed);
    }

    /**
     * After the history: check finds no drift; injected defects (a lost entry, a lost mark, an
     * orphan, a wrong projection) are found, counted by kind and fixed; a rebuild into emptied index
     * tables gives back what the oracle says.
     */
    private static void checkFixAndRebuild(History h, long seed) {
        Jobs jobs = new Jobs(session, GsiConfig.defaults());
        CheckResult clean = jobs.check(KS, "users", null, false, null);
        System.out.println("UnversionedIT seed " + seed + ": " + clean.summary());
        assertThat(clean.drift()).as("seed %d: check after drain: %s", seed, clean.summary()).isFalse();
        assertThat(clean.index("by_email").expected()).isPositive();

        // a write that bypasses the trigger (as on a node without the jar): no entry, no record
        session.execute("DROP TRIGGER gsi_index ON it_unversioned.users");
        long ts = System.currentTimeMillis() * 1000;
        session.execute("INSERT INTO it_unversioned.users (id, email, name) VALUES ('bypass', 'a@x', 'B') USING TIMESTAMP " + ts);
        session.execute("CREATE TRIGGER gsi_index ON it_unversioned.users USING 'io.cassandragsi.trigger.IndexTrigger'");
        h.users.write(List.of("bypass"), "email", "a@x", ts, 0);
        h.users.write(List.of("bypass"), "name", "B", ts, 0);
        Map<String, String> victim = item("email", "a@x", "id", "bypass", "name", "B");
        String other = EMAILS.stream().filter(e -> !e.equals(victim.get("email"))).findFirst().orElseThrow();
        long future = System.currentTimeMillis() * 10_000 + 100_000_000L;
        session.execute("UPDATE it_unversioned.idx_users_by_email_ever USING TIMESTAMP " + future
                + " SET \"_tid\" = maxTimeuuid('2026-01-01 00:00:00+0000'), name = 'ghost' WHERE email = ? AND id = 'nobody'", other);
        CheckResult found = jobs.check(KS, "users", "by_email", false, null);
        System.out.println("UnversionedIT seed " + seed + " with defects: " + found.summary());
        CheckResult.IndexReport r = found.index("by_email");
        assertThat(r.missing()).as("the lost entry").isEqualTo(1);
        assertThat(r.orphans()).as("the entry no row explains").isEqualTo(1);
        CheckResult fixed = jobs.check(KS, "users", "by_email", true, null);
        assertThat(fixed.index("by_email").fixed()).isEqualTo(2);
        assertThat(jobs.check(KS, "users", null, false, null).drift()).isFalse();
        assertThat(drift(h, false, h.random)).as("seed %d: reads after check --fix", seed).isEmpty();

        for (String t : List.of("idx_users_by_email_ever", "idx_users_by_country_ever", "idx_members_by_role_ever")) {
            session.execute("TRUNCATE it_unversioned." + t);
        }
        assertThat(jobs.rebuild(KS, "users", null, RebuildOptions.defaults(), null).state()).isEqualTo(JobState.DONE);
        assertThat(jobs.rebuild(KS, "members", null, RebuildOptions.defaults(), null).state()).isEqualTo(JobState.DONE);
        assertThat(drift(h, false, h.random)).as("seed %d: eventual reads after a rebuild", seed).isEmpty();
        assertThat(drift(h, true, h.random)).as("seed %d: consistent reads after a rebuild", seed).isEmpty();
        assertThat(jobs.check(KS, "members", null, false, null).drift()).isFalse();
    }

    @Test
    void should_refuse_a_consistent_read_in_the_past_on_an_unversioned_table() {
        IndexReader.Query q = IndexReader.Query.of(KS, "users", "by_email", "a@x").withConsistent(true).withAsOf("2026-01-01T00:00:00Z");
        assertThatThrownBy(() -> reader.read(q)).isInstanceOf(ReadException.class)
                .hasMessageContaining("unversioned: the base keeps no history");
        assertThat(reader.read(q.withConsistent(false)).items()).isNotNull();
    }

    @Test
    void should_leave_writes_of_unindexed_columns_alone() throws InterruptedException {
        session.execute("INSERT INTO it_unversioned.users (id, email, name) VALUES ('quiet', 'q@x', 'Q')");
        SharedCluster.awaitMaintainersIdle(); // in eventual indexing the node writes the entry and the record after the write
        long markers = rowsWritten("quiet");
        session.execute("UPDATE it_unversioned.users SET bio = 'long text' WHERE id = 'quiet'");
        SharedCluster.awaitMaintainersIdle();
        assertThat(rowsWritten("quiet")).as("the rows table sees no write that touches no indexed attribute").isEqualTo(markers);
        Map<String, Object> item = new LinkedHashMap<>(reader.read(IndexReader.Query.of(KS, "users", "by_email", "q@x")).items().get(0));
        assertThat(item).containsEntry("id", "quiet").containsEntry("name", "Q");
    }

    /**
     * The rows table forgets a key once its entry is marked and a later write of the row comes more
     * than a second after it (client timestamps decide, so no waiting on the clock); a write that
     * gives the row that key again, with an older timestamp or a newer one, is judged as before.
     */
    @Test
    void should_forget_a_settled_key_and_find_it_again_when_the_row_takes_it_back() throws Exception {
        long t = System.currentTimeMillis() * 1000;
        String email = "UPDATE it_unversioned.users USING TIMESTAMP %d SET email = '%s' WHERE id = 'forget'";
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            session.execute("INSERT INTO it_unversioned.users (id, email, name) VALUES ('forget', 'f1@x', 'F') USING TIMESTAMP " + t);
            session.execute(String.format(email, t + 2_000_000, "f2@x"));
            awaitEmails(Map.of("f1@x", false, "f2@x", true)); // f1@x is marked
            session.execute(String.format(email, t + 4_000_000, "f3@x")); // its repair forgets f1@x: marked, 4 s older
            long deadline = System.currentTimeMillis() + 30_000;
            // (in eventual indexing f3@x's record follows its write, and f2@x's second pass may forget f1@x before it lands)
            while ((recorded("f1@x") || !recorded("f3@x")) && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            assertThat(recorded("f1@x")).as("the rows table forgot the settled key").isFalse();
            assertThat(recorded("f3@x")).isTrue();
            assertThat(((Number) service.status().get("keys_forgotten")).longValue()).isPositive();
            awaitEmails(Map.of("f1@x", false, "f2@x", false, "f3@x", true));

            session.execute(String.format(email, t + 1_000_000, "f1@x")); // an older write: it loses, in the base and in the index
            session.execute(String.format(email, t + 5_000_000, "f1@x")); // a newer one: the row has f1@x again
            awaitEmails(Map.of("f1@x", true, "f2@x", false, "f3@x", false));
            assertThat(recorded("f1@x")).as("recorded again").isTrue();
            session.execute(String.format(email, t + 7_000_000, "f4@x")); // and leaves it: the repair must find f1@x's entry
            awaitEmails(Map.of("f1@x", false, "f2@x", false, "f3@x", false, "f4@x", true));
        }
    }

    /**
     * A window read of an unversioned table (eventual) answers from the interval each entry keeps,
     * {@code [_tid, _deleted)}: a row that left an email counts under it in the windows that meet
     * its time with it, not in later ones, and under the new email from then on (client timestamps
     * place the writes; bounds in epoch milliseconds).
     */
    @Test
    void should_answer_windows_from_the_interval_each_entry_keeps() throws Exception {
        long t = (System.currentTimeMillis() - 10_000) * 1000; // the windows below end before now
        long ms = t / 1000;
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            session.execute("INSERT INTO it_unversioned.users (id, email, name) VALUES ('win', 'w1@x', 'W') USING TIMESTAMP " + t);
            session.execute("UPDATE it_unversioned.users USING TIMESTAMP " + (t + 2_000_000) + " SET email = 'w2@x' WHERE id = 'win'");
            long deadline = System.currentTimeMillis() + 30_000;
            while (inWindow("w1@x", null, null) && System.currentTimeMillis() < deadline) { // until its entry is marked
                Thread.sleep(100);
            }
            assertThat(inWindow("w1@x", null, null)).as("w1@x marked").isFalse();
            assertThat(inWindow("w1@x", ms, ms + 1_000)).as("w1@x before the change").isTrue();
            assertThat(inWindow("w2@x", ms, ms + 1_000)).as("w2@x before the change").isFalse();
            assertThat(inWindow("w1@x", ms + 1_000, ms + 3_000)).as("w1@x across the change").isTrue();
            assertThat(inWindow("w2@x", ms + 1_000, ms + 3_000)).as("w2@x across the change").isTrue();
            assertThat(inWindow("w1@x", ms + 3_000, null)).as("w1@x after the change").isFalse();
            assertThat(inWindow("w2@x", ms + 3_000, null)).as("w2@x after the change").isTrue();
        }
    }

    /** Whether an eventual read of by_email finds row 'win' in a window (a null bound is left out; both null: a read as of now). */
    private static boolean inWindow(String email, Long fromMillis, Long untilMillis) {
        IndexReader.Query q = IndexReader.Query.of(KS, "users", "by_email", email);
        if (fromMillis != null || untilMillis != null) {
            q = q.withWindow(fromMillis == null ? null : fromMillis.toString(), untilMillis == null ? null : untilMillis.toString());
        }
        return reader.read(q).items().stream().anyMatch(i -> "win".equals(i.get("id")));
    }

    /** Whether the rows table records by_email key (email, 'forget'). */
    private static boolean recorded(String email) {
        Row r = session.execute(SimpleStatement.newInstance("SELECT \"_keys\" FROM it_unversioned.idx_users__rows WHERE id = 'forget'")
                .setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM)).one();
        java.nio.ByteBuffer element = io.cassandragsi.schema.RowsLayout.element("by_email",
                List.of(java.nio.ByteBuffer.wrap(email.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                        java.nio.ByteBuffer.wrap("forget".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
        return r != null && r.getSet(0, java.nio.ByteBuffer.class).contains(element);
    }

    /** Waits until eventual and consistent reads of each email find row 'forget' or not, as given; fails after 30 s. */
    private static void awaitEmails(Map<String, Boolean> want) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        Map<String, String> got;
        do {
            got = new TreeMap<>();
            for (Map.Entry<String, Boolean> e : want.entrySet()) {
                for (boolean consistent : new boolean[] {false, true}) {
                    boolean found = reader.read(IndexReader.Query.of(KS, "users", "by_email", e.getKey()).withConsistent(consistent)).items()
                            .stream().anyMatch(i -> "forget".equals(i.get("id")));
                    if (found != e.getValue()) {
                        got.put(e.getKey() + (consistent ? " consistent" : " eventual"), found ? "found" : "missing");
                    }
                }
            }
            if (got.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        } while (System.currentTimeMillis() < deadline);
        assertThat(got).as("reads of row 'forget' that differ from %s", want).isEmpty();
    }

    private static long rowsWritten(String id) {
        Row r = session.execute("SELECT \"_w\" FROM it_unversioned.idx_users__rows WHERE id = ?", id).one();
        return r == null ? 0 : r.getLong(0);
    }
}
