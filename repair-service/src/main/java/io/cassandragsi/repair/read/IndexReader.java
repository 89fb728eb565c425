package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverTimeoutException;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.servererrors.QueryConsistencyException;
import com.datastax.oss.driver.api.core.servererrors.UnavailableException;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.index.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.Catalog;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Collectors;

/**
 * Index reads (DESIGN.md section 4), for the HTTP API and for JVM users in-process.
 *
 * <p>Eventual reads answer from the index alone at query time q: an entry whose {@code _deleted}
 * is at or before q is not a match; one whose {@code _tid} is after q, or whose {@code _deleted} is
 * after q (as-of reads in the past), is checked against the base version current at q; the rest
 * match as stored. Consistent reads check every candidate against
 * the base version current at q (concurrently, bounded), drop false positives and queue read
 * repair for entries that claimed a match the base denies. Items come in index order; the {@code
 * next} token resumes exactly after the last index row consumed, so pages never repeat or skip.
 */
public final class IndexReader implements AutoCloseable {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    private final CqlSession session;
    private final Catalog catalog;
    private final QueueStore queue;
    private final ConsistencyLevel cl;
    private final PageToken tokens;
    private final ExecutorService checks;
    private final Map<String, PreparedStatement> statements = new ConcurrentHashMap<>();

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
    public record Page(List<Map<String, Object>> items, String next) {}

    /**
     * @param queue where read repair goes (null: no read repair)
     * @param tokenKey the HMAC key of paging tokens (null: a random key, tokens die with the process)
     */
    public IndexReader(CqlSession session, Catalog catalog, QueueStore queue, ConsistencyLevel cl, byte[] tokenKey, int checkConcurrency) {
        this.session = session;
        this.catalog = catalog;
        this.queue = queue;
        this.cl = cl;
        this.tokens = tokenKey == null ? PageToken.randomKey() : new PageToken(tokenKey);
        this.checks = Executors.newFixedThreadPool(checkConcurrency, r -> {
            Thread t = new Thread(r, "gsi-read-check");
            t.setDaemon(true);
            return t;
        });
    }

