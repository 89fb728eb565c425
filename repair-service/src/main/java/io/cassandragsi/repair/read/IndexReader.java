package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.servererrors.QueryConsistencyException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.index.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BaseTable;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexTable;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.repair.store.Versions;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Index reads (DESIGN.md section 4), for the HTTP API and for JVM users in-process.
 *
 * <p>Eventual reads answer from the index alone at query time q: an entry whose {@code _deleted}
 * is at or before q is not a match; one whose {@code _tid} is after q, or whose {@code _deleted} is
 * after q (as-of reads in the past), is checked against the base version current at q; the rest
 * match as stored. Consistent reads check every candidate against the base version current at q,
 * drop false positives and queue read repair (off the read's path) for entries that claimed a
 * match the base denies. Items come in index order; the {@code
 * next} token resumes exactly after the last index row consumed, so pages never repeat or skip.
 *
 * <p>Every read is asynchronous ({@link #readAsync}; {@link #read} waits for it): the index page
 * and the base checks go out with the driver's {@code executeAsync}, the checks of a page all at
 * once (queries of up to {@value BaseTable#ROWS_PER_QUERY} rows where the base table allows it,
 * else one per row; at most {@code checkConcurrency} queries in flight), and only as many
 * candidates are checked as items are still missing.
 */
public final class IndexReader implements AutoCloseable {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;
    /** Base-check queries one read has in flight at most, in {@code gsi serve} and {@code gsi query}. */
    public static final int CHECK_CONCURRENCY = 32;

    private final CqlSession session;
    private final Catalog catalog;
    private final QueueStore queue;
    private final ConsistencyLevel cl;
    private final PageToken tokens;
    private final int checkConcurrency;
    /** Catalog reloads, which prepare statements synchronously: never on the caller's (event-loop) thread. */
    private final ExecutorService blocking;
    /** Read repairs (synchronous queue writes), off the read's path; at most {@link #REPAIRS_WAITING} wait. */
    private final ThreadPoolExecutor repairs;
    /** Item layouts per index plan; a reloaded catalog brings new plans, and the old ones' entries go with them. */
    private final Map<IndexPlan, ItemLayout> layouts = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    private static final int REPAIRS_WAITING = 10_000;

    public final LongAdder reads = new LongAdder();
    public final LongAdder baseChecks = new LongAdder();
    public final LongAdder falsePositives = new LongAdder();
    public final LongAdder readRepairs = new LongAdder();

    /** A query: path values (hash then range attributes), optional bounds on the next range attribute. */
    public record Query(String keyspace, String table, String index, List<String> values, String gt, String ge, String lt,
            String le, Integer limit, String next, boolean consistent, String asOf) {
        public static Query of(String keyspace, String table, String index, String... values) {
            return new Query(keyspace, table, index, List.of(values), null, null, null, null, null, null, false, null);
        }

        public Query withConsistent(boolean c) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, c, asOf);
        }

        public Query withAsOf(String t) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, t);
        }

        public Query withLimit(Integer l) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, l, next, consistent, asOf);
        }

        public Query withNext(String n) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, n, consistent, asOf);
        }

        public Query withBounds(String gt, String ge, String lt, String le) {
            return new Query(keyspace, table, index, values, gt, ge, lt, le, limit, next, consistent, asOf);
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
        this.session = session;
        this.catalog = catalog;
        this.queue = queue;
        this.cl = cl;
        this.tokens = tokenKey == null ? PageToken.randomKey() : new PageToken(tokenKey);
        if (checkConcurrency < 1) {
            throw new IllegalArgumentException("checkConcurrency must be at least 1, not " + checkConcurrency);
        }
        this.checkConcurrency = checkConcurrency;
        this.blocking = Executors.newCachedThreadPool(daemon("gsi-read-catalog"));
        this.repairs = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(REPAIRS_WAITING),
                daemon("gsi-read-repair"), new ThreadPoolExecutor.AbortPolicy());
    }

    private static ThreadFactory daemon(String name) {
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
        try {
            reads.increment();
            if (catalog.current()) {
                page = start(query, catalog.loaded(query.keyspace(), query.table()));
            } else {
                page = CompletableFuture.supplyAsync(() -> catalog.table(query.keyspace(), query.table()), blocking)
                        .thenCompose(table -> start(query, table));
            }
        } catch (RuntimeException e) {
            page = CompletableFuture.failedFuture(e);
        }
        return page.exceptionallyCompose(e -> CompletableFuture.failedFuture(unavailable(e instanceof CompletionException c ? c.getCause() : e)));
    }

    /** Driver failures that mean Cassandra did not answer become 503s; anything else is kept. */
    private static Throwable unavailable(Throwable e) {
        if (e instanceof AllNodesFailedException || e instanceof DriverTimeoutException || e instanceof UnavailableException
                || e instanceof QueryConsistencyException) {
            return new ReadException(503, "cassandra_unavailable", "Cassandra did not answer: " + e.getMessage(), e);
        }
        return e;
    }

    /** What one read needs after its input is parsed. */
    private record Read(Catalog.Indexed table, IndexPlan plan, ItemLayout layout, BoundStatement statement, UUID q, int limit,
            boolean consistent, Fingerprint fingerprint) {}

    /** The layout of an index's items, worked out on its first read. */
    private ItemLayout layout(Catalog.Indexed table, IndexPlan plan) {
        return layouts.computeIfAbsent(plan, p -> ItemLayout.of(table.definition, p.index()));
    }

    /**
     * The query's fingerprint for its page tokens at query time {@code q}, computed when a token
     * is first encoded or decoded.
     */
    private static final class Fingerprint {
        private final Function<UUID, String> canonical;
        private final UUID q;
        private byte[] hash;

        Fingerprint(Function<UUID, String> canonical, UUID q) {
            this.canonical = canonical;
            this.q = q;
        }

        byte[] get() {
            if (hash == null) {
                hash = PageToken.fingerprint(canonical.apply(q));
            }
            return hash;
        }
    }

    private CompletableFuture<Page> start(Query query, Catalog.Indexed table) {
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
        Index index = plan.index();
        TableDef def = table.definition;
        List<Column> pathColumns = new ArrayList<>(index.hash());
        pathColumns.addAll(index.range());
        List<String> values = query.values();
        if (values.size() < index.hash().size() || values.size() > pathColumns.size()) {
            throw ReadException.badRequest("bad_path", "index '" + index.name() + "' takes " + index.hash().size() + " hash value(s) ("
                    + names(index.hash()) + ")" + (index.range().isEmpty() ? "" : " then up to " + index.range().size()
                    + " range value(s) (" + names(index.range()) + ")") + ", got " + values.size());
        }
        List<ByteBuffer> fixed = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            Column c = pathColumns.get(i);
            fixed.add(Values.parse(c.name(), c.type(), values.get(i)));
        }
        Column free = values.size() < pathColumns.size() ? pathColumns.get(values.size()) : null;
        Bound lower = bound(query.gt(), ">", query.ge(), ">=", "gt", "ge", free);
        Bound upper = bound(query.lt(), "<", query.le(), "<=", "lt", "le", free);
        int limit = query.limit() == null ? DEFAULT_LIMIT : query.limit();
        if (limit < 1 || limit > MAX_LIMIT) {
            throw ReadException.badRequest("bad_limit", "limit must be between 1 and " + MAX_LIMIT + ", not " + limit);
        }
        UUID asOf = query.asOf() == null ? null : queryTime(query.asOf());
        if (asOf != null && query.consistent() && !def.versioned()) {
            throw ReadException.badRequest("bad_as_of", def.qualifiedName() + " is unversioned: the base keeps no history, so a consistent"
                    + " read is as of now only; leave out as_of, or read without consistent=true (answered from the index's _tid/_deleted)");
        }
        Function<UUID, String> canonical = at -> String.join("\u0000", def.keyspace(), def.table(), index.name(),
                String.join("\u0001", values), String.valueOf(query.gt()), String.valueOf(query.ge()), String.valueOf(query.lt()),
                String.valueOf(query.le()), String.valueOf(query.consistent()), at.toString());
        // A read without as_of is as of now; its next pages keep the first page's query time, which
        // their token carries, so that all its pages answer as of one moment.
        UUID readTime = asOf != null ? asOf : queryTime(null);
        byte[] state = null;
        int skip = 0;
        if (query.next() != null) {
            PageToken.Position p = tokens.decode(query.next(), at -> PageToken.fingerprint(canonical.apply(asOf != null ? asOf : at)));
            readTime = p.queryTime();
            state = p.pagingState();
            skip = p.offset();
        }
        UUID q = readTime;
        Fingerprint fingerprint = new Fingerprint(canonical, q);
        byte[] firstState = state;
        int firstSkip = skip;
        IndexTable.Shape shape = new IndexTable.Shape(values.size() - index.hash().size(), lower == null ? null : lower.op,
                upper == null ? null : upper.op);
        return table.indexTables.get(plan).select(shape).thenCompose(ps -> {
            BoundStatementBuilder b = ps.boundStatementBuilder();
            int bi = 0;
            if (index.hasConstantPartition()) {
                b.setBytesUnsafe(bi++, plan.constantPartition());
            }
            for (ByteBuffer v : fixed) {
                b.setBytesUnsafe(bi++, v);
            }
            if (lower != null) {
                b.setBytesUnsafe(bi++, lower.value);
            }
            if (upper != null) {
                b.setBytesUnsafe(bi++, upper.value);
            }
            b.setConsistencyLevel(cl);
            Read read = new Read(table, plan, layout(table, plan), b.build(), q, limit, query.consistent(), fingerprint);
            return page(read, firstState, firstSkip, fetchSize(firstSkip, limit, 0), new ArrayList<>(limit));
        });
    }

    /**
     * Index rows to fetch next: as many as items are still missing (after the {@code skip} rows
     * that a token resumes behind), so that a page whose rows all match ends exactly where the read
     * stops, no row is fetched in vain, and the next token starts a fresh page; a read whose last
     * fetch found entries that no longer match ({@code previous}: the rows it decided, else 0)
     * fetches at least twice as many rows as last time. Never more than {@value #MAX_LIMIT} rows,
     * skipped ones included: Cassandra counts the cell tombstones of the rows one read command
     * returns (every entry has one in {@code _deleted}, and one per null projection) and warns
     * above 1,000 ({@code tombstone_warn_threshold}); a read that needs more fetches again.
     */
    static int fetchSize(int skip, int missing, int previous) {
        return Math.min(MAX_LIMIT, skip + Math.max(missing, 2 * previous));
    }

    /**
     * Reads {@code size} index rows at {@code state} and decides them from {@code skip} on; then the
     * next page if items are still missing.
     */
    private CompletableFuture<Page> page(Read read, byte[] state, int skip, int size, List<Map<String, Object>> items) {
        BoundStatement stmt = read.statement().setPagingState(state == null ? null : ByteBuffer.wrap(state)).setPageSize(size);
        int before = items.size();
        return session.executeAsync(stmt).toCompletableFuture().thenCompose(rs -> {
            List<Row> rows = new ArrayList<>(rs.remaining());
            for (Row row : rs.currentPage()) {
                rows.add(row);
            }
            ByteBuffer nextState = rs.getExecutionInfo().getPagingState();
            return consume(read, rows, skip, items).thenCompose(i -> {
                if (items.size() >= read.limit() && i < rows.size()) {
                    return CompletableFuture.completedFuture(new Page(items, token(read, state, i), Tids.instant(read.q())));
                }
                if (nextState == null) {
                    return CompletableFuture.completedFuture(new Page(items, null, Tids.instant(read.q())));
                }
                byte[] following = bytes(nextState);
                if (items.size() >= read.limit()) {
                    return CompletableFuture.completedFuture(new Page(items, token(read, following, 0), Tids.instant(read.q())));
                }
                int decided = rows.size() - skip;
                int previous = items.size() - before < decided ? decided : 0;
                return page(read, following, 0, fetchSize(0, read.limit() - items.size(), previous), items);
            });
        });
    }

    private String token(Read read, byte[] state, int offset) {
        return tokens.encode(new PageToken.Position(read.fingerprint().get(), read.q(), state, offset));
    }

    /**
     * Decides rows from {@code from} on until the page has its items, adding them to {@code items}:
     * as many candidates at a time as items are still missing (their base checks run
     * concurrently), then the rest. Completes with the index of the first row not consumed.
     */
    private CompletableFuture<Integer> consume(Read read, List<Row> rows, int from, List<Map<String, Object>> items) {
        int i = from;
        while (i < rows.size() && items.size() < read.limit()) {
            int window = Math.min(rows.size() - i, read.limit() - items.size());
            CompletableFuture<List<Map<String, Object>>> decided = decide(read, rows.subList(i, i + window));
            int next = i + window;
            if (!decided.isDone()) {
                return decided.thenCompose(d -> {
                    items.addAll(d);
                    return consume(read, rows, next, items);
                });
            }
            items.addAll(decided.join());
            i = next;
        }
        return CompletableFuture.completedFuture(i);
    }

    private static String names(List<Column> columns) {
        return columns.stream().map(Column::name).collect(Collectors.joining(", "));
    }

    private record Bound(String op, ByteBuffer value) {}

    private static Bound bound(String strict, String strictOp, String inclusive, String inclusiveOp, String strictName,
            String inclusiveName, Column free) {
        if (strict != null && inclusive != null) {
            throw ReadException.badRequest("bad_bound", "give either '" + strictName + "' or '" + inclusiveName + "', not both");
        }
        String text = strict != null ? strict : inclusive;
        if (text == null) {
            return null;
        }
        if (free == null) {
            throw ReadException.badRequest("bad_bound", "'" + (strict != null ? strictName : inclusiveName)
                    + "' needs a range attribute not fixed by the path, and this path fixes them all (or the index has none)");
        }
        return new Bound(strict != null ? strictOp : inclusiveOp, Values.parse(free.name(), free.type(), text));
    }

    /** The query time: now, an ISO-8601 instant (or epoch millis), or a timeuuid. */
    static UUID queryTime(String asOf) {
        if (asOf == null) {
            return Tids.maxAtTicks(Tids.ticks(Instant.now()));
        }
        if (asOf.length() == 36 && asOf.charAt(8) == '-') {
            UUID u;
            try {
                u = UUID.fromString(asOf);
            } catch (IllegalArgumentException e) {
                throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is neither an ISO-8601 instant nor a timeuuid");
            }
            if (u.version() != 1) {
                throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is a UUID but not a timeuuid (version 1)");
            }
            return u;
        }
        try {
            return Tids.maxAtTicks(Tids.ticks(Values.instant(asOf)));
        } catch (RuntimeException e) {
            throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is neither an ISO-8601 instant (2026-11-21T10:00:00Z) nor a timeuuid");
        }
    }

    /**
     * Decides a window of index rows: the items of the matches, in row order. Rows the index alone
     * decides are decided at once; the others are checked against the base table,
     * asynchronously: with queries of up to {@value BaseTable#ROWS_PER_QUERY} rows where the table
     * allows it ({@link BaseTable.Checks#readsManyCurrent}, {@link #querySize}), else one query per row; at
     * most {@code checkConcurrency} queries in flight.
     */
    private CompletableFuture<List<Map<String, Object>>> decide(Read read, List<Row> rows) {
        Catalog.Indexed table = read.table();
        IndexPlan plan = read.plan();
        ItemLayout layout = read.layout();
        BaseTable.Checks base = table.checks.get(plan);
        UUID q = read.q();
        Item[] decided = new Item[rows.size()];
        List<Integer> checkedAt = new ArrayList<>();
        List<Supplier<CompletableFuture<Item>>> checks = new ArrayList<>();
        List<List<ByteBuffer>> current = new ArrayList<>();
        CompletableFuture<List<Versions.Version>> batch = new CompletableFuture<>();
        for (int n = 0; n < rows.size(); n++) {
            Row r = rows.get(n);
            if (plan.perVersion()) {
                UUID tid = Tids.uuid(r.getBytesUnsafe(layout.tidInEntryKey));
                EntryDecision d = EntryDecision.ofVersionEntry(read.consistent(), tid, q);
                if (d == EntryDecision.SKIP) {
                    continue;
                }
                if (d == EntryDecision.MATCH) {
                    decided[n] = layout.fromRow(r);
                    continue;
                }
                List<ByteBuffer> key = layout.entryKey(r);
                checkedAt.add(n);
                checks.add(() -> checkVersion(table, plan, layout, key, tid));
                continue;
            }
            ByteBuffer deletedBytes = r.getBytesUnsafe(layout.deletedColumn);
            UUID deleted = deletedBytes == null ? null : Tids.uuid(deletedBytes);
            ByteBuffer tidBytes = r.getBytesUnsafe(layout.tidColumn);
            UUID tid = tidBytes == null ? null : Tids.uuid(tidBytes);
            EntryDecision d = EntryDecision.ofEntry(table.plan.versioned(), read.consistent(), tid, deleted, q);
            if (d == EntryDecision.SKIP) {
                continue;
            }
            if (d == EntryDecision.MATCH) {
                decided[n] = layout.fromRow(r);
                continue;
            }
            boolean claims = d.claimed();
            List<ByteBuffer> key = layout.entryKey(r);
            List<ByteBuffer> rowKey = layout.rowKey(key);
            checkedAt.add(n);
            if (base.readsManyCurrent()) {
                int at = current.size();
                current.add(rowKey);
                checks.add(() -> batch.thenApply(versions -> judgeCurrent(table, plan, layout, key, rowKey, claims, tid, versions.get(at))));
            } else {
                checks.add(() -> {
                    baseChecks.increment();
                    return base.currentAtAsync(rowKey, q, cl)
                            .thenApply(v -> judgeCurrent(table, plan, layout, key, rowKey, claims, tid, v));
                });
            }
        }
        if (!current.isEmpty()) {
            // the rows whose current version is needed, a few per query, the queries side by side
            baseChecks.add(current.size());
            List<Supplier<CompletableFuture<List<Versions.Version>>>> queries = new ArrayList<>();
            int size = querySize(current.size());
            for (int from = 0; from < current.size(); from += size) {
                List<List<ByteBuffer>> part = current.subList(from, Math.min(current.size(), from + size));
                queries.add(() -> base.currentAtAllAsync(part, q, cl));
            }
            Bounded.run(queries, checkConcurrency).whenComplete((parts, e) -> {
                if (e != null) {
                    batch.completeExceptionally(e);
                    return;
                }
                List<Versions.Version> all = new ArrayList<>(current.size());
                parts.forEach(all::addAll);
                batch.complete(all);
            });
        }
        if (checks.isEmpty()) {
            return CompletableFuture.completedFuture(matches(decided));
        }
        return Bounded.run(checks, checkConcurrency).thenApply(items -> {
            for (int k = 0; k < items.size(); k++) {
                decided[checkedAt.get(k)] = items.get(k);
            }
            return matches(decided);
        });
    }

    /**
     * Rows per base query when {@code rows} current versions are needed: as few queries as {@link
     * BaseTable#ROWS_PER_QUERY} allows, of even size (120 rows: three queries of 40, not two of 50
     * and one of 20, since a node reads one query's rows one after another).
     */
    static int querySize(int rows) {
        int queries = (rows + BaseTable.ROWS_PER_QUERY - 1) / BaseTable.ROWS_PER_QUERY;
        return Math.max(1, (rows + queries - 1) / Math.max(1, queries));
    }

    private static List<Map<String, Object>> matches(Item[] decided) {
        List<Map<String, Object>> out = new ArrayList<>(decided.length);
        for (Item item : decided) {
            if (item != null) {
                out.add(item);
            }
        }
        return out;
    }

    /** The item of an entry if the base version current at the query time {@code v} still has its key; else read repair if it claimed to. */
    private Item judgeCurrent(Catalog.Indexed table, IndexPlan plan, ItemLayout layout, List<ByteBuffer> key, List<ByteBuffer> rowKey,
            boolean claims, UUID tid, Versions.Version v) {
        if (v != null && key.equals(table.plan.entryKey(plan, v))) {
            return layout.fromVersion(v);
        }
        if (claims) {
            falsePositives.increment();
            readRepair(table, rowKey, tid);
        }
        return null;
    }

    private CompletableFuture<Item> checkVersion(Catalog.Indexed table, IndexPlan plan, ItemLayout layout, List<ByteBuffer> key, UUID tid) {
        baseChecks.increment();
        return table.checks.get(plan).versionAsync(layout.rowKey(key), tid, cl).thenApply(v -> {
            if (v != null && key.equals(table.plan.entryKey(plan, v))) {
                return layout.fromVersion(v);
            }
            falsePositives.increment();
            return null;
        });
    }

    /**
     * Queues read repair, best effort and off the read's path: the queue write is synchronous, so
     * it runs on the reader's repair thread; when that is far behind, the repair is dropped ({@code
     * check --fix} finds what read repair misses).
     */
    private void readRepair(Catalog.Indexed table, List<ByteBuffer> rowKey, UUID tid) {
        if (queue == null || tid == null) {
            return;
        }
        TableDef def = table.definition;
        int pkSize = def.partitionKey().size();
        ByteBuffer pk = pkSize == 1 ? rowKey.get(0) : Composite.encode(rowKey.subList(0, pkSize));
        ByteBuffer ck = Composite.encode(rowKey.subList(pkSize, rowKey.size()));
        // a versioned row is recomputed from all its versions: an entry left behind by a delete, or one whose
        // correction lost to cells a recompute wrote, is put right whatever its cells' timestamps
        QueueStore.Marker marker = new QueueStore.Marker(Uuids.timeBased(), def.keyspace(), def.table(), pk, ck, tid, tid,
                def.versioned() ? QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE : QueueLayout.FLAG_PARTIAL);
        long now = System.currentTimeMillis();
        try {
            repairs.execute(() -> {
                try {
                    queue.enqueue(marker, now, cl);
                    readRepairs.increment();
                } catch (RuntimeException e) {
                    // read repair is best effort; check --fix finds what it misses
                }
            });
        } catch (RejectedExecutionException e) {
            // too many repairs waiting, or the reader is closed: dropped, as above
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Override
    public void close() {
        blocking.shutdownNow();
        repairs.shutdownNow();
    }
}
