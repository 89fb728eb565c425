package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.ConsistencyConfig;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The range work of {@code rebuild} and {@code check} for an engine that walks the ring itself and
 * merges the results (the jobs on Spark, docs/design.md section 9.5): one token range at a time,
 * through the very {@link Rebuild} and {@link Check} that {@code ./gsi rebuild} and {@code ./gsi
 * check} run, over the {@link Catalog} of the session given. Nothing about entries is decided here.
 */
public final class RangeJobs {
    private final Jobs jobs;
    private final Catalog.Indexed table;
    private final List<IndexPlan> targets;
    private final ConsistencyConfig consistency;
    private final IndexWriter writer;
    private Pacer pacer;

    private RangeJobs(Jobs jobs, IndexWriter writer, Jobs.Target target, ConsistencyConfig consistency) {
        this.jobs = jobs;
        this.writer = writer;
        this.table = target.table();
        this.targets = target.indexes();
        this.consistency = consistency;
    }

    /**
     * The jobs of {@code index} (null or {@code *}: every index) of {@code keyspace.table}, resolved
     * in the live schema of {@code session}; an unknown table or index fails here, naming it.
     */
    public static RangeJobs open(CqlSession session, String projectKeyspace, ConsistencyConfig consistency, String keyspace, String table,
            String index) {
        Catalog catalog = new Catalog(session, projectKeyspace);
        IndexWriter writer = new IndexWriter(session::executeAsync, IndexWriter.MAX_IN_FLIGHT);
        Jobs jobs = new Jobs(session, catalog, writer, projectKeyspace, consistency);
        jobs.requireMurmur3();
        return new RangeJobs(jobs, writer, jobs.target(keyspace, table, index), consistency);
    }

    /**
     * From now on at most {@code perSecond} base versions and index entries are read per second by
     * this instance's ranges (0: no limit), as anti-entropy paces itself (docs/design.md section 9.3).
     */
    public RangeJobs paced(double perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("a pace must be positive (0: none), not " + perSecond);
        }
        this.pacer = perSecond == 0 ? null : new Pacer(perSecond);
        return this;
    }

    private Progress progress() {
        Progress p = new Progress();
        if (pacer != null) {
            p.pace(pacer);
        }
        return p;
    }

    /** The names of the target indexes. */
    public List<String> indexes() {
        return targets.stream().map(p -> p.index().name()).toList();
    }

    /** What one range of a rebuild did. */
    public record Rebuilt(long rows, long writes) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /** Rebuilds the targets' entries of the rows in {@code range} (docs/design.md section 9.1), tried again as a job's range is (section 9). */
    public Rebuilt rebuild(TokenRange range, RebuildOptions options) throws InterruptedException {
        long[][] counts = new long[1][];
        RangeRunner.runRetrying((r, stop) -> {
            Rebuild<?> rebuild = Rebuild.of(table.rule, table.scans(consistency.read(), options.pageSize()),
                    new DriverWrites(table, writer.capped(options.maxInFlight()), consistency.write()), targets, new MemoryJobLedger(),
                    options);
            counts[0] = rebuild.runRange("range", r, progress(), stop);
            return counts[0] != null;
        }, range, () -> false);
        return new Rebuilt(counts[0][0], counts[0][1]);
    }

    /**
     * Seals every ended bucket of the targets that declare one, from the base (the last phase of a
     * rebuild, docs/design.md section 9.4), in this process.
     */
    public void sealBuckets(RebuildOptions options) {
        for (IndexPlan p : targets) {
            if (p.index().bucket() != null) {
                jobs.sealAll(table, p, options, new Progress(), () -> false);
            }
        }
    }

    /** What one range of a check found: per target index its counts and examples, and the base versions and index entries read. */
    public record Checked(List<CheckResult.IndexReport> indexes, long rows, long entries) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    /**
     * Both passes of a check (docs/design.md section 9.2) over {@code range}: base to index, then
     * each index to base, with the fix when {@code options} asks. A range that failed because
     * Cassandra did not answer is tried again with fresh counts, so it counts once.
     */
    public Checked check(TokenRange range, CheckOptions options) throws InterruptedException {
        return check(range, options, Passes.BOTH);
    }

    /** Which passes of a check a range gets (docs/design.md section 9.2). */
    public enum Passes {
        BOTH,
        /** Base to index: the rows whose token is in the range. */
        BASE_TO_INDEX,
        /** Index to base: the entries whose index partition's token is in the range. */
        INDEX_TO_BASE
    }

    /** As {@link #check(TokenRange, CheckOptions)}, with only {@code passes}. */
    public Checked check(TokenRange range, CheckOptions options, Passes passes) throws InterruptedException {
        Object[] last = new Object[2];
        RangeRunner.runRetrying((r, stop) -> {
            Check<?> check = Check.of(table.rule, table.scans(consistency.read(), options.pageSize()),
                    new DriverWrites(table, writer.capped(options.maxInFlight()), consistency.write()), targets, options,
                    () -> Tids.ticks(Instant.now()));
            Progress progress = progress();
            last[0] = check;
            last[1] = progress;
            return passes == Passes.BOTH ? check.runRange(r, progress, stop) : check.runPass(passes == Passes.BASE_TO_INDEX, r, progress, stop);
        }, range, () -> false);
        Check<?> check = (Check<?>) last[0];
        ProgressSnapshot s = ((Progress) last[1]).snapshot();
        List<CheckResult.IndexReport> reports = new ArrayList<>();
        for (IndexPlan p : targets) {
            reports.add(check.tallies.get(p).report());
        }
        return new Checked(reports, s.rows(), s.entries());
    }

    /** The check result of the ranges' results, as {@code ./gsi check} reports it, keeping {@code examples} examples per index. */
    public static CheckResult merge(String jobId, String keyspace, String table, boolean fix, List<String> indexes, List<Checked> ranges,
            int examples, Duration elapsed) {
        Map<String, List<CheckResult.IndexReport>> byIndex = new LinkedHashMap<>();
        indexes.forEach(i -> byIndex.put(i, new ArrayList<>()));
        long rows = 0;
        long entries = 0;
        for (Checked c : ranges) {
            rows += c.rows();
            entries += c.entries();
            for (CheckResult.IndexReport r : c.indexes()) {
                byIndex.computeIfAbsent(r.index(), k -> new ArrayList<>()).add(r);
            }
        }
        List<CheckResult.IndexReport> reports = new ArrayList<>();
        byIndex.forEach((name, parts) -> reports.add(CheckResult.IndexReport.sum(name, parts, examples)));
        return new CheckResult(jobId, keyspace, table, JobState.DONE, fix, reports, rows, entries, elapsed, null, List.of());
    }
}
