package io.cassandragsi.repair.jobs;

import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Continuous anti-entropy (docs/design.md section 9.3): an endless, slow {@code check --fix} of
 * every index, one token range at a time, at a pace of rows and entries per second. Each pass over
 * a table is a job in the jobs table with its finished ranges, so a restarted service, or the
 * instance that takes over, resumes it where it stopped. One instance runs it at a time (the one
 * {@code mayRun} says: the holder of queue shard 0's lease). What was written since the table's
 * safe time, or less than {@code anti_entropy.settle} ago, is left to the maintainers ({@link
 * Check#leavingRecent}): a batch replayed from the batchlog lands below the safe time with its marker. A whole pass also compares
 * the table's bucket tables with the base ({@link BucketCheck}) once the safe time has passed its end.
 */
public final class AntiEntropy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AntiEntropy.class);
    public static final String KIND = "anti-entropy";

    /** What anti-entropy needs from the process: the tables, how to check one, where passes are recorded. */
    public interface Host {
        /** The indexed tables now. */
        List<TableDef> tables();

        JobLedger ledger();

        /** A check of every index of a table, reading and writing at the service's levels; null when the table is no longer indexed. */
        Check<?> check(TableDef table, CheckOptions options);

        /** Whether this instance may run anti-entropy now (it holds shard 0's lease). */
        boolean mayRun();

        /** The moment (ms) before which a table's writes are fully processed, or {@code Long.MIN_VALUE} when not known. */
        long safeTimeMillis(TableDef table);
    }

    /** Per table: the pass running, its ranges, and what anti-entropy found and fixed since this process started. */
    public static final class TableState {
        volatile String pass;
        volatile int rangesDone;
        volatile int rangesTotal;
        volatile Instant passStarted;
        volatile Instant lastFullPass;
        volatile Duration lastPassDuration;
        final LongAdder rows = new LongAdder();
        final LongAdder entries = new LongAdder();
        /** Found missing, stale, orphans; fixed, unfixable; left to the maintainers. */
        final Map<String, LongAdder> findings = new ConcurrentHashMap<>();

        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("pass", pass);
            m.put("ranges_done", rangesDone);
            m.put("ranges_total", rangesTotal);
            m.put("pass_started", passStarted == null ? null : passStarted.toString());
            m.put("rows_checked", rows.sum());
            m.put("entries_checked", entries.sum());
            findings.forEach((k, v) -> m.put(k, v.sum()));
            m.put("last_full_pass", lastFullPass == null ? null : lastFullPass.toString());
            m.put("last_pass_seconds", lastPassDuration == null ? null : lastPassDuration.toMillis() / 1000.0);
            return m;
        }
    }

    private final Host host;
    private final double rowsPerSecond;
    private final int splits;
    private final Duration startAfter;
    private final Duration passInterval;
    /** Rows written less than this long ago are left to the maintainers ({@code anti_entropy.settle}). */
    private final long settleMillis;
    private final Pacer pacer;
    private final Map<String, TableState> tables = new ConcurrentHashMap<>();
    /** What anti-entropy found and fixed since this process started, by kind ({@link #fixes}): {@code /metrics}. */
    public final Map<String, LongAdder> findingsTotal = new ConcurrentHashMap<>();
    /** The buckets its passes compared, skipped, found differing and gave back to the sealer since this process started ({@link #BUCKET_KINDS}): {@code /metrics}. */
    public final Map<String, LongAdder> bucketsTotal = new ConcurrentHashMap<>();
    /** The kinds of {@link #bucketsTotal}. */
    public static final List<String> BUCKET_KINDS = List.of("compared", "skipped", "differing", "given_back");
    public final LongAdder rowsTotal = new LongAdder();
    /** How long anti-entropy waits after a pass failed before it tries again. */
    static final Duration PAUSE_AFTER_FAILURE = Duration.ofSeconds(10);
    /** Passes that failed (and were resumed later): {@code /admin/status}. */
    private final LongAdder failures = new LongAdder();
    private volatile boolean running = true;
    private volatile String state = "starting";
    private final Thread thread;

    public AntiEntropy(Host host, io.cassandragsi.repair.config.AntiEntropyConfig config) {
        this.host = host;
        this.rowsPerSecond = config.rowsPerSecond();
        this.splits = config.splits();
        this.startAfter = config.startAfter();
        this.passInterval = config.passInterval();
        this.settleMillis = config.settle().toMillis();
        this.pacer = new Pacer(rowsPerSecond);
        this.thread = new Thread(this::loop, "gsi-anti-entropy");
        this.thread.setDaemon(true);
    }

    public AntiEntropy start() {
        thread.start();
        return this;
    }

    /** For {@code /admin/status}: what runs, and per table its pass and findings. */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", state);
        m.put("rows_per_second", rowsPerSecond);
        m.put("failures", failures.sum());
        Map<String, Object> t = new TreeMap<>();
        tables.forEach((name, s) -> t.put(name, s.toMap()));
        m.put("tables", t);
        return m;
    }

    private void loop() {
        try {
            state = "waiting " + startAfter.toSeconds() + " s after the start";
            Thread.sleep(startAfter.toMillis());
            while (running) {
                try {
                    if (!round()) {
                        Thread.sleep(1_000);
                    }
                } catch (RuntimeException e) { // Cassandra down for longer than a range's retries, a table dropped meanwhile, ...
                    LOG.warn("anti-entropy: {}; trying again in {} s (the pass resumes at its first unfinished range)", JobFailure.message(e),
                            PAUSE_AFTER_FAILURE.toSeconds());
                    state = "paused after a failure: " + JobFailure.message(e);
                    failures.increment();
                    Thread.sleep(PAUSE_AFTER_FAILURE.toMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One round: a pass over every table whose pass is due (in name order); false when none was, or this instance may not run. */
    boolean round() throws InterruptedException {
        if (!host.mayRun()) {
            state = "idle: another instance runs it (the holder of queue shard 0)";
            return false;
        }
        List<TableDef> all = new ArrayList<>(host.tables());
        all.sort(java.util.Comparator.comparing(TableDef::qualifiedName));
        boolean any = false;
        for (TableDef t : all) {
            if (!running || !host.mayRun()) {
                break;
            }
            TableState s = tables.get(t.qualifiedName());
            if (s == null || s.passStarted == null || !Instant.now().isBefore(s.passStarted.plus(passInterval))) {
                any = true;
                pass(t);
            }
        }
        if (!any) {
            state = all.isEmpty() ? "idle: no indexed table" : "idle: every table's last pass started less than " + passInterval.toSeconds() + " s ago";
        }
        return any;
    }

    /** Per table, as {@link #status} shows it (tests). */
    TableState table(String qualifiedName) {
        return tables.get(qualifiedName);
    }

    /** One pass over a table (or the rest of an unfinished one), range by range, each recorded as it ends. */
    private void pass(TableDef def) throws InterruptedException {
        String name = def.qualifiedName();
        TableState s = tables.computeIfAbsent(name, k -> new TableState());
        while (host.safeTimeMillis(def) == Long.MIN_VALUE) {
            state = "waiting for the safe time of " + name;
            Thread.sleep(1_000);
            if (!running) {
                return;
            }
        }
        JobLedger ledger = host.ledger();
        JobLedger.Header job = ledger.latestUnfinished(KIND, def.keyspace(), def.table(), JobLedger.ALL_INDEXES).orElse(null);
        if (job == null) {
            Instant now = Instant.now();
            job = new JobLedger.Header(Jobs.newId(KIND), KIND, def.keyspace(), def.table(), JobLedger.ALL_INDEXES, splits, JobState.RUNNING, null,
                    now, now);
            ledger.create(job);
        }
        Set<TokenRange> done = new HashSet<>();
        ledger.finished(job.id()).forEach(r -> done.add(r.range()));
        List<TokenRange> ranges = TokenRanges.split(job.splits());
        s.pass = job.id();
        s.rangesTotal = ranges.size();
        s.rangesDone = done.size();
        s.passStarted = job.started();
        Check<?> found = host.check(def, CheckOptions.defaults().withFix(true).withParallelism(1));
        if (found == null) {
            return; // its indexes went away since the round began
        }
        // a write whose client never saw it acknowledged lands, with its marker, whenever a batchlog replays it: below
        // the safe time, within the markers' reach (docs/design.md section 9.3)
        Check<?> check = found.leavingRecent(() -> Math.min(host.safeTimeMillis(def), System.currentTimeMillis() - settleMillis));
        if (check.buckets != null && done.isEmpty()) {
            check.buckets.begin(); // a whole pass also compares the bucket tables; a resumed one lacks the digests of its ranges done before
        }
        int scans = 1 + check.targets.size() + (check.buckets != null && check.buckets.begun() ? check.buckets.indexes().size() : 0);
        Progress progress = new Progress();
        progress.pace(pacer);
        state = "checking " + name;
        for (TokenRange range : ranges) {
            if (done.contains(range)) {
                continue;
            }
            if (!running || !host.mayRun()) {
                return;
            }
            pacer.take(scans); // each scan of a range costs the nodes something, empty or not
            long rowsBefore = progress.snapshot().rows();
            long entriesBefore = progress.snapshot().entries();
            Map<String, Long> before = fixes(check);
            if (!RangeRunner.runRetrying((r, stop) -> check.runRange(r, progress, stop), range, () -> !running)) {
                return;
            }
            long rows = progress.snapshot().rows() - rowsBefore;
            s.rows.add(rows);
            rowsTotal.add(rows);
            s.entries.add(progress.snapshot().entries() - entriesBefore);
            fixes(check).forEach((kind, n) -> {
                long added = n - before.getOrDefault(kind, 0L);
                if (added > 0) {
                    s.findings.computeIfAbsent(kind, k -> new LongAdder()).add(added);
                    findingsTotal.computeIfAbsent(kind, k -> new LongAdder()).add(added);
                }
            });
            ledger.finished(job.id(), new JobLedger.RangeDone(range, rows, 0, Instant.now()));
            s.rangesDone++;
        }
        ledger.state(job.id(), JobState.DONE, null);
        Instant end = Instant.now();
        s.lastFullPass = end;
        s.lastPassDuration = Duration.between(job.started(), end);
        LOG.info("anti-entropy: pass {} over {} done in {} s: {}", job.id(), name, s.lastPassDuration.toSeconds(), fixes(check));
        if (check.buckets != null) {
            finishBuckets(def, s, check.buckets, end.toEpochMilli());
        }
    }

    /** How long the comparison of bucket tables at the end of a pass waits for the safe time to pass the pass's end (tests shorten it). */
    Duration bucketsSettle = Duration.ofMinutes(2);

    /**
     * The end of a whole pass's bucket check (docs/design.md section 9.3): once the safe time has
     * passed the pass's end, every base write the pass read has been repaired, and a write into an
     * ended bucket has recorded its change, so the bucket it reached is skipped rather than found
     * differing. A pass that resumed, or whose safe time does not come within {@link
     * #bucketsSettle}, compares nothing.
     */
    private void finishBuckets(TableDef def, TableState s, BucketCheck buckets, long readUntilMillis) throws InterruptedException {
        if (!buckets.begun()) {
            LOG.info("anti-entropy: the pass over {} resumed, so its bucket tables are compared in its next whole pass", def.qualifiedName());
            return;
        }
        long deadline = System.nanoTime() + bucketsSettle.toNanos();
        while (host.safeTimeMillis(def) < readUntilMillis) {
            if (!running || !host.mayRun() || System.nanoTime() > deadline) {
                LOG.info("anti-entropy: the safe time of {} did not pass the end of its pass; its bucket tables are compared in its next pass",
                        def.qualifiedName());
                return;
            }
            state = "waiting for the safe time of " + def.qualifiedName() + " to compare its bucket tables";
            Thread.sleep(1_000);
        }
        for (CheckResult.BucketReport r : buckets.finish(true)) {
            add(s, "compared", r.compared());
            add(s, "skipped", r.skipped());
            add(s, "differing", r.differing());
            add(s, "given_back", r.givenBack());
        }
    }

    /** Counts {@code n} buckets of {@code kind} (one of {@link #BUCKET_KINDS}) for the table's status and for {@code /metrics}. */
    private void add(TableState s, String kind, long n) {
        s.findings.computeIfAbsent("buckets_" + kind, k -> new LongAdder()).add(n);
        bucketsTotal.computeIfAbsent(kind, k -> new LongAdder()).add(n);
    }

    /**
     * What a check found and did so far, summed over its indexes: entries found missing, stale and
     * orphaned, fixed, unfixable, and differences left to the maintainers (written since the safe time).
     */
    private static Map<String, Long> fixes(Check<?> check) {
        Map<String, Long> m = new LinkedHashMap<>();
        KINDS.forEach((kind, counter) -> m.put(kind, check.tallies.values().stream().mapToLong(t -> counter.apply(t).sum()).sum()));
        return m;
    }

    /** What anti-entropy counts, by the name status and {@code /metrics} give it, and the check's counter of it. */
    private static final Map<String, Function<Tally, LongAdder>> KINDS = counters();

    private static Map<String, Function<Tally, LongAdder>> counters() {
        Map<String, Function<Tally, LongAdder>> k = new LinkedHashMap<>();
        k.put("missing", t -> t.missing);
        k.put("stale", t -> t.stale);
        k.put("orphans", t -> t.orphans);
        k.put("fixed", t -> t.fixed);
        k.put("unfixable", t -> t.unfixable);
        k.put("left_to_maintainers", t -> t.leftToMaintainers);
        return java.util.Collections.unmodifiableMap(k);
    }

    /** The names of what anti-entropy counts (status, {@code /metrics}). */
    public static java.util.Set<String> kinds() {
        return KINDS.keySet();
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