    public Page read(Query query) {
        try {
            return doRead(query);
        } catch (AllNodesFailedException | DriverTimeoutException | UnavailableException | QueryConsistencyException e) {
            throw new ReadException(503, "cassandra_unavailable", "Cassandra did not answer: " + e.getMessage(), e);
        } catch (CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof AllNodesFailedException || c instanceof DriverTimeoutException || c instanceof UnavailableException
                    || c instanceof QueryConsistencyException) {
                throw new ReadException(503, "cassandra_unavailable", "Cassandra did not answer: " + c.getMessage(), c);
            }
            if (c instanceof ReadException r) {
                throw r;
            }
            throw e;
        }
    }

    private Page doRead(Query query) {
        reads.increment();
        Catalog.Indexed table = catalog.table(query.keyspace(), query.table());
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
        UUID q = queryTime(query.asOf());

        int fixedRanges = values.size() - index.hash().size();
        String cacheKey = index.tableName() + "/" + def.keyspace() + "/" + fixedRanges + "/" + (lower == null ? "" : lower.op) + "/"
                + (upper == null ? "" : upper.op);
        PreparedStatement ps = statements.computeIfAbsent(cacheKey, k -> prepare(def, index, fixedRanges, lower, upper));
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
        String canonical = String.join("\u0000", def.keyspace(), def.table(), index.name(), String.join("\u0001", values),
                String.valueOf(query.gt()), String.valueOf(query.ge()), String.valueOf(query.lt()), String.valueOf(query.le()),
                String.valueOf(query.consistent()), q.toString());
        byte[] fingerprint = PageToken.fingerprint(canonical);
        byte[] state = null;
        int skip = 0;
        if (query.next() != null) {
            PageToken.Position p = tokens.decode(query.next(), fingerprint);
            state = p.pagingState();
            skip = p.offset();
        }
        // a little more than the limit: entries that no longer match are skipped, more pages follow if needed
        int pageSize = Math.min(MAX_LIMIT, limit + Math.max(10, limit / 4));
        List<Map<String, Object>> items = new ArrayList<>();
        while (true) {
            BoundStatementBuilder stmt = new BoundStatementBuilder(b.build()).setPageSize(pageSize).setConsistencyLevel(cl);
            if (state != null) {
                stmt.setPagingState(ByteBuffer.wrap(state));
            }
            ResultSet rs = session.execute(stmt.build());
            int available = rs.getAvailableWithoutFetching();
            List<Row> rows = new ArrayList<>(available);
            for (int k = 0; k < available; k++) {
                rows.add(rs.one());
            }
            ByteBuffer nextState = rs.getExecutionInfo().getPagingState();
            int i = skip;
            while (i < rows.size() && items.size() < limit) {
                // decide as many candidates as items are still missing (checked concurrently), then the rest
                int window = Math.min(rows.size() - i, limit - items.size());
                List<Map<String, Object>> decided = decide(table, plan, rows.subList(i, i + window), q, query.consistent());
                int j = 0;
                for (; j < window && items.size() < limit; j++) {
                    if (decided.get(j) != null) {
                        items.add(decided.get(j));
                    }
                }
                i += j;
            }
            if (items.size() >= limit && i < rows.size()) {
                return new Page(items, tokens.encode(new PageToken.Position(fingerprint, state, i)));
            }
            if (nextState == null) {
                return new Page(items, null);
            }
            state = bytes(nextState);
            skip = 0;
            if (items.size() >= limit) {
                return new Page(items, tokens.encode(new PageToken.Position(fingerprint, state, 0)));
            }
        }
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

    private PreparedStatement prepare(TableDef def, Index index, int fixedRanges, Bound lower, Bound upper) {
        List<String> select = new ArrayList<>();
        for (Column c : index.keyColumns()) {
            select.add(c.cqlName());
        }
        for (Column c : index.proj()) {
            select.add(c.cqlName());
        }
        if (!index.perVersion()) {
            select.add(Cql.quote(Index.TID_COLUMN));
            select.add(Cql.quote(Index.DELETED_COLUMN));
        }
        List<String> where = new ArrayList<>();
        for (Column c : index.partitionColumns()) {
            where.add(c.cqlName() + " = ?");
        }
        for (int i = 0; i < fixedRanges; i++) {
            where.add(index.range().get(i).cqlName() + " = ?");
        }
        if (fixedRanges < index.range().size()) {
            String col = index.range().get(fixedRanges).cqlName();
            if (lower != null) {
                where.add(col + " " + lower.op + " ?");
            }
            if (upper != null) {
                where.add(col + " " + upper.op + " ?");
            }
        }
        return session.prepare("SELECT " + String.join(", ", select) + " FROM " + Cql.qualified(def.keyspace(), index.tableName())
                + " WHERE " + String.join(" AND ", where));
    }

    /** Decides a window of index rows: the item for each match, null for each non-match. */
    private List<Map<String, Object>> decide(Catalog.Indexed table, IndexPlan plan, List<Row> rows, UUID q, boolean consistent) {
        Index index = plan.index();
        int keySize = index.keyColumns().size();
        List<CompletableFuture<Map<String, Object>>> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            List<ByteBuffer> key = new ArrayList<>(keySize);
            for (int k = 0; k < keySize; k++) {
                key.add(r.getBytesUnsafe(k));
            }
            Map<String, ByteBuffer> entry = new LinkedHashMap<>();
            List<Column> keyColumns = index.keyColumns();
            for (int k = 0; k < keySize; k++) {
                entry.put(keyColumns.get(k).name(), key.get(k));
            }
            for (int p = 0; p < index.proj().size(); p++) {
                entry.put(index.proj().get(p).name(), r.getBytesUnsafe(keySize + p));
            }
            String tidName = table.definition.tid().name();
            if (index.perVersion()) {
                UUID tid = Tids.uuid(entry.get(tidName));
                if (Tids.compare(tid, q) > 0) {
                    out.add(CompletableFuture.completedFuture(null));
                } else if (!consistent) {
                    out.add(CompletableFuture.completedFuture(item(table, index, entry)));
                } else {
                    out.add(CompletableFuture.supplyAsync(() -> checkVersion(table, plan, key, entry, tid), checks));
                }
                continue;
            }
            UUID tid = r.getUuid(keySize + index.proj().size());
            UUID deleted = r.getUuid(keySize + index.proj().size() + 1);
            if (deleted != null && Tids.compare(deleted, q) <= 0) {
                out.add(CompletableFuture.completedFuture(null));
                continue;
            }
            // An entry deleted after q (an as-of read in the past) is checked against the base: its
            // _deleted can name a later non-matching version than the exact one when a version
            // arrived late, and last-write-wins keeps the later. The base knows; repair cannot help.
            boolean deletedAfterQ = deleted != null;
            boolean claims = tid != null && Tids.compare(tid, q) <= 0 && !deletedAfterQ;
            if (!consistent && claims) {
                entry.put(tidName, tid == null ? null : Tids.bytes(tid));
                out.add(CompletableFuture.completedFuture(item(table, index, entry)));
                continue;
            }
            out.add(CompletableFuture.supplyAsync(() -> checkCurrent(table, plan, key, q, claims, tid), checks));
        }
        List<Map<String, Object>> decided = new ArrayList<>(out.size());
        for (CompletableFuture<Map<String, Object>> f : out) {
            decided.add(f.join());
        }
        return decided;
    }

    /** Base row key (partition key, clustering prefix) of an index entry. */
    private static List<ByteBuffer> rowKey(TableDef def, Index index, List<ByteBuffer> entryKey) {
        List<ByteBuffer> rowKey = new ArrayList<>();
        List<Column> keyColumns = index.keyColumns();
        List<Column> needed = new ArrayList<>(def.partitionKey());
        needed.addAll(def.clusteringPrefix());
        for (Column c : needed) {
            for (int k = 0; k < keyColumns.size(); k++) {
                if (keyColumns.get(k).name().equals(c.name())) {
                    rowKey.add(entryKey.get(k));
                    break;
                }
            }
        }
        return rowKey;
    }

    private Map<String, Object> checkCurrent(Catalog.Indexed table, IndexPlan plan, List<ByteBuffer> key, UUID q, boolean claims, UUID tid) {
        baseChecks.increment();
        List<ByteBuffer> rowKey = rowKey(table.definition, plan.index(), key);
        Versions.Version v = table.base.currentAt(rowKey, q, cl);
        if (v != null && key.equals(table.plan.entryKey(plan, v))) {
            return versionItem(table, plan.index(), v);
        }
        if (claims) {
            falsePositives.increment();
            readRepair(table, rowKey, tid);
        }
        return null;
    }

    private Map<String, Object> checkVersion(Catalog.Indexed table, IndexPlan plan, List<ByteBuffer> key, Map<String, ByteBuffer> entry, UUID tid) {
        baseChecks.increment();
        List<ByteBuffer> rowKey = rowKey(table.definition, plan.index(), key);
        Versions.Version v = table.base.version(rowKey, tid, cl);
        if (v != null && key.equals(table.plan.entryKey(plan, v))) {
            return versionItem(table, plan.index(), v);
        }
        falsePositives.increment();
        return null;
    }

    private void readRepair(Catalog.Indexed table, List<ByteBuffer> rowKey, UUID tid) {
        if (queue == null || tid == null) {
            return;
        }
        TableDef def = table.definition;
        int pkSize = def.partitionKey().size();
        ByteBuffer pk = pkSize == 1 ? rowKey.get(0) : Composite.encode(rowKey.subList(0, pkSize));
        ByteBuffer ck = Composite.encode(rowKey.subList(pkSize, rowKey.size()));
        try {
            queue.enqueue(new QueueStore.Marker(Uuids.timeBased(), def.keyspace(), def.table(), pk, ck, tid, tid, QueueLayout.FLAG_PARTIAL),
                    System.currentTimeMillis(), cl);
            readRepairs.increment();
        } catch (RuntimeException e) {
            // read repair is best effort; check --fix finds what it misses
        }
    }

    /** An item from the index entry: index key, base primary key with the tid, projections. */
    private static Map<String, Object> item(Catalog.Indexed table, Index index, Map<String, ByteBuffer> entry) {
        Map<String, Object> item = new LinkedHashMap<>();
        TableDef def = table.definition;
        for (Map.Entry<String, ByteBuffer> e : entry.entrySet()) {
            if (e.getKey().equals(Index.CONSTANT_COLUMN)) {
                continue;
            }
            item.put(e.getKey(), Values.render(def.type(e.getKey()), e.getValue()));
        }
        return item;
    }

    /** An item from a base version (consistent reads, and eventual reads checked against the base). */
    private static Map<String, Object> versionItem(Catalog.Indexed table, Index index, Versions.Version v) {
        TableDef def = table.definition;
        List<String> names = new ArrayList<>(def.attributes().keySet());
        Map<String, Object> item = new LinkedHashMap<>();
        List<Column> columns = new ArrayList<>(index.hash());
        columns.addAll(index.range());
        columns.addAll(def.primaryKey());
        columns.addAll(index.proj());
        for (Column c : columns) {
            if (!item.containsKey(c.name())) {
                item.put(c.name(), Values.render(c.type(), v.values()[names.indexOf(c.name())]));
            }
        }
        return item;
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    @Override
    public void close() {
        checks.shutdownNow();
    }
}
