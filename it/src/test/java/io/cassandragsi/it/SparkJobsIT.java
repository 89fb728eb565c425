package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.metadata.schema.ColumnMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.TableMetadata;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.schema.TableDef;
import io.cassandragsi.spark.SparkJobs;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The jobs on Spark (docs/design.md section 9.5), in Spark local mode against the suite's real
 * node: on randomized histories of both kinds of table, the Spark rebuild writes exactly the index
 * cells (values and write times) that {@code ./gsi rebuild} writes, and the Spark check finds
 * exactly the drift {@code ./gsi check} finds, kind by kind, then fixes it. No repair service runs.
 * The seed is printed; replay with -Dgsi.seed=N.
 */
class SparkJobsIT {
    private static final int SPLITS = 16;
    private static SparkSession spark;

    @BeforeAll
    static void startSpark() {
        InetSocketAddress cp = SharedCluster.contactPoint();
        spark = SparkSession.builder()
                .master("local[2]")
                .appName("SparkJobsIT")
                .config("spark.ui.enabled", "false")
                .config("spark.cassandra.connection.host", cp.getHostString())
                .config("spark.cassandra.connection.port", String.valueOf(cp.getPort()))
                .config("spark.cassandra.connection.localDC", SharedCluster.cluster().localDatacenter())
                .getOrCreate();
    }

    @AfterAll
    static void stopSpark() {
        if (spark != null) {
            spark.stop();
        }
    }

    private static Jobs jobs() {
        return new Jobs(SharedCluster.session(), GsiConfig.defaults());
    }

    private static SparkJobs.Spec spec(TableDef def) {
        return SparkJobs.Spec.of(def.keyspace(), def.table(), null).withSplits(SPLITS);
    }

    private static HistoryRun versioned(String ks, long seed) throws Exception {
        TableDef def = SharedCluster.example("revisions", ks);
        SharedCluster.apply(def);
        HistoryRun run = new HistoryRun(SharedCluster.session(), def, seed);
        run.write(60, 1500, 4);
        System.out.printf("SparkJobsIT %s: seed %d, 1500 versions over 60 keys%n", ks, seed);
        return run;
    }

    private static UsersRun unversioned(String ks, long seed) throws Exception {
        TableDef def = SharedCluster.example("users", ks);
        SharedCluster.apply(def);
        UsersRun run = new UsersRun(SharedCluster.session(), def, seed);
        run.write(40, 800, 4);
        Thread.sleep(4_000); // the history's emails written with a TTL of 3 s have expired, in the base and the index
        System.out.printf("SparkJobsIT %s: seed %d, 800 writes over 40 rows%n", ks, seed);
        return run;
    }

    private static List<String> indexTables(TableDef def) {
        return def.indexes().values().stream().map(i -> i.tableName()).toList();
    }

