package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.cli.CheckCommand;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.JobHandle;
import io.cassandragsi.repair.jobs.JobLedger;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.schema.TableDef;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Rebuild and check against a real node and the oracle of a randomized history written by
 * concurrent writers (no repair service runs: what the trigger alone leaves is incomplete, and
 * the jobs must not care). The seed is printed; replay with -Dgsi.seed=N.
 */
class RebuildCheckIT {
    private static final String TABLE = "revisions";

    private static long seed() {
        return RepairServiceIT.seed();
    }

    private static Jobs jobs() {
        return new Jobs(SharedCluster.session(), GsiConfig.defaults());
    }

    private static HistoryRun history(String ks, long seed, int keys, int writes) throws Exception {
        TableDef def = SharedCluster.example(TABLE, ks);
        SharedCluster.apply(def);
        HistoryRun run = new HistoryRun(SharedCluster.session(), def, seed);
        long t0 = System.nanoTime();
        run.write(keys, writes, 4);
        SharedCluster.awaitMaintainersIdle(); // node mode: the jobs below expect a quiet table
        System.out.printf("%s: seed %d, %d versions over %d keys written in %.1f s%n", ks, seed, writes, keys, (System.nanoTime() - t0) / 1e9);
        return run;
    }

    private static Map<String, HistoryRun.Drift> compare(HistoryRun run) {
        Map<String, HistoryRun.Drift> out = new LinkedHashMap<>();
        for (IndexPlan p : run.plan.indexes()) {
            out.put(p.index().name(), run.compare(p));
        }
        return out;
    }

    private static void assertEqualsOracle(HistoryRun run, String when) {
        Map<String, HistoryRun.Drift> drift = compare(run);
        System.out.println(when + ": " + drift);
        drift.forEach((index, d) -> {
            assertThat(d.clean()).as("seed %d, %s, index %s: %s", run.seed, when, index, d).isTrue();
            assertThat(d.expected()).as("seed %d index %s: the history indexes something", run.seed, index).isPositive();
        });
    }

    private static int checkCommand(String ks, String index, String... more) {
        InetSocketAddress cp = SharedCluster.cluster().contactPoint(0);
        List<String> args = new ArrayList<>(List.of(ks + "." + TABLE, index, "--no-progress",
                "--contact-point", cp.getHostString() + ":" + cp.getPort()));
        args.addAll(List.of(more));
        StringWriter out = new StringWriter();
        CommandLine cl = new CommandLine(new CheckCommand());
        cl.setOut(new PrintWriter(out, true));
        int code = cl.execute(args.toArray(new String[0]));
        System.out.println("gsi check " + String.join(" ", args) + " -> exit " + code + "\n" + out);
        return code;
    }

    @Test
    void should_equal_the_oracle_when_index_tables_are_emptied_and_rebuilt() throws Exception {
        long seed = seed();
        String ks = "it_jobs_rebuild";
        HistoryRun run = history(ks, seed, 60, 2000);
        IndexSurgery surgery = new IndexSurgery(SharedCluster.session(), run.def);
        for (IndexPlan p : run.plan.indexes()) {
            surgery.truncate(p.tableName());
        }
        compare(run).forEach((index, d) -> assertThat(d.missing()).as("index %s emptied", index).isEqualTo(d.expected()));

        RebuildResult r = jobs().rebuild(ks, TABLE, null, RebuildOptions.defaults().withSplits(32), s -> {});
        System.out.println(r.summary());
        assertThat(r.state()).isEqualTo(JobState.DONE);
        assertThat(r.rangesDone()).isEqualTo(32);
        assertThat(r.rows()).as("every stored version read once").isEqualTo(run.oracle.rows().values().stream().mapToInt(Map::size).sum());
        assertEqualsOracle(run, "after rebuild");
        compare(run).forEach((index, d) -> assertThat(d.laterDeleted()).as("a rebuild from a quiet table is exact").isZero());
    }

