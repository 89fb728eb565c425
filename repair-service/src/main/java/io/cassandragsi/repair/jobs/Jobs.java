package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.ConsistencyConfig;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The entry point of whole-index jobs: {@code rebuild} and {@code check} of one index or of every
 * index of a table, synchronously or as a {@link JobHandle} with live progress and cancellation.
 * Tables and indexes are resolved through the {@link Catalog} (the live schema), so the jobs see
 * exactly what the trigger indexes.
 */
public final class Jobs {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Jobs.class);
    public static final String REBUILD = "rebuild";
    public static final String CHECK = "check";
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private final CqlSession session;
    private final Catalog catalog;
    private final IndexWriter writer;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final Supplier<JobLedger> ledgerFactory;
    private volatile JobLedger ledger;

    public Jobs(CqlSession session, GsiConfig config) {
        this(session, new Catalog(session, config.projectKeyspace()), new IndexWriter(session::executeAsync, IndexWriter.MAX_IN_FLIGHT), config.projectKeyspace(),
                config.consistency());
    }

    /** Over a catalog and an index writer shared with the other parts of the process. */
    public Jobs(CqlSession session, Catalog catalog, IndexWriter writer, String projectKeyspace, ConsistencyConfig consistency) {
        this(session, catalog, writer, consistency.read(), consistency.write(),
                () -> new JobsTable(session, projectKeyspace, consistency.read(), consistency.write()));
    }

    /** With another ledger (tests). */
    Jobs(CqlSession session, Catalog catalog, IndexWriter writer, ConsistencyLevel read, ConsistencyLevel write, Supplier<JobLedger> ledger) {
        this.session = session;
        this.catalog = catalog;
        this.writer = writer;
        this.read = read;
        this.write = write;
        this.ledgerFactory = ledger;
    }

    /** The job ledger, opened on first use ({@code schema apply} creates its table). */
    public JobLedger ledger() {
        JobLedger l = ledger;
        if (l == null) {
            synchronized (this) {
                if (ledger == null) {
                    ledger = ledgerFactory.get();
                }
                l = ledger;
            }
        }
        return l;
    }

    public Catalog catalog() {
        return catalog;
    }

    /** Resolved target: the table and the indexes a job works on. */
    record Target(Catalog.Indexed table, List<IndexPlan> indexes, String indexName) {}

    Target target(String keyspace, String table, String index) {
        Catalog.Indexed t = catalog.table(keyspace, table);
        if (t == null) {
            throw new UnknownTargetException(keyspace + "." + table + " is not an indexed table (no index table names it;"
                    + " apply its definition with gsi schema apply)");
        }
        if (index == null || index.equals(JobLedger.ALL_INDEXES)) {
            return new Target(t, t.plan.indexes(), JobLedger.ALL_INDEXES);
        }
        IndexPlan p = t.index(index);
        if (p == null) {
            throw new UnknownTargetException(keyspace + "." + table + " has no index '" + index + "'; its indexes: "
                    + t.plan.indexes().stream().map(i -> i.index().name()).collect(Collectors.joining(", ")));
        }
        return new Target(t, List.of(p), index);
    }

    static String newId(String kind) {
        return kind + "-" + ID_TIME.format(Instant.now()) + "-" + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
    }

    private int nodes() {
        return Math.max(1, session.getMetadata().getNodes().size());
    }

    void requireMurmur3() {
        session.getMetadata().getTokenMap().ifPresent(tm -> {
            String p = tm.getPartitionerName();
            if (p != null && !p.endsWith("Murmur3Partitioner")) {
                throw new IllegalArgumentException("rebuild and check split the ring by Murmur3 tokens; this cluster uses " + p);
            }
        });
    }

    /**
     * Starts a rebuild of {@code index} (null: every index of the table). Resolves the target and
     * the job record at once (bad names and a job id of another target fail here), then runs on
     * its own thread.
     */
    public JobHandle<RebuildResult> startRebuild(String keyspace, String table, String index, RebuildOptions options,
            ProgressListener listener) {
        requireMurmur3();
        Target t = target(keyspace, table, index);
        JobLedger l = ledger();
        JobLedger.Header job = jobFor(l, keyspace, table, t.indexName(), options);
        l.state(job.id(), JobState.RUNNING, null);
        Progress progress = new Progress();
        JobHandle<RebuildResult> handle = new JobHandle<>(job.id(), REBUILD, progress);
        Catalog.Indexed indexed = t.table();
        Rebuild<?> rebuild = Rebuild.of(indexed.rule, indexed.scans(read, options.pageSize()), writes(indexed, options.maxInFlight()), t.indexes(),
                l, options);
        start(handle, () -> {
            RebuildResult r = rebuild.run(job, progress, listener == null ? ProgressListener.NONE : listener, handle::cancelRequested);
            if (r.state() == JobState.DONE) {
                // the ended buckets of the rebuilt indexes, from the base (docs/design.md section 9.4)
                for (IndexPlan p : t.indexes()) {
                    if (p.index().bucket() != null && !handle.cancelRequested()) {
                        sealAll(indexed, p, options, progress, handle::cancelRequested);
                    }
                }
            }
            return r;
        });
        return handle;
    }

    /** Seals every ended bucket of {@code index} (a rebuild's last phase); a missing bucket table is logged and skipped. */
    void sealAll(Catalog.Indexed table, IndexPlan index, RebuildOptions options, Progress progress, java.util.function.BooleanSupplier cancelled) {
        if (!table.bucketTables.containsKey(index)) {
            LOG.warn("index {} of {} declares a bucket, but its table {} is missing: run ./gsi schema apply, then rebuild", index.index().name(),
                    table.definition.qualifiedName(), index.index().bucketTableName());
            return;
        }
        String last = BucketSeal.lastSealable(index.index().bucket(), Instant.now());
        seal(table, index).run(null, last, TokenRanges.split(options.effectiveSplits(nodes())), options.parallelism(), progress, cancelled);
    }

    /** Token ranges a seal of the bucket sealer reads, one after another. */
    static final int SEAL_SPLITS = 64;

    /** The service's bucket sealer over this process's tables (docs/design.md section 9.4), run while {@code mayRun} says so. Not started. */
    public BucketSealer sealer(java.util.function.BooleanSupplier mayRun) {
        return new BucketSealer(catalog, this, mayRun);
    }

    /** A seal of {@code index}'s buckets, reading at the service's level, writing through the process's writer (docs/design.md section 9.4). */
    public BucketSeal seal(Catalog.Indexed table, IndexPlan index) {
        return new BucketSeal(table, index, table.scans(read, 500).versions(), writer.capped(IndexWriter.MAX_IN_FLIGHT / 4), write);
    }

    private JobLedger.Header jobFor(JobLedger l, String keyspace, String table, String index, RebuildOptions options) {
        Optional<JobLedger.Header> existing;
        if (options.jobId() != null) {
            if (!options.jobId().matches("[A-Za-z0-9._:-]{1,100}")) {
                throw new IllegalArgumentException("a job id is 1 to 100 letters, digits and . _ : -, not '" + options.jobId() + "'");
            }
            existing = l.find(options.jobId());
            if (existing.isPresent() && !existing.get().sameTarget(REBUILD, keyspace, table, index)) {
                JobLedger.Header h = existing.get();
                throw new IllegalArgumentException("job " + h.id() + " is a " + h.kind() + " of " + h.keyspace() + "." + h.table() + " "
                        + h.index() + ", not a rebuild of " + keyspace + "." + table + " " + index);
            }
        } else if (options.resume()) {
            existing = l.latestUnfinished(REBUILD, keyspace, table, index);
        } else {
            existing = Optional.empty();
        }
        if (existing.isPresent()) {
            return existing.get();
        }
        Instant now = Instant.now();
        JobLedger.Header h = new JobLedger.Header(options.jobId() != null ? options.jobId() : newId(REBUILD), REBUILD, keyspace, table, index,
                options.effectiveSplits(nodes()), JobState.RUNNING, null, now, now);
        l.create(h);
        return h;
    }

    public RebuildResult rebuild(String keyspace, String table, String index, RebuildOptions options, ProgressListener listener) {
        return startRebuild(keyspace, table, index, options, listener).await();
    }

    /** Starts a check of {@code index} (null: every index of the table). */
    public JobHandle<CheckResult> startCheck(String keyspace, String table, String index, CheckOptions options, ProgressListener listener) {
        requireMurmur3();
        Target t = target(keyspace, table, index);
        String id = newId(CHECK);
        Progress progress = new Progress();
        JobHandle<CheckResult> handle = new JobHandle<>(id, CHECK, progress);
        int splits = options.effectiveSplits(nodes());
        ProgressListener l = listener == null ? ProgressListener.NONE : listener;
        Catalog.Indexed indexed = t.table();
        Check<?> check = checkOf(indexed, t.indexes(), options);
        start(handle, () -> check.run(id, splits, progress, l, handle::cancelRequested));
        return handle;
    }

    public CheckResult check(String keyspace, String table, String index, boolean fix, ProgressListener listener) {
        return check(keyspace, table, index, CheckOptions.defaults().withFix(fix), listener);
    }

    public CheckResult check(String keyspace, String table, String index, CheckOptions options, ProgressListener listener) {
        return startCheck(keyspace, table, index, options, listener).await();
    }

    /**
     * Continuous anti-entropy over this process's tables (docs/design.md section 9.3), run while
     * {@code mayRun} says so, leaving to the maintainers what was written since {@code safeTime}
     * (ms; {@code Long.MIN_VALUE}: not known yet, anti-entropy waits). Not started.
     */
    public AntiEntropy antiEntropy(io.cassandragsi.repair.config.AntiEntropyConfig config, java.util.function.BooleanSupplier mayRun,
            java.util.function.ToLongFunction<io.cassandragsi.schema.TableDef> safeTime) {
        return new AntiEntropy(new AntiEntropy.Host() {
            @Override
            public List<io.cassandragsi.schema.TableDef> tables() {
                return catalog.tables().values().stream().map(t -> t.definition).toList();
            }

            @Override
            public JobLedger ledger() {
                return Jobs.this.ledger();
            }

            @Override
            public Check<?> check(io.cassandragsi.schema.TableDef def, CheckOptions options) {
                Catalog.Indexed table = catalog.table(def.keyspace(), def.table());
                return table == null ? null : checkOf(table, table.plan.indexes(), options);
            }

            @Override
            public boolean mayRun() {
                return mayRun.getAsBoolean();
            }

            @Override
            public long safeTimeMillis(io.cassandragsi.schema.TableDef table) {
                return safeTime.applyAsLong(table);
            }
        }, config);
    }

    /**
     * A check of {@code indexes} of a table, reading at the service's level, writing its fixes
     * through the process's writer; with the bucket tables of those that have one (docs/design.md
     * section 9.2).
     */
    private Check<?> checkOf(Catalog.Indexed table, List<IndexPlan> indexes, CheckOptions options) {
        Check<?> check = Check.of(table.rule, table.scans(read, options.pageSize()), writes(table, options.maxInFlight()), indexes, options,
                () -> Tids.ticks(Instant.now()));
        if (!table.bucketTables.isEmpty()) {
            check.withBuckets(table.bucketStores(read, options.pageSize()), List.copyOf(table.bucketTables.keySet()));
        }
        return check;
    }

    /** A job's writes: statements of the table's classes through a share of the process's writer. */
    private JobWrites writes(Catalog.Indexed table, int maxInFlight) {
        return new DriverWrites(table, writer.capped(maxInFlight), write);
    }

    private static <R> void start(JobHandle<R> handle, Supplier<R> body) {
        Thread t = new Thread(() -> {
            try {
                handle.result.complete(body.get());
            } catch (Throwable e) {
                handle.result.completeExceptionally(e);
            }
        }, "gsi-job-" + handle.id());
        t.setDaemon(true);
        t.start();
    }
}