    /** Every cell of the index tables: each row's values and the write time of each regular column, in key order. */
    private static Map<String, List<String>> cells(TableDef def) {
        CqlSession s = SharedCluster.session();
        Map<String, List<String>> out = new TreeMap<>();
        for (String table : indexTables(def)) {
            TableMetadata md = s.getMetadata().getKeyspace(def.keyspace()).orElseThrow().getTable(table).orElseThrow();
            List<String> select = new ArrayList<>();
            for (ColumnMetadata c : md.getColumns().values()) {
                String name = c.getName().asCql(true);
                select.add(name);
                if (!md.getPrimaryKey().contains(c)) {
                    select.add("writetime(" + name + ")");
                }
            }
            List<String> rows = new ArrayList<>();
            for (Row r : s.execute("SELECT " + String.join(", ", select) + " FROM " + def.keyspace() + "." + table)) {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < select.size(); i++) {
                    sb.append(select.get(i)).append('=').append(r.getObject(i)).append(' ');
                }
                rows.add(sb.toString());
            }
            rows.sort(null);
            out.put(table, rows);
        }
        return out;
    }

    private static void truncate(TableDef def) {
        IndexSurgery surgery = new IndexSurgery(SharedCluster.session(), def);
        indexTables(def).forEach(surgery::truncate);
    }

    /** Empties the index tables, rebuilds them with ./gsi rebuild's job, then with the Spark job, and compares every cell. */
    private static void assertSameRebuild(TableDef def) {
        truncate(def);
        RebuildResult service = jobs().rebuild(def.keyspace(), def.table(), null, RebuildOptions.defaults().withSplits(SPLITS), null);
        assertThat(service.state()).isEqualTo(JobState.DONE);
        Map<String, List<String>> byService = cells(def);
        truncate(def);
        long t0 = System.nanoTime();
        RebuildResult onSpark = SparkJobs.rebuild(spark, spec(def));
        System.out.printf("%s%n  (Spark local[2], %.1f s; ./gsi rebuild: %s)%n", onSpark.summary(), (System.nanoTime() - t0) / 1e9,
                service.summary());
        assertThat(onSpark.rows()).as("base versions read").isEqualTo(service.rows());
        assertThat(onSpark.writes()).as("writes").isEqualTo(service.writes());
        Map<String, List<String>> bySpark = cells(def);
        byService.forEach((table, rows) -> {
            assertThat(rows).as("%s rebuilt by ./gsi rebuild", table).isNotEmpty();
            assertThat(bySpark.get(table)).as("%s: the Spark rebuild's cells", table).containsExactlyElementsOf(rows);
        });
    }

    /** Both checks on the same quiet tables: every count the same, index by index. */
    private static CheckResult assertSameCheck(TableDef def) {
        CheckResult service = jobs().check(def.keyspace(), def.table(), null, false, null);
        CheckResult onSpark = SparkJobs.check(spark, spec(def), false, 5);
        System.out.println("./gsi check: " + service.summary() + "\nSpark check: " + onSpark.summary());
        assertThat(onSpark.rows()).isEqualTo(service.rows());
        assertThat(onSpark.entries()).isEqualTo(service.entries());
        assertThat(onSpark.drift()).isEqualTo(service.drift());
        for (CheckResult.IndexReport s : service.indexes()) {
            CheckResult.IndexReport k = onSpark.index(s.index());
            assertThat(withoutExamples(k.toMap())).as("index %s", s.index()).isEqualTo(withoutExamples(s.toMap()));
        }
        return onSpark;
    }

    private static Map<String, Object> withoutExamples(Map<String, Object> m) {
        m.put("examples", null);
        return m;
    }

    /** A Spark check with fix repairs every finding; ./gsi check then finds none. */
    private static void assertSparkFixes(TableDef def) {
        CheckResult fixed = SparkJobs.check(spark, spec(def), true, 5);
        System.out.println("Spark check --fix: " + fixed.summary());
        for (CheckResult.IndexReport r : fixed.indexes()) {
            assertThat(r.fixed()).as("%s fixed", r.index()).isEqualTo(r.driftCount());
            assertThat(r.unfixable()).as("%s unfixable", r.index()).isZero();
        }
        CheckResult after = jobs().check(def.keyspace(), def.table(), null, false, null);
        System.out.println("./gsi check after the Spark fix: " + after.summary());
        assertThat(after.drift()).isFalse();
    }

    @Test
    void should_write_the_entries_of_gsi_rebuild_and_find_and_fix_the_drift_of_gsi_check_on_a_versioned_table() throws Exception {
        long seed = RepairServiceIT.seed();
        HistoryRun run = versioned("it_spark_versioned", seed);
        assertSameRebuild(run.def);
        for (IndexPlan p : run.plan.indexes()) {
            assertThat(run.compare(p).clean()).as("seed %d: %s after the Spark rebuild", seed, p.index().name()).isTrue();
        }
        assertThat(assertSameCheck(run.def).drift()).isFalse();

        // drift of every kind, as RebuildCheckIT injects it, plus wrong _tids and projections
        Random rnd = new Random(seed);
        IndexSurgery surgery = new IndexSurgery(SharedCluster.session(), run.def);
        List<IndexSurgery.LengthRow> rows = surgery.byLength();
        List<IndexSurgery.TidRow> tidRows = surgery.byTid();
        IndexSurgery.take(rows, 4, rnd, r -> true); // dropped: missing
        List<IndexSurgery.LengthRow> notDeleted = IndexSurgery.take(rows, 3, rnd, r -> r.deleted() != null);
        List<IndexSurgery.LengthRow> wrongTid = IndexSurgery.take(rows, 3, rnd, r -> true);
        List<IndexSurgery.LengthRow> wrongValue = IndexSurgery.take(rows, 3, rnd, r -> r.value() != null);
        IndexSurgery.take(tidRows, 3, rnd, r -> true);
        List<IndexSurgery.LengthRow> restore = new ArrayList<>(rows);
        notDeleted.forEach(r -> restore.add(r.withDeleted(null, null)));
        for (IndexSurgery.LengthRow r : wrongTid) {
            long tick = WriteTimestamps.of(r.tid()) - 1;
            restore.add(new IndexSurgery.LengthRow(r.length(), r.key(), r.value(), Tids.fromTicks(tick, rnd.nextLong()), r.deleted(), r.valueTs(),
                    r.tidTs(), r.deletedTs()));
        }
        for (IndexSurgery.LengthRow r : wrongValue) {
            restore.add(new IndexSurgery.LengthRow(r.length(), r.key(), "!tampered", r.tid(), r.deleted(), r.valueTs(), r.tidTs(), r.deletedTs()));
        }
        surgery.truncate("idx_revisions_by_length_ever");
        surgery.truncate("idx_revisions_by_tid_ever");
        surgery.restoreByLength(restore);
        surgery.restoreByTid(tidRows);
        surgery.ghostsByLength(3, rnd);
        surgery.ghostsByTid(2, rnd);
        surgery.writeWithoutTrigger(run, 5, 3, 2, rnd);

        CheckResult found = assertSameCheck(run.def);
        CheckResult.IndexReport byLength = found.index("by_length");
        assertThat(byLength.missing()).isPositive();
        assertThat(byLength.orphans()).isEqualTo(3);
        assertThat(byLength.wrongTid()).isPositive();
        assertThat(byLength.wrongDeleted()).isPositive();
        assertThat(byLength.wrongProjection()).isPositive();
        assertThat(found.index("by_tid").missing()).isPositive();
        assertThat(found.index("by_tid").orphans()).isEqualTo(2);
        assertSparkFixes(run.def);
        for (IndexPlan p : run.plan.indexes()) {
            assertThat(run.compare(p).clean()).as("seed %d: %s after the Spark fix", seed, p.index().name()).isTrue();
        }
    }

    @Test
    void should_write_the_entries_of_gsi_rebuild_and_find_and_fix_the_drift_of_gsi_check_on_an_unversioned_table() throws Exception {
        long seed = RepairServiceIT.seed() + 1;
        UsersRun run = unversioned("it_spark_unversioned", seed);
        assertSameRebuild(run.def);
        assertThat(run.drift()).as("seed %d: the index after the Spark rebuild", seed).isEmpty();
        assertThat(assertSameCheck(run.def).drift()).isFalse();

        // drift of every kind in by_email, written back after a truncate at the cells' own write times: a lost entry, an
        // orphan, a wrong projection, a wrong _tid, a _deleted it must not have
        CqlSession s = SharedCluster.session();
        String t = run.def.keyspace() + ".idx_users_by_email_ever";
        List<Row> entries = new ArrayList<>(s.execute("SELECT email, id, name, \"_tid\", writetime(name), writetime(\"_tid\") FROM " + t).all());
        assertThat(entries).hasSizeGreaterThanOrEqualTo(4);
        java.util.Collections.shuffle(entries, new Random(seed));
        new IndexSurgery(s, run.def).truncate("idx_users_by_email_ever");
        PreparedStatement tid = s.prepare("UPDATE " + t + " USING TIMESTAMP ? SET \"_tid\" = ? WHERE email = ? AND id = ?");
        PreparedStatement name = s.prepare("UPDATE " + t + " USING TIMESTAMP ? SET name = ? WHERE email = ? AND id = ?");
        PreparedStatement deleted = s.prepare("UPDATE " + t + " USING TIMESTAMP ? SET \"_deleted\" = ? WHERE email = ? AND id = ?");
        for (int i = 1; i < entries.size(); i++) { // entries[0] is lost
            Row r = entries.get(i);
            java.util.UUID entryTid = i == 2 ? Tids.fromTicks(WriteTimestamps.of(r.getUuid(3)) - 1, seed) : r.getUuid(3); // wrong _tid
            s.execute(tid.bind(r.getLong(5), entryTid, r.getString(0), r.getString(1)));
            if (!r.isNull(2)) {
                // "!" sorts below any name the history writes: at the same write time the fix's value wins
                s.execute(name.bind(r.getLong(4), i == 1 ? "!tampered" : r.getString(2), r.getString(0), r.getString(1)));
            }
            if (i == 3) {
                s.execute(deleted.bind(r.getLong(5), Tids.fromTicks(WriteTimestamps.of(r.getUuid(3)) + 1, seed), r.getString(0), r.getString(1)));
            }
        }
        s.execute(s.prepare("INSERT INTO " + t + " (email, id, name, \"_tid\") VALUES ('ghost@example.org', 'nobody', 'ghost', ?) USING TIMESTAMP ?")
                .bind(Tids.fromTicks(IndexSurgery.nowTs(), seed), IndexSurgery.nowTs()));

        CheckResult found = assertSameCheck(run.def);
        CheckResult.IndexReport byEmail = found.index("by_email");
        assertThat(byEmail.driftCount()).as("seed %d: the five defects", seed).isGreaterThanOrEqualTo(4);
        assertThat(byEmail.orphans()).isEqualTo(1);
        assertThat(byEmail.missing()).isPositive();
        assertThat(byEmail.wrongTid()).isPositive();
        assertSparkFixes(run.def);
        assertThat(run.drift()).as("seed %d: the index after the Spark fix", seed).isEmpty();
    }

    @Test
    void should_seal_the_buckets_of_a_bucketed_index_when_the_spark_rebuild_ends() throws Exception {
        long seed = RepairServiceIT.seed() + 2;
        String ks = "it_spark_buckets";
        TableDef def = io.cassandragsi.schema.Definitions.parse(BucketReads.DEFINITION.formatted(ks), "SparkJobsIT");
        SharedCluster.apply(def);
        // tids spread over about 60 days from 120 days ago, as BucketIT writes them
        HistoryRun run = new HistoryRun(SharedCluster.session(), def, seed)
                .warped(java.time.Instant.now().minus(java.time.Duration.ofDays(120)), BucketReads.STRETCH).withoutConditionalWrites();
        run.write(20, 300, 3);
        System.out.printf("SparkJobsIT %s: seed %d, 300 versions over 20 keys, tids over about 60 days%n", ks, seed);
        truncate(def);
        RebuildResult r = SparkJobs.rebuild(spark, spec(def));
        System.out.println(r.summary());
        for (IndexPlan p : run.plan.indexes()) {
            assertThat(run.compare(p).clean()).as("seed %d: %s after the Spark rebuild", seed, p.index().name()).isTrue();
        }
        CheckResult service = jobs().check(ks, def.table(), null, false, null);
        System.out.println("./gsi check after the Spark rebuild: " + service.summary());
        assertThat(service.drift()).isFalse();
        assertThat(service.buckets()).as("a report per bucketed index").hasSize(def.indexes().size());
        service.buckets().forEach(b -> assertThat(b.compared()).as("%s: buckets sealed by the Spark rebuild and compared", b.index()).isPositive());
        CheckResult onSpark = SparkJobs.check(spark, spec(def), false, 5);
        assertThat(onSpark.buckets()).as("a Spark check compares no bucket table").isEmpty();
        for (CheckResult.IndexReport i : service.indexes()) {
            assertThat(withoutExamples(onSpark.index(i.index()).toMap())).as("index %s", i.index()).isEqualTo(withoutExamples(i.toMap()));
        }
    }
}