    @Test
    void should_find_every_injected_defect_and_fix_it_when_check_runs_with_fix() throws Exception {
        long seed = seed() + 1;
        String ks = "it_jobs_check";
        CqlSession session = SharedCluster.session();
        HistoryRun run = history(ks, seed, 60, 2000);
        Jobs jobs = jobs();
        assertThat(jobs.rebuild(ks, TABLE, null, RebuildOptions.defaults(), null).state()).isEqualTo(JobState.DONE);
        assertEqualsOracle(run, "after rebuild");

        // (b) a converged index: no drift, nothing approximate
        CheckResult clean = jobs.check(ks, TABLE, null, false, null);
        System.out.println(clean.summary());
        assertThat(clean.state()).isEqualTo(JobState.DONE);
        assertThat(clean.drift()).isFalse();
        for (CheckResult.IndexReport r : clean.indexes()) {
            HistoryRun.Drift d = run.compare(run.plan.indexes().stream().filter(p -> p.index().name().equals(r.index())).findFirst().orElseThrow());
            assertThat(r.expected()).isEqualTo(d.expected());
            // a rebuild cannot lower a _deleted that a diff during the history wrote late (docs/limits.md): none in
            // service mode, where nothing diffed before the rebuild; in node mode the node's maintainer did
            assertThat(r.approximate()).as("%s approximate _deleted", r.index()).isEqualTo(d.laterDeleted());
            assertThat(r.transientFindings()).isZero();
        }
        assertThat(checkCommand(ks, "by_length")).isZero();

        // (c) defects
        Random rnd = new Random(seed);
        IndexSurgery surgery = new IndexSurgery(session, run.def);
        List<IndexSurgery.LengthRow> lengthRows = surgery.byLength();
        List<IndexSurgery.TidRow> tidRows = surgery.byTid();
        List<IndexSurgery.LengthRow> dropped = IndexSurgery.take(lengthRows, 5, rnd, r -> true);
        List<IndexSurgery.LengthRow> notDeleted = IndexSurgery.take(lengthRows, 5, rnd, r -> r.deleted() != null);
        List<IndexSurgery.LengthRow> badDeleted = IndexSurgery.take(lengthRows, 5, rnd,
                r -> r.deleted() != null && WriteTimestamps.of(r.deleted()) - WriteTimestamps.of(r.tid()) >= 2);
        List<IndexSurgery.TidRow> droppedTid = IndexSurgery.take(tidRows, 5, rnd, r -> true);
        assertThat(notDeleted).hasSize(5);
        assertThat(badDeleted).hasSize(5);
        surgery.truncate("idx_revisions_by_length_ever");
        surgery.truncate("idx_revisions_by_tid_ever");
        List<IndexSurgery.LengthRow> restore = new ArrayList<>(lengthRows);
        for (IndexSurgery.LengthRow r : notDeleted) {
            restore.add(r.withDeleted(null, null)); // the marking never arrived
        }
        for (IndexSurgery.LengthRow r : badDeleted) {
            // a wrong version, between _tid and the exact _deleted, written at its own TS
            long tick = (WriteTimestamps.of(r.tid()) + WriteTimestamps.of(r.deleted())) / 2;
            restore.add(r.withDeleted(io.cassandragsi.index.Tids.fromTicks(tick, rnd.nextLong()), tick));
        }
        surgery.restoreByLength(restore);
        surgery.restoreByTid(tidRows);
        surgery.ghostsByLength(5, rnd);
        surgery.ghostsByTid(3, rnd);
        int dark = surgery.writeWithoutTrigger(run, 15, 10, 3, rnd);
        System.out.printf("injected: by_length %d dropped, %d _deleted unset, %d _deleted wrong, 5 ghosts; by_tid %d dropped, 3 ghosts;"
                + " %d versions written without the trigger%n", dropped.size(), notDeleted.size(), badDeleted.size(), droppedTid.size(), dark);

        Map<String, HistoryRun.Drift> oracle = compare(run);
        System.out.println("oracle says: " + oracle);
        CheckResult found = jobs.check(ks, TABLE, null, false, null);
        System.out.println(found.summary());
        assertThat(found.drift()).isTrue();
        for (CheckResult.IndexReport r : found.indexes()) {
            HistoryRun.Drift d = oracle.get(r.index());
            assertThat(r.missing()).as("%s missing", r.index()).isEqualTo(d.missing());
            assertThat(r.orphans()).as("%s orphans", r.index()).isEqualTo(d.orphans());
            assertThat(r.wrongTid()).as("%s wrong _tid", r.index()).isEqualTo(d.wrongTid());
            assertThat(r.wrongDeleted()).as("%s wrong _deleted", r.index()).isEqualTo(d.wrongDeleted());
            assertThat(r.approximate()).as("%s approximate _deleted", r.index()).isEqualTo(d.laterDeleted());
            assertThat(r.transientFindings()).isZero();
            assertThat(r.stale()).isGreaterThanOrEqualTo(Math.max(r.wrongTid(), r.wrongDeleted()));
        }
        CheckResult.IndexReport byLength = found.index("by_length");
        CheckResult.IndexReport byTid = found.index("by_tid");
        assertThat(byLength.missing()).isGreaterThanOrEqualTo(dropped.size());
        assertThat(byLength.wrongDeleted()).isGreaterThanOrEqualTo(notDeleted.size() + badDeleted.size());
        assertThat(byLength.orphans()).isEqualTo(5);
        assertThat(byTid.missing()).isEqualTo(droppedTid.size() + dark);
        assertThat(byTid.orphans()).isEqualTo(3);
        assertThat(checkCommand(ks, "by_length")).isEqualTo(CheckCommand.DRIFT);

        CheckResult fixed = jobs.check(ks, TABLE, null, true, null);
        System.out.println(fixed.summary());
        for (CheckResult.IndexReport r : fixed.indexes()) {
            assertThat(r.fixed()).as("%s fixed", r.index()).isEqualTo(r.driftCount());
            assertThat(r.unfixable()).as("%s unfixable", r.index()).isZero();
        }
        CheckResult again = jobs.check(ks, TABLE, null, false, null);
        System.out.println(again.summary());
        assertThat(again.drift()).isFalse();
        assertEqualsOracle(run, "after check --fix");
        assertThat(checkCommand(ks, "by_tid")).isZero();
    }

