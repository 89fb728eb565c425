package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.servererrors.QueryConsistencyException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BaseTable;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.schema.Cql;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Index reads (docs/design.md section 8), for the HTTP API and for JVM users in-process.
 *
 * <p>Eventual reads answer from the index alone at query time q: an entry whose {@code _deleted}
 * is at or before q is not a match; one whose {@code _tid} is after q, or whose {@code _deleted} is
 * after q (as-of reads in the past), is checked against the base version current at q; the rest
 * match as stored. Consistent reads check every candidate against the base version current at q,
 * drop false positives and queue read repair (off the read's path) for entries that claimed a
 * match the base denies. Items come in index order; the {@code next} token resumes exactly after
 * the last entry consumed, so pages never repeat or skip.
 *
 * <p>Every read is asynchronous ({@link #readAsync}; {@link #read} waits for it): the index page
 * and the base checks go out with the driver's {@code executeAsync}, the checks of a page all at
 * once (queries of up to {@value BaseTable#ROWS_PER_QUERY} rows where the base table allows it,
 * else one per row; at most {@code checkConcurrency} queries in flight), and only as many
 * candidates are checked as items are still missing.
 *
 * <p>This class resolves the table and index, parses the request ({@link ReadRequest}, pure),
 * fixes the query time (a fresh read waits for the safe time first) and hands the page to {@link
 * ReadPath}, over the driver's stores ({@link DriverReadStores}); the steps are classes of their
 * own, one direction: {@link ReadPlanner} (the {@link Source}, pure) → {@link Pager} (one loop over
 * the source's fetches, {@link IndexTableSource} or {@link BucketsSource}, which decide their
 * entries by {@link ReadKind}, {@link EntryDecision} and {@link BucketMerge}; page tokens) → {@link
 * BaseChecker} (the base checks) → {@link ReadRepair}. {@link ItemLayout} turns index rows and base
 * versions into items, with the index table's column layout from {@code store.IndexColumns}
 * ({@code schema.IndexLayout}'s order).
 */
public final class IndexReader implements AutoCloseable {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;
    /** Base-check queries one read has in flight at most, in {@code gsi serve} and {@code gsi query}. */
    public static final int CHECK_CONCURRENCY = 32;

    private final CqlSession session;
    private final Catalog catalog;
    private final ConsistencyLevel cl;
    private final PageToken tokens;
    private final ReadRepair repair;
    private final ReadPath path;
    /** Catalog reloads, which prepare statements synchronously: never on the caller's (event-loop) thread. */
    private final ExecutorService blocking;
    private final SafeTimes safeTimes;
    private final Duration freshTimeout;
    /** Fresh reads' waits for the safe time: one thread that looks now and then, none parked per read. */
    private final java.util.concurrent.ScheduledExecutorService freshScheduler;
    private final FreshWait freshWait;
    /** Item layouts per index plan; a reloaded catalog brings new plans, and the old ones' entries go with them. */
    private final Map<IndexPlan, ItemLayout> layouts = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    public final LongAdder reads = new LongAdder();
    public final LongAdder baseChecks = new LongAdder();
    public final LongAdder falsePositives = new LongAdder();
    public final LongAdder readRepairs = new LongAdder();
    /** Index and bucket rows the reads fetched. */
    public final LongAdder indexRows = new LongAdder();
    /** Reads (first pages) that paged through a bucket instead of the index table (docs/design.md section 8.2). */
    public final LongAdder bucketReads = new LongAdder();
    /** Window reads (first pages) that merged several sealed buckets instead of reading the index table (docs/design.md section 8.2). */
    public final LongAdder mergedReads = new LongAdder();
    /** First pages read again because a bucket they read was being sealed again meanwhile. */
    public final LongAdder resealedReads = new LongAdder();
    /** Fresh reads (first pages) asked for, and those that waited past their bound for the safe time (503). */
    public final LongAdder freshReads = new LongAdder();
    public final LongAdder freshTimeouts = new LongAdder();

    /**
     * A query: path values (hash then range attributes), optional bounds on the next range
     * attribute, and either one moment ({@code asOf}) or a window ({@code tsGe} inclusive, {@code
     * tsLt} exclusive; either may be null) of time (docs/design.md section 8.1), or a fresh read
     * ({@code freshRead}: as of the moment it arrives, once the safe time has passed that moment;
     * {@code maxWait}, or null: the reader's {@code fresh_timeout}, the longest it waits; section 8.7).
     */
    public record Query(String keyspace, String table, String index, List<String> values, String gt, String ge, String lt,
            String le, Integer limit, String next, boolean consistent, String asOf, String tsGe, String tsLt, boolean freshRead,
            Duration maxWait) {
        /** A query of one moment or a window, not fresh. */
        public Query(String keyspace, String table, String index, List<String> values, String gt, String ge, String lt, String le,
                Integer limit, String next, boolean consistent, String asOf, String tsGe, String tsLt) {
            this(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, tsGe, tsLt, false, null);
        }

        /** A query of one moment (as of {@code asOf}, or now when null). */
        public Query(String keyspace, String table, String index, List<String> values, String gt, String ge, String lt, String le,
                Integer limit, String next, boolean consistent, String asOf) {
            this(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, null, null);
        }

        public static Query of(String keyspace, String table, String index, String... values) {
            return new Query(keyspace, table, index, List.of(values), null, null, null, null, null, null, false, null);
        }

        public Query withConsistent(boolean c) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, c, asOf, tsGe, tsLt, freshRead, maxWait);
        }

        public Query withAsOf(String t) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, t, tsGe, tsLt, freshRead, maxWait);
        }

        /** The rows that matched at some moment from {@code from} (inclusive) until {@code until} (exclusive); null: open. */
        public Query withWindow(String from, String until) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, from, until, freshRead, maxWait);
        }

        public Query withLimit(Integer l) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, l, next, consistent, asOf, tsGe, tsLt, freshRead, maxWait);
        }

        public Query withNext(String n) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, n, consistent, asOf, tsGe, tsLt, freshRead, maxWait);
        }

        public Query withBounds(String gt, String ge, String lt, String le) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, tsGe, tsLt, freshRead, maxWait);
        }

        /**
         * This query as a fresh read (read-your-writes, docs/design.md section 8.7): answered as of
         * the moment it arrives, once the safe time has passed that moment, so that every write
         * acknowledged before it is in the answer.
         */
        public Query fresh() {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, tsGe, tsLt, true, maxWait);
        }

        /** The longest a fresh read waits for the safe time (below the reader's {@code fresh_timeout}); null: that timeout. */
        public Query withMaxWait(Duration d) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf, tsGe, tsLt, freshRead, d);
        }

        /** Whether this is a window read ({@code ts_ge} or {@code ts_lt} given). */
        public boolean window() {
            return tsGe != null || tsLt != null;
        }
    }

    /** One page: items in index order and the token of the next page, or null at the end. */
    public record Page(List<Map<String, Object>> items, String next, Instant asOf) {
        /** A page whose query time is not known. */
        public Page(List<Map<String, Object>> items, String next) {
            this(items, next, null);
        }
    }

    /**
     * @param queue where read repair goes (null: no read repair)
     * @param tokenKey the HMAC key of paging tokens (null: a random key, tokens die with the process)
     * @param checkConcurrency how many base-table checks one read has in flight at most
     */
    public IndexReader(CqlSession session, Catalog catalog, QueueStore queue, ConsistencyLevel cl, byte[] tokenKey, int checkConcurrency) {
        this(session, catalog, queue, cl, tokenKey, checkConcurrency, null);
    }

    /**
     * The safe time of a table, for reads at {@code as_of=safe} (docs/design.md section 7.10): the
     * repair service tracks it; a failure is a {@link ReadException} naming why it is not known.
     */
    @FunctionalInterface
    public interface SafeTimes {
        Instant of(io.cassandragsi.schema.TableDef table);

        /** What holds the table's safe time back, for a fresh read that waited too long (null: not said). */
        default String heldBy(io.cassandragsi.schema.TableDef table) {
            return null;
        }
    }

    /** How long a fresh read waits for the safe time by default ({@code http.fresh_timeout}, docs/design.md section 8.7). */
    public static final Duration FRESH_TIMEOUT = Duration.ofSeconds(2);

    /** @param safeTimes the repair service's safe times (null: {@code as_of=safe} and fresh reads are refused, naming where to read them) */
    public IndexReader(CqlSession session, Catalog catalog, QueueStore queue, ConsistencyLevel cl, byte[] tokenKey, int checkConcurrency,
            SafeTimes safeTimes) {
        this(session, catalog, queue, cl, tokenKey, checkConcurrency, safeTimes, FRESH_TIMEOUT);
    }

    /** @param freshTimeout how long a fresh read waits for the safe time at most */
    public IndexReader(CqlSession session, Catalog catalog, QueueStore queue, ConsistencyLevel cl, byte[] tokenKey, int checkConcurrency,
            SafeTimes safeTimes, Duration freshTimeout) {
        this.safeTimes = safeTimes;
        this.freshTimeout = freshTimeout;
        if (checkConcurrency < 1) {
            throw new IllegalArgumentException("checkConcurrency must be at least 1, not " + checkConcurrency);
        }
        this.session = session;
        this.catalog = catalog;
        this.cl = cl;
        this.tokens = tokenKey == null ? PageToken.randomKey() : new PageToken(tokenKey);
        this.repair = new ReadRepair(queue, cl, readRepairs);
        BaseChecker checker = new BaseChecker(checkConcurrency, repair, baseChecks, falsePositives);
        this.path = new ReadPath(tokens, new Pager(tokens, checker), indexRows, bucketReads, mergedReads);
        this.blocking = Executors.newCachedThreadPool(daemon("gsi-read-catalog"));
        this.freshScheduler = Executors.newSingleThreadScheduledExecutor(daemon("gsi-fresh-wait"));
        this.freshWait = safeTimes == null ? null : new FreshWait(safeTimes, freshScheduler);
    }

    static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /** Reads one page, blocking the calling thread; failures are {@link ReadException}s (400, 404, 503). */
    public Page read(Query query) {
        try {
            return readAsync(query).join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
    }

    /**
     * Reads one page without blocking the calling thread, which may be an event loop: the index
     * and base reads go out asynchronously and the page completes on a driver thread. When the
     * catalog must first be reloaded (after a schema change; that prepares statements
     * synchronously), the reload runs on a thread of the reader's own. Fails with a {@link
     * ReadException} (400, 404, 503) or, for a bug, another exception.
     */
    public CompletableFuture<Page> readAsync(Query query) {
        CompletableFuture<Page> page;
        Instant arrival = Instant.now(); // a fresh read's moment (docs/design.md section 8.7)
        try {
            reads.increment();
            if (catalog.current()) {
                page = start(query, catalog.loaded(query.keyspace(), query.table()), arrival);
            } else {
                page = CompletableFuture.supplyAsync(() -> catalog.table(query.keyspace(), query.table()), blocking)
                        .thenCompose(table -> start(query, table, arrival));
            }
        } catch (RuntimeException e) {
            page = CompletableFuture.failedFuture(e);
        }
        return page.exceptionallyCompose(e -> CompletableFuture.failedFuture(unavailable(e instanceof CompletionException c ? c.getCause() : e)));
    }

    /** Driver failures that mean Cassandra did not answer become {@link ReadException.Kind#UNAVAILABLE}; anything else is kept. */
    private static Throwable unavailable(Throwable e) {
        if (e instanceof AllNodesFailedException || e instanceof DriverTimeoutException || e instanceof UnavailableException
                || e instanceof QueryConsistencyException) {
            return ReadException.unavailable("Cassandra did not answer: " + e.getMessage(), e);
        }
        return e;
    }

    /** The layout of an index's items, worked out on its first read. */
    private ItemLayout layout(Catalog.Indexed table, IndexPlan plan) {
        return layouts.computeIfAbsent(plan, p -> ItemLayout.of(table.definition, p.index()));
    }

    /**
     * Reads the page; a read through buckets that met a seal in progress ({@link Resealed})
     * starts again, at most twice, if it is a first page (docs/design.md
     * section 8.2), and is 400 {@code bad_next} if not.
     */
    private CompletableFuture<Page> start(Query query, Catalog.Indexed table, Instant arrival) {
        return Resealed.retryResealed(() -> attempt(query, table, arrival), query.next() == null, resealedReads);
    }

    /**
     * Resolves the table and index (404), parses the request (400), waits for the safe time if the
     * read is fresh and starts, binds the select and reads the page.
     */
    private CompletableFuture<Page> attempt(Query query, Catalog.Indexed table, Instant arrival) {
        if (table == null) {
            boolean keyspaceExists = session.getMetadata().getKeyspace(Cql.quote(query.keyspace())).isPresent();
            throw ReadException.notFound(keyspaceExists
                    ? "no indexed table '" + query.table() + "' in keyspace '" + query.keyspace() + "'"
                    : "unknown keyspace '" + query.keyspace() + "'");
        }
        IndexPlan plan = table.index(query.index());
        if (plan == null) {
            throw ReadException.notFound("table " + query.keyspace() + "." + query.table() + " has no index '" + query.index()
                    + "' (indexes: " + table.plan.indexes().stream().map(p -> p.index().name()).collect(Collectors.joining(", ")) + ")");
        }
        ReadRequest request = ReadRequest.parse(query, table.definition, plan.index());
        if (request.fresh() && query.next() == null) {
            if (freshWait == null) {
                throw ReadException.badRequest("bad_fresh", "fresh=true needs the repair service, which tracks how far the index is done:"
                        + " read through its HTTP API (./gsi serve), or give this reader the service's safe times");
            }
            UUID arrived = Tids.maxAtTicks(Tids.ticks(arrival));
            freshReads.increment();
            return freshWait.until(table.definition, arrival, request.maxWait(freshTimeout)).whenComplete((v, e) -> {
                if (e instanceof ReadException r && "fresh_timeout".equals(r.error())) {
                    freshTimeouts.increment(); // not a reader closing, nor a failure of the safe time itself
                }
            }).thenCompose(v -> page(query, table, plan, request, arrived));
        }
        UUID asOf = request.fixedTime();
        // A read without as_of (or ts_lt) is as of now; its next pages keep the first page's query
        // time, which their token carries, so that all its pages answer as of one moment.
        return page(query, table, plan, request, asOf != null ? asOf : request.safe() ? safeTime(table) : request.now());
    }

    /** Reads the page of {@code request} as of {@code readTime}, or as of the query time its token carries ({@link ReadPath}). */
    private CompletableFuture<Page> page(Query query, Catalog.Indexed table, IndexPlan plan, ReadRequest request, UUID readTime) {
        ReadPath.Target target = new ReadPath.Target(table.definition, table.plan, plan, layout(table, plan),
                new DriverReadStores(session, cl, table, plan));
        return path.page(request, target, readTime);
    }

    /** The query time of a read at {@code as_of=safe}: the last tid of the safe time's tick. */
    private UUID safeTime(Catalog.Indexed table) {
        if (safeTimes == null) {
            throw ReadException.badRequest("bad_as_of", "as_of=safe needs the repair service, which tracks how far the index is"
                    + " done: read through its HTTP API (./gsi serve), or give this reader the service's safe times");
        }
        return Tids.maxAtTicks(Tids.ticks(safeTimes.of(table.definition)));
    }

    /** See {@link Pager#fetchSize}. */
    static int fetchSize(int skip, int missing, int previous) {
        return Pager.fetchSize(skip, missing, previous);
    }

    /** See {@link BaseChecker#querySize}. */
    static int querySize(int rows) {
        return BaseChecker.querySize(rows);
    }

    @Override
    public void close() {
        blocking.shutdownNow();
        freshScheduler.shutdownNow();
        repair.close();
    }
}
