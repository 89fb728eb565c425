package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Time-bucketed indexes on a real node (docs/design.md sections 3.7, 8.2 and 9.4): a randomized
 * history whose tids spread over months (old tids, retries, A-B-A flips, partial updates,
 * conditional inserts, nulls), with a day-bucketed and a month-bucketed index. Reads as of past
 * moments and in windows equal the oracle before the buckets are sealed (they read the index
 * tables), after {@code rebuild} sealed them (they read the buckets), after old-tid writes and
 * deletes changed sealed buckets (their seals are no longer valid: the index tables again), and
 * after the service's sealer sealed them again. Then {@code check} finds a sealed bucket entry
 * deleted and another changed behind the service's back (design.md section 9.2), names exactly
 * their buckets, and with {@code --fix} gives them back to the sealer, after which reads equal the
 * oracle and the check is clean again. The suite's failsafe settings shorten the seal
 * margin to 2 s and the sealer's interval to 1 s.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BucketIT {
    private static final String KS = "it_bucket";
    private static final List<String> INDEXES = BucketReads.INDEXES;
    private static CqlSession session;
    private static TableDef def;
    private static GsiServer server;
    private static HistoryRun run;
    private static long seed;
    private static BucketReads reads;

    @BeforeAll
    static void setUp() throws Exception {
        assertThat(BucketRule.MARGIN).as("the suite's seal margin (failsafe: gsi.buckets.margin_ms)").isLessThan(Duration.ofSeconds(10));
        session = SharedCluster.session();
        def = Definitions.parse(BucketReads.DEFINITION.formatted(KS), "BucketIT");
        SharedCluster.apply(def);
        seed = RepairServiceIT.seed();
        System.out.println("BucketIT seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        GsiConfig defaults = GsiConfig.defaults();
        server = new GsiServer(session, new GsiConfig(defaults.cassandra(), defaults.consistency(), defaults.queue(),
                new HttpConfig("127.0.0.1", 0, null, false), defaults.antiEntropy().withEnabled(false)));
        // tids from 120 days ago on, 12 million times as far apart as the run draws them: about 60 days
        // no conditional writes: each is repaired again for 2 minutes, and each pass would end its buckets' seals (limits.md)
        run = new HistoryRun(session, def, seed).warped(Instant.now().minus(Duration.ofDays(120)), BucketReads.STRETCH).withoutConditionalWrites();
        reads = new BucketReads("BucketIT", session, KS, run, server.reader(), seed);
        run.write(30, 600, 3);
        converge();
    }

    @AfterAll
    static void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    private static void converge() throws InterruptedException {
        Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 120_000);
        System.out.println("BucketIT converged: " + drift);
        drift.forEach((index, d) -> assertThat(d.clean()).as("seed %d index %s: %s", seed, index, d).isTrue());
    }

    @Test
    @Order(1)
    void should_equal_the_oracle_in_the_past_before_any_bucket_is_sealed() {
        long newest = newestTidTicks();
        assertThat(Tids.instant(Tids.fromTicks(newest, 0))).as("the history lies in the past").isBefore(Instant.now().minus(Duration.ofDays(1)));
        reads.readAndJudge("before sealing", new Random(seed));
    }

    @Test
    @Order(2)
    void should_read_sealed_buckets_and_equal_the_oracle_after_a_rebuild() throws Exception {
        Thread.sleep(BucketRule.MARGIN.toMillis() + 500); // a seal is valid a margin after the history's last change
        Jobs jobs = new Jobs(session, GsiConfig.defaults());
        assertThat(jobs.rebuild(KS, "revisions", null, RebuildOptions.defaults(), null).state()).isEqualTo(JobState.DONE);
        reads.awaitSealed(Duration.ofSeconds(60)); // a late repair pass (AGAIN) may end a seal; the sealer seals it again
        Map<String, Integer> sealed = reads.validBuckets();
        System.out.println("BucketIT sealed after rebuild: " + sealed);
        assertThat(sealed.get("by_length")).as("day buckets sealed").isGreaterThan(10);
        assertThat(sealed.get("by_length_key")).as("month buckets sealed").isGreaterThanOrEqualTo(2);
        long before = server.reader().bucketReads.sum();
        long mergedBefore = server.reader().mergedReads.sum();
        reads.readAndJudge("sealed by rebuild", new Random(seed + 1));
        long bucketed = server.reader().bucketReads.sum() - before;
        long merged = server.reader().mergedReads.sum() - mergedBefore;
        System.out.println("BucketIT reads through buckets after rebuild: " + bucketed + " through one, " + merged + " merging several");
        assertThat(bucketed).as("reads in the past that used a bucket").isGreaterThan(20);
        assertThat(merged).as("window reads that merged several buckets").isGreaterThan(10);
    }

    @Test
    @Order(3)
    void should_stop_reading_changed_buckets_and_seal_them_again_after_old_tids_and_deletes() throws Exception {
        Map<String, Map<String, BucketsTable.State>> sealedBefore = reads.states();
        // old tids into sealed buckets, then deletes of single versions and of whole rows
        run.warped(Instant.now().minus(Duration.ofDays(100)), BucketReads.STRETCH);
        run.write(30, 150, 2);
        Random rnd = new Random(seed + 2);
        List<Row> versions = session.execute(SimpleStatement.newInstance("SELECT key, tid FROM " + KS + ".revisions")).all();
        for (int i = 0; i < 20; i++) {
            Row v = versions.get(rnd.nextInt(versions.size()));
            session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions WHERE key = ? AND tid = ?", v.getString(0), v.getUuid(1)));
        }
        session.execute(SimpleStatement.newInstance("DELETE FROM " + KS + ".revisions WHERE key = ?", "k" + rnd.nextInt(30)));
        // versions of old tids that expire 3 s later
        for (int i = 0; i < 5; i++) {
            Row v = versions.get(rnd.nextInt(versions.size()));
            UUID tid = Tids.maxAtTicks(WriteTimestamps.of(v.getUuid(1)) + 1 + rnd.nextInt(1000));
            session.execute(SimpleStatement.newInstance("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, 'ttl') USING TTL 3",
                    v.getString(0), tid, BigInteger.valueOf(rnd.nextInt(4))));
        }
        Thread.sleep(4_000);
        run.oracleFromBase(ConsistencyLevel.ALL);
        converge();
        Map<String, Map<String, BucketsTable.State>> changed = reads.states();
        int ended = 0;
        for (String index : INDEXES) {
            for (Map.Entry<String, BucketsTable.State> e : sealedBefore.get(index).entrySet()) {
                BucketsTable.State now = changed.get(index).get(e.getKey());
                if (e.getValue().valid() && (now == null || !now.valid() || !now.seal().equals(e.getValue().seal()))) {
                    ended++;
                }
            }
        }
        System.out.println("BucketIT seals ended by the changes: " + ended);
        assertThat(ended).as("seals the old tids and deletes ended").isPositive();
        reads.readAndJudge("after changes", new Random(seed + 3));
        // the sealer seals them again, a margin after the last change
        reads.awaitSealed(Duration.ofSeconds(90));
        Map<String, Integer> valid = reads.validBuckets();
        System.out.println("BucketIT sealed again by the sealer: " + valid);
        assertThat(reads.allSealed()).as("every bucket with a row has a valid seal again: %s", reads.states()).isTrue();
        long before = server.reader().bucketReads.sum();
        long mergedBefore = server.reader().mergedReads.sum();
        reads.readAndJudge("sealed again", new Random(seed + 4));
        assertThat(server.reader().bucketReads.sum() - before).as("reads through buckets after the sealer").isGreaterThan(20);
        assertThat(server.reader().mergedReads.sum() - mergedBefore).as("window reads that merged buckets after the sealer").isGreaterThan(10);
    }

    @Test
    @Order(4)
    void should_find_damaged_buckets_with_check_and_have_them_sealed_again() throws Exception {
        Jobs jobs = new Jobs(session, GsiConfig.defaults());
        CheckResult clean = jobs.check(KS, "revisions", null, false, null);
        System.out.println("BucketIT check before damage: " + clean.buckets());
        assertThat(clean.buckets()).as("a report per bucketed index").hasSize(4);
        clean.buckets().forEach(b -> {
            assertThat(b.compared()).as("%s: buckets compared", b.index()).isPositive();
            assertThat(b.differing()).as("%s: buckets differing before any damage (%s)", b.index(), b.examples()).isZero();
        });
        // damage written around the service: one entry of a sealed day bucket deleted, one of a month bucket
        // marked deleted at its own tid
        Random rnd = new Random(seed + 5);
        String lostIn = damage("idx_revisions_by_length_day", "by_length", rnd, false);
        String changedIn = damage("idx_revisions_by_length_key_month", "by_length_key", rnd, true);
        System.out.println("BucketIT damaged day bucket " + lostIn + " and month bucket " + changedIn);

        CheckResult found = jobs.check(KS, "revisions", null, false, null);
        System.out.println("BucketIT check after damage: " + found.buckets());
        assertThat(found.drift()).as("a differing bucket is drift").isTrue();
        assertThat(report(found, "by_length").differing()).as("day buckets differing: %s", report(found, "by_length").examples()).isEqualTo(1);
        assertThat(report(found, "by_length").examples()).anyMatch(e -> e.contains(lostIn));
        assertThat(report(found, "by_length_key").differing()).as("month buckets differing").isEqualTo(1);
        assertThat(report(found, "by_length_key").examples()).anyMatch(e -> e.contains(changedIn));
        assertThat(reads.states().get("by_length").get(lostIn).valid()).as("a check without fix leaves the seal").isTrue();

        CheckResult fixed = jobs.check(KS, "revisions", null, true, null);
        System.out.println("BucketIT check --fix: " + fixed.buckets());
        assertThat(report(fixed, "by_length").givenBack()).isEqualTo(1);
        assertThat(report(fixed, "by_length_key").givenBack()).isEqualTo(1);
        assertThat(reads.states().get("by_length").get(lostIn).valid()).as("the damaged day bucket's seal ended").isFalse();
        assertThat(reads.states().get("by_length_key").get(changedIn).valid()).as("the damaged month bucket's seal ended").isFalse();
        reads.readAndJudge("damaged buckets given back", new Random(seed + 6)); // they read the index table meanwhile

        Thread.sleep(BucketRule.MARGIN.toMillis());
        reads.awaitSealed(Duration.ofSeconds(90));
        assertThat(reads.allSealed()).as("the sealer sealed them again: %s", reads.states()).isTrue();
        CheckResult again = jobs.check(KS, "revisions", null, false, null);
        System.out.println("BucketIT check after the sealer: " + again.buckets());
        again.buckets().forEach(b -> assertThat(b.differing()).as("%s: differing after the sealer (%s)", b.index(), b.examples()).isZero());
        reads.readAndJudge("sealed again after damage", new Random(seed + 7));
    }

    private static CheckResult.BucketReport report(CheckResult result, String index) {
        return result.buckets().stream().filter(b -> b.index().equals(index)).findFirst().orElseThrow();
    }

    /**
     * Deletes one entry of {@code table} (or, with {@code change}, sets its {@code _deleted} to its
     * {@code _tid}) that counts for its bucket: written by the bucket's valid seal. Returns the
     * bucket's label.
     */
    private static String damage(String table, String index, Random rnd, boolean change) {
        Map<String, BucketsTable.State> valid = reads.states().get(index);
        List<String> key = session.getMetadata().getKeyspace(KS).orElseThrow().getTable(table).orElseThrow().getPrimaryKey().stream()
                .map(c -> c.getName().asCql(true)).toList();
        List<Row> rows = session.execute(SimpleStatement.newInstance("SELECT " + String.join(", ", key) + ", \"_seal\", \"_tid\" FROM " + KS + "." + table)
                .setConsistencyLevel(ConsistencyLevel.ALL)).all();
        List<Row> counted = rows.stream().filter(r -> {
            BucketsTable.State state = valid.get(r.getString("\"_bucket\""));
            return state != null && state.valid() && state.seal().equals(r.getUuid("\"_seal\""));
        }).toList();
        assertThat(counted).as("entries of valid seals in %s", table).isNotEmpty();
        Row victim = counted.get(rnd.nextInt(counted.size()));
        String where = key.stream().map(c -> c + " = ?").collect(java.util.stream.Collectors.joining(" AND "));
        // above the seal's writes, at TS(seal) (docs/design.md section 4.7)
        List<Object> values = new ArrayList<>(List.of(WriteTimestamps.of(victim.getUuid("\"_seal\"")) + 1));
        if (change) {
            values.add(victim.getUuid("\"_tid\""));
        }
        key.forEach(c -> values.add(victim.getObject(c)));
        String cql = change ? "UPDATE " + KS + "." + table + " USING TIMESTAMP ? SET \"_deleted\" = ? WHERE " + where
                : "DELETE FROM " + KS + "." + table + " USING TIMESTAMP ? WHERE " + where;
        session.execute(SimpleStatement.newInstance(cql, values.toArray()).setConsistencyLevel(ConsistencyLevel.ALL));
        return victim.getString("\"_bucket\"");
    }

    private static long newestTidTicks() {
        long newest = Long.MIN_VALUE;
        for (var m : run.oracle.rows().values()) {
            for (UUID t : m.keySet()) {
                newest = Math.max(newest, WriteTimestamps.of(t));
            }
        }
        return newest;
    }

}