    @Test
    void should_equal_the_oracle_when_a_cancelled_rebuild_is_resumed() throws Exception {
        long seed = seed() + 2;
        String ks = "it_jobs_resume";
        HistoryRun run = history(ks, seed, 200, 2000);
        new IndexSurgery(SharedCluster.session(), run.def).truncate("idx_revisions_by_length_ever");
        Jobs jobs = jobs();
        AtomicReference<JobHandle<RebuildResult>> handle = new AtomicReference<>();
        RebuildOptions options = RebuildOptions.defaults().withSplits(32).withParallelism(2);
        handle.set(jobs.startRebuild(ks, TABLE, "by_length", options, s -> {
            JobHandle<RebuildResult> h = handle.get();
            if (h != null && s.rangesDone() >= 10) {
                h.cancel();
            }
        }));
        RebuildResult first = handle.get().await();
        System.out.println(first.summary());
        assertThat(first.state()).isEqualTo(JobState.CANCELLED);
        assertThat(first.rangesDone()).isBetween(10, 31);
        JobLedger ledger = jobs.ledger();
        assertThat(ledger.finished(first.jobId())).hasSize(first.rangesDone());
        assertThat(ledger.find(first.jobId()).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        IndexPlan byLength = run.plan.indexes().stream().filter(p -> p.index().name().equals("by_length")).findFirst().orElseThrow();
        HistoryRun.Drift halfway = run.compare(byLength);
        System.out.println("after the cancelled run: " + halfway);
        assertThat(halfway.missing()).isPositive();

        RebuildResult resumed = jobs.rebuild(ks, TABLE, "by_length", RebuildOptions.defaults().withResume(true), null);
        System.out.println(resumed.summary());
        assertThat(resumed.jobId()).isEqualTo(first.jobId());
        assertThat(resumed.state()).isEqualTo(JobState.DONE);
        assertThat(resumed.rangesSkipped()).isEqualTo(first.rangesDone());
        assertThat(resumed.rangesDone()).isEqualTo(32);
        assertThat(first.rows() + resumed.rows()).as("no range read twice").isLessThanOrEqualTo(
                run.oracle.rows().values().stream().mapToInt(Map::size).sum() + 0L);
        HistoryRun.Drift d = run.compare(byLength);
        System.out.println("after resuming: " + d);
        assertThat(d.clean()).as("seed %d: %s", seed, d).isTrue();

        RebuildResult nothingLeft = jobs.rebuild(ks, TABLE, "by_length", RebuildOptions.defaults().withJobId(first.jobId()), null);
        assertThat(nothingLeft.rangesSkipped()).isEqualTo(32);
        assertThat(nothingLeft.rows()).isZero();
    }

    @Test
    void should_converge_to_the_oracle_when_a_rebuild_runs_while_writers_write() throws Exception {
        long seed = seed() + 3;
        String ks = "it_jobs_live";
        CqlSession session = SharedCluster.session();
        HistoryRun run = history(ks, seed, 80, 1000);
        new IndexSurgery(session, run.def).truncate("idx_revisions_by_length_ever");
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            CompletableFuture<Void> writers = CompletableFuture.runAsync(() -> {
                try {
                    run.write(80, 1500, 4);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            RebuildResult r = jobs().rebuild(ks, TABLE, "by_length", RebuildOptions.defaults().withSplits(64).withParallelism(2), null);
            boolean overlapped = !writers.isDone();
            writers.join();
            System.out.println(r.summary() + "\n  writers still running when the rebuild ended: " + overlapped);
            assertThat(r.state()).isEqualTo(JobState.DONE);
            Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 90_000);
            System.out.println("seed " + seed + " after the queue drained: " + drift + "; service " + service.status());
            drift.forEach((index, d) -> assertThat(d.clean()).as("seed %d index %s: %s", seed, index, d).isTrue());
        }
        CheckResult c = jobs().check(ks, TABLE, null, false, null);
        System.out.println(c.summary());
        assertThat(c.drift()).isFalse();
        Map<String, HistoryRun.Drift> oracle = compare(run);
        for (CheckResult.IndexReport r : c.indexes()) {
            assertThat(r.approximate()).as("%s approximate _deleted", r.index()).isEqualTo(oracle.get(r.index()).laterDeleted());
        }
    }
}
