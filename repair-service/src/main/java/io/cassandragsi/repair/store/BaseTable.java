package io.cassandragsi.repair.store;

import io.cassandragsi.maintain.Version;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.check.RowScans;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import io.cassandragsi.tables.BaseTableCql;
import io.cassandragsi.tables.CollectionBytes;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Reads of one versioned base table (docs/design.md section 1: one class owns one table's statements).
 * A versioned row is named by its partition key and the clustering prefix before the tid; its
 * versions are the rows that differ in the tid.
 */
public final class BaseTable {
    private final CqlSession session;
    private final TableDef def;
    private final BaseTableCql cql;
    private final int tidAttribute;
    private final PreparedStatement after;
    private final PreparedStatement downFrom;
    private final PreparedStatement partition;
    /** Every version of one row, and every version in a token range (versioned tables). */
    private final PreparedStatement allVersions;
    private final PreparedStatement scan;
    private final PreparedStatement newestInPartitions;
    private final int partitionKeyAttribute;
    private final String whereRow;

    /**
     * Rows asked for in one {@code IN} query at most. A node reads the partitions of one query one
     * after another, so a larger check is split evenly and its queries run side by side. Measured
     * with {@code ./gsi bench read} (one run, consistent reads of LIMIT 100 over 1,400 matches,
     * p50): queries of at most 5 rows 2.92 ms, 10 rows 2.64, 25 rows 2.36, 50 rows 2.28.
     */
    public static final int ROWS_PER_QUERY = 50;

    /** The maintenance statements are {@link BaseTableCql}'s; the read path's checks ({@link Checks}) are this class's. */
    public BaseTable(CqlSession session, BaseTableCql cql) {
        this.session = session;
        this.cql = cql;
        this.def = cql.definition();
        this.tidAttribute = cql.tidAttribute();
        List<Column> rowKey = RowsLayout.rowKey(def);
        this.whereRow = " WHERE " + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        if (def.versioned()) {
            this.after = session.prepare(cql.versionAfter());
            this.downFrom = session.prepare(cql.versionsDownFrom());
            this.allVersions = session.prepare(cql.versionsOfRow());
            this.partition = session.prepare(cql.versionsOfPartition());
            this.scan = session.prepare(cql.versionsScan());
        } else {
            // an unversioned table has one version, the current row: its maintenance reads are UnversionedRows'
            this.after = null;
            this.downFrom = null;
            this.allVersions = null;
            this.partition = null;
            this.scan = null;
        }
        this.newestInPartitions = cql.newestIn() == null ? null : session.prepare(cql.newestIn());
        this.partitionKeyAttribute = cql.partitionKeyAttribute();
    }

    /** A select of some attributes, and its rows read as versions whose other attributes are not known. */
    private final class Selection {
        final String select;
        private final int[] positions;
        private final BitSet known;

        Selection(List<String> attributes) {
            List<String> all = new ArrayList<>(def.attributes().keySet());
            this.positions = attributes.stream().mapToInt(all::indexOf).toArray();
            this.known = new BitSet(all.size());
            for (int p : positions) {
                known.set(p);
            }
            this.select = select(attributes);
        }

        Version version(Row row) {
            return Versions.of(row, def.attributes().size(), tidAttribute, positions, known);
        }
    }

    private String select(List<String> attributes) {
        return "SELECT " + attributes.stream().map(Cql::quote).collect(Collectors.joining(", ")) + " FROM "
                + Cql.qualified(def.keyspace(), def.table());
    }

    /** Whether {@link #newestAsync} can read many rows at once. */
    public boolean readsManyNewest() {
        return newestInPartitions != null;
    }

    /**
     * The newest {@code perPartition} versions of up to {@value #ROWS_PER_QUERY} rows, newest first,
     * by partition key, with one query (rows without versions are left out); of each version only
     * the row key, the tid and the indexes' key attributes (the others are not known: enough for a
     * diff's marks, not for its entries). Only where {@link
     * #readsManyNewest}: a single partition-key column, no clustering before the tid, tids stored
     * descending. Its LIMIT fits in its page, so the node runs it without a pager.
     */
    public CompletableFuture<Map<ByteBuffer, List<Version>>> newestAsync(List<ByteBuffer> partitionKeys, int perPartition,
            ConsistencyLevel cl) {
        if (newestInPartitions == null) {
            throw new IllegalStateException(def.qualifiedName() + " cannot read many rows in one query");
        }
        if (partitionKeys.size() > ROWS_PER_QUERY) {
            throw new IllegalArgumentException(partitionKeys.size() + " rows asked for, at most " + ROWS_PER_QUERY + " per query");
        }
        int limit = partitionKeys.size() * perPartition;
        BoundStatement stmt = newestInPartitions.boundStatementBuilder().setBytesUnsafe(0, CollectionBytes.of(partitionKeys))
                .setInt(1, perPartition).setInt(2, limit).setConsistencyLevel(cl).setPageSize(limit + 1).setIdempotence(true).build();
        return fetchAsync(stmt, v -> false, r -> cql.newest(r::getBytesUnsafe))
                .thenApply(found -> {
                    Map<ByteBuffer, List<Version>> out = new HashMap<>();
                    for (Version v : found) {
                        out.computeIfAbsent(v.values()[partitionKeyAttribute], k -> new ArrayList<>(perPartition)).add(v);
                    }
                    return out;
                });
    }

    private BoundStatement bind(PreparedStatement ps, List<ByteBuffer> rowKey, ConsistencyLevel cl, UUID... tids) {
        return bind(ps, rowKey, cl, 1000, tids);
    }

    private BoundStatement bind(PreparedStatement ps, List<ByteBuffer> rowKey, ConsistencyLevel cl, int pageSize, UUID... tids) {
        if (rowKey.size() != cql.rowKeyAttributes().length) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs " + cql.rowKeyAttributes().length);
        }
        BoundStatementBuilder b = ps.boundStatementBuilder();
        int i = 0;
        for (ByteBuffer v : rowKey) {
            b.setBytesUnsafe(i++, v.duplicate());
        }
        for (UUID t : tids) {
            b.setUuid(i++, t);
        }
        return b.setConsistencyLevel(cl).setPageSize(pageSize).build();
    }

    /**
     * The versions a sibling diff of tids [min, max] needs, ascending: the one before min, all in
     * [min, max], and the one after max. Exact: every consecutive pair that involves a version in
     * the range is in the list.
     */
    public List<Version> neighbourhood(List<ByteBuffer> rowKey, UUID min, UUID max, ConsistencyLevel cl) {
        // newest first from max down to the first version before min (pages of a marker's usual
        // size: one version and its predecessor), and the one after max, side by side
        int page = min.equals(max) ? 2 : 16;
        var pUpTo = fetchAsync(bind(downFrom, rowKey, cl, page, max), v -> Tids.compare(v.tid(), min) < 0, this::complete);
        var pAfter = fetchAsync(bind(after, rowKey, cl, max));
        List<Version> out = new ArrayList<>(pUpTo.join());
        out.sort(Version.ASCENDING);
        out.addAll(pAfter.join());
        return out;
    }

    /** All rows of a statement (every page), asynchronously. */
    private CompletableFuture<List<Version>> fetchAsync(BoundStatement stmt) {
        return fetchAsync(stmt, v -> false, this::complete);
    }

    /** The rows of a statement up to and including the first that {@code last} accepts, asynchronously. */
    private CompletableFuture<List<Version>> fetchAsync(BoundStatement stmt, Predicate<Version> last,
            Function<Row, Version> decode) {
        List<Version> out = new ArrayList<>();
        return session.executeAsync(stmt).toCompletableFuture().thenCompose(rs -> collect(rs, out, last, decode));
    }

    /** A row of a statement that selects every attribute, in definition order. */
    private Version complete(Row row) {
        return cql.version(row::getBytesUnsafe);
    }

    private CompletableFuture<List<Version>> collect(com.datastax.oss.driver.api.core.cql.AsyncResultSet rs,
            List<Version> out, Predicate<Version> last, Function<Row, Version> decode) {
        for (Row row : rs.currentPage()) {
            Version v = decode.apply(row);
            out.add(v);
            if (last.test(v)) {
                return CompletableFuture.completedFuture(out);
            }
        }
        if (rs.hasMorePages()) {
            return rs.fetchNextPage().toCompletableFuture().thenCompose(next -> collect(next, out, last, decode));
        }
        return CompletableFuture.completedFuture(out);
    }

    /**
     * The attributes a check of {@code index}'s candidates reads, in definition order: the base key
     * with its tid, and the index's key and projected attributes. A consistent read reads no more
     * of a base row than these: the table's other columns can be large.
     */
    public static List<String> checkAttributes(TableDef def, Index index) {
        Set<String> needed = new HashSet<>();
        RowsLayout.rowKey(def).forEach(c -> needed.add(c.name()));
        if (def.versioned()) {
            needed.add(def.tid().name());
        }
        index.hash().forEach(c -> needed.add(c.name()));
        index.range().forEach(c -> needed.add(c.name()));
        index.proj().forEach(c -> needed.add(c.name()));
        return def.attributes().keySet().stream().filter(needed::contains).toList();
    }

    /**
     * The checks of one index's candidates, reading {@link #checkAttributes} only; prepares its
     * statements. The one place the checks look at the table's kind: a versioned table's keep
     * every version, an unversioned table's read its current row.
     */
    public Checks checks(Index index) {
        List<String> attributes = checkAttributes(def, index);
        return def.versioned() ? new VersionChecks(attributes) : new CurrentRowChecks(attributes);
    }

    /**
     * Reads of the base versions that a read checks index entries against, of the attributes one
     * index needs: its versions are complete for that index only ({@link Version#known}).
     * Asynchronous (reads check many candidates at once); safe to call from a driver thread.
     */
    public abstract sealed class Checks permits VersionChecks, CurrentRowChecks {
        final Selection selection;

        private Checks(List<String> attributes) {
            this.selection = new Selection(attributes);
        }

        /**
         * The version current at tid {@code q}: the one with the greatest tid not after q, or null. On
         * an unversioned table the current row, whatever q.
         */
        public abstract CompletableFuture<Version> currentAtAsync(List<ByteBuffer> rowKey, UUID q, ConsistencyLevel cl);

        /** Whether {@link #currentAtAllAsync} can ask for many rows at once. */
        public abstract boolean readsManyCurrent();

        /**
         * The versions current at {@code q} of up to {@value BaseTable#ROWS_PER_QUERY} rows, in the order of
         * {@code rowKeys} (null where a row has none), with one query. Only where {@link #readsManyCurrent}.
         */
        public abstract CompletableFuture<List<Version>> currentAtAllAsync(List<List<ByteBuffer>> rowKeys, UUID q, ConsistencyLevel cl);

        /** A window read's versions, newest first: those after {@code from} up to {@code upTo}, then the one current at {@code from}. */
        public abstract CompletableFuture<List<Version>> windowAsync(List<ByteBuffer> rowKey, UUID from, UUID upTo, ConsistencyLevel cl);

        /** The version with exactly this tid, or null. */
        public abstract CompletableFuture<Version> versionAsync(List<ByteBuffer> rowKey, UUID tid, ConsistencyLevel cl);

        /** The first row of a statement that selects at most one, read with one request. */
        CompletableFuture<Version> first(BoundStatement stmt) {
            return session.executeAsync(stmt).toCompletableFuture().thenApply(rs -> {
                Row row = rs.one();
                return row == null ? null : selection.version(row);
            });
        }
    }

    /** The checks of a versioned table: the version current at a tid, a window's versions, one version by its tid. */
    private final class VersionChecks extends Checks {
        private final PreparedStatement exact;
        private final PreparedStatement atOrBefore;
        /** Versions newest first from a tid down (window reads). */
        private final PreparedStatement downFrom;
        /** The newest version at or before a tid in each of several rows, or null: see {@link #currentAtAllAsync}. */
        private final PreparedStatement currentInPartitions;

        private VersionChecks(List<String> attributes) {
            super(attributes);
            String select = selection.select;
            String tid = Cql.quote(def.tid().name());
            this.exact = session.prepare(select + whereRow + " AND " + tid + " = ? LIMIT 1");
            this.downFrom = session.prepare(select + whereRow + " AND " + tid + " <= ?" + cql.orderBy(false));
            this.atOrBefore = session.prepare(select + whereRow + " AND " + tid + " <= ?" + cql.orderBy(false) + " LIMIT 1");
            // The first row of each partition at or before q is the version current at q (oneRowPerPartition).
            // Its LIMIT (the number of partitions asked for) fits in its page, so the node runs it
            // without a pager, which would read the partitions one page each (same run, consistent
            // reads of LIMIT 10 over 1,400 matches: 1.35 ms p50 with the pager, 0.73 without).
            this.currentInPartitions = cql.oneRowPerPartition()
                    ? session.prepare(select + " WHERE " + def.partitionKey().get(0).cqlName() + " IN ? AND " + tid
                            + " <= ? PER PARTITION LIMIT 1 LIMIT ?")
                    : null;
        }

        @Override
        public CompletableFuture<Version> currentAtAsync(List<ByteBuffer> rowKey, UUID q, ConsistencyLevel cl) {
            return first(bind(atOrBefore, rowKey, cl, 1, q));
        }

        /** A single partition-key column, no clustering before the tid, tids stored descending. */
        @Override
        public boolean readsManyCurrent() {
            return currentInPartitions != null;
        }

        @Override
        public CompletableFuture<List<Version>> currentAtAllAsync(List<List<ByteBuffer>> rowKeys, UUID q, ConsistencyLevel cl) {
            if (currentInPartitions == null) {
                throw new IllegalStateException(def.qualifiedName() + " cannot read many rows in one query");
            }
            if (rowKeys.size() > ROWS_PER_QUERY) {
                throw new IllegalArgumentException(rowKeys.size() + " rows asked for, at most " + ROWS_PER_QUERY + " per query");
            }
            List<ByteBuffer> keys = new ArrayList<>(rowKeys.size());
            for (List<ByteBuffer> rowKey : rowKeys) {
                if (rowKey.size() != 1) {
                    throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs 1");
                }
                keys.add(rowKey.get(0));
            }
            BoundStatement stmt = currentInPartitions.boundStatementBuilder().setBytesUnsafe(0, CollectionBytes.of(keys))
                    .setUuid(1, q).setInt(2, rowKeys.size()).setConsistencyLevel(cl).setPageSize(rowKeys.size() + 1).build();
            return fetchAsync(stmt, v -> false, selection::version).thenApply(found -> {
                Map<ByteBuffer, Version> byKey = new HashMap<>();
                for (Version v : found) {
                    byKey.put(v.values()[partitionKeyAttribute], v);
                }
                List<Version> out = new ArrayList<>(rowKeys.size());
                for (List<ByteBuffer> rowKey : rowKeys) {
                    out.add(byKey.get(rowKey.get(0)));
                }
                return out;
            });
        }

        @Override
        public CompletableFuture<List<Version>> windowAsync(List<ByteBuffer> rowKey, UUID from, UUID upTo, ConsistencyLevel cl) {
            return fetchAsync(bind(downFrom, rowKey, cl, 16, upTo), v -> Tids.compare(v.tid(), from) <= 0, selection::version);
        }

        @Override
        public CompletableFuture<Version> versionAsync(List<ByteBuffer> rowKey, UUID tid, ConsistencyLevel cl) {
            return first(bind(exact, rowKey, cl, 1, tid));
        }
    }

    /**
     * The checks of an unversioned table: the base keeps only the current row, so every check reads
     * it (consistent reads are as of now; the read kind refuses the others, docs/design.md section 8.2).
     */
    private final class CurrentRowChecks extends Checks {
        private final PreparedStatement current;

        private CurrentRowChecks(List<String> attributes) {
            super(attributes);
            this.current = session.prepare(selection.select + whereRow + " LIMIT 1");
        }

        /** The current row, whatever q. */
        @Override
        public CompletableFuture<Version> currentAtAsync(List<ByteBuffer> rowKey, UUID q, ConsistencyLevel cl) {
            return first(bind(current, rowKey, cl, 1));
        }

        @Override
        public boolean readsManyCurrent() {
            return false;
        }

        @Override
        public CompletableFuture<List<Version>> currentAtAllAsync(List<List<ByteBuffer>> rowKeys, UUID q, ConsistencyLevel cl) {
            throw new IllegalStateException(def.qualifiedName() + " cannot read many rows in one query");
        }

        @Override
        public CompletableFuture<List<Version>> windowAsync(List<ByteBuffer> rowKey, UUID from, UUID upTo, ConsistencyLevel cl) {
            throw new IllegalStateException(def.qualifiedName() + " is unversioned: it keeps no versions to read a window of");
        }

        @Override
        public CompletableFuture<Version> versionAsync(List<ByteBuffer> rowKey, UUID tid, ConsistencyLevel cl) {
            throw new IllegalStateException(def.qualifiedName() + " is unversioned: it keeps no versions to read by tid");
        }
    }

    /** Every version of one row, ascending (all pages). */
    public CompletableFuture<List<Version>> versionsAsync(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        return fetchAsync(bind(allVersions, rowKey, cl)).thenApply(all -> {
            all.sort(Version.ASCENDING);
            return all;
        });
    }

    /**
     * Streams every row whose partition token lies in {@code (start, end]}, one versioned row at a
     * time with all its versions (they share the partition and the clustering prefix, so they
     * arrive together); false when {@code stop} said so before the range was exhausted.
     */
    public boolean scan(long start, long end, int pageSize, ConsistencyLevel cl, RowScans.RowConsumer<RowHistory.Versions> consumer,
            BooleanSupplier stop) throws InterruptedException {
        List<Version> row = new ArrayList<>();
        List<ByteBuffer> rowKey = null;
        for (Row r : session.execute(scan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            Version v = cql.version(r::getBytesUnsafe);
            List<ByteBuffer> key = rowKey(v);
            if (rowKey != null && !key.equals(rowKey)) {
                if (stop.getAsBoolean()) {
                    return false;
                }
                consumer.accept(new RowHistory.Versions(rowKey, row));
                row = new ArrayList<>();
            }
            rowKey = key;
            row.add(v);
        }
        if (rowKey != null) {
            if (stop.getAsBoolean()) {
                return false;
            }
            consumer.accept(new RowHistory.Versions(rowKey, row));
        }
        return true;
    }

    /** Every version of every row in one partition, grouped by row (prefix), each ascending. */
    public List<List<Version>> partition(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        BoundStatementBuilder b = partition.boundStatementBuilder();
        for (int i = 0; i < partitionKey.size(); i++) {
            b.setBytesUnsafe(i, partitionKey.get(i).duplicate());
        }
        return cql.groupRows(fetchAsync(b.setConsistencyLevel(cl).setPageSize(1000).build()).join());
    }

    /** Partition key values then clustering prefix values of a version. */
    public List<ByteBuffer> rowKey(Version v) {
        return cql.rowKey(v);
    }
}
