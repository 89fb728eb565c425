package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The rows table of a base table ({@link RowsLayout}, STYLE.md item 2: one class owns its
 * statements): the entry keys each row has had, per index, and for an unversioned table the newest
 * write of the row the trigger saw. Rows are named by the row key: the partition key, then the
 * clustering columns before the tid.
 */
public final class RowsTable {
    private final CqlSession session;
    private final TableDef def;
    private final int rowKeySize;
    private final boolean hasClustering;
    private final PreparedStatement row;
    private final PreparedStatement partition;
    private final PreparedStatement scan;
    private final PreparedStatement addKeys;
    private final PreparedStatement removeKeys;
    private final PreparedStatement setWritten;
    /** The records of many rows at once, where a row is a whole partition (one partition-key column, nothing before the tid). */
    private final PreparedStatement rowsIn;
    /** Adds and removes elements of {@value RowsLayout#VERSION_KEYS} (null: the table has none). */
    private final PreparedStatement addVersionKeys;
    private final PreparedStatement removeVersionKeys;
    /** Where {@code record} and {@code records} find {@value RowsLayout#VERSION_KEYS} and its write times (-1: not read). */
    private final int rowVersionKeys;
    private final int partitionVersionKeys;
    /** Whether selects read {@value RowsLayout#NEWEST_HI} and {@value RowsLayout#NEWEST_LO} (a versioned table's, once schema apply added them). */
    private final boolean newestWrites;
    /** Where a partition's select has {@value RowsLayout#PARTITION_WRITTEN}. */
    private final int partitionWrittenAt;

    /**
     * What the rows table says of one row: its key, the entry keys it has had per index name, the
     * newest write seen (unversioned) or the highest TS a recompute wrote at (versioned), each
     * entry key's write time (on a versioned table, the TS of the newest version that had it), and
     * {@code rewrittenAt}: the TS of the row's newest version when it was written more than once
     * with every indexed attribute, at different timestamps ({@value RowsLayout#NEWEST_HI} and
     * {@value RowsLayout#NEWEST_LO} differ), else Long.MIN_VALUE.
     */
    public record RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written,
            Map<String, Map<List<ByteBuffer>, Long>> keyTimes, Map<String, Map<List<ByteBuffer>, Long>> versionKeys, long rewrittenAt) {
        public RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written) {
            this(rowKey, keys, written, Map.of(), Map.of(), Long.MIN_VALUE);
        }

        /**
         * The entry keys of an index that keeps one entry per version, with their write times
         * (read by {@link RowsTable#record} and {@link RowsTable#records} only).
         */
        public Map<List<ByteBuffer>, Long> versionKeys(String index) {
            return versionKeys.getOrDefault(index, Map.of());
        }

        public Set<List<ByteBuffer>> keys(String index) {
            return keys.getOrDefault(index, Set.of());
        }

        /** The highest write time of the row's entry keys (Long.MIN_VALUE: none known). */
        public long newestKeyTime() {
            long out = Long.MIN_VALUE;
            for (Map<List<ByteBuffer>, Long> times : keyTimes.values()) {
                for (long t : times.values()) {
                    out = Math.max(out, t);
                }
            }
            return out;
        }

        /** The entry keys of one index with their write times. */
        public Map<List<ByteBuffer>, Long> keyTimes(String index) {
            return keyTimes.getOrDefault(index, Map.of());
        }
    }

    /** The records of every row of a partition, and the newest range or partition delete seen (or Long.MIN_VALUE). */
    public record PartitionRecords(List<RowRecord> rows, long partitionWritten) {}

    /** The definition's index names, and their UTF-8 bytes, as elements spell them. */
    private final String[] indexNames;
    private final ByteBuffer[] indexNameBytes;

    public RowsTable(CqlSession session, TableDef def) {
        this.session = session;
        this.def = def;
        this.indexNames = def.indexes().keySet().toArray(new String[0]);
        this.indexNameBytes = new ByteBuffer[indexNames.length];
        for (int i = 0; i < indexNames.length; i++) {
            indexNameBytes[i] = ByteBuffer.wrap(indexNames[i].getBytes(StandardCharsets.UTF_8));
        }
        List<Column> rowKey = RowsLayout.rowKey(def);
        this.rowKeySize = rowKey.size();
        this.hasClustering = !def.clusteringPrefix().isEmpty();
        String rows = Cql.qualified(def.keyspace(), RowsLayout.tableName(def.table()));
        String keys = Cql.quote(RowsLayout.KEYS);
        String written = Cql.quote(RowsLayout.WRITTEN);
        String key = rowKey.stream().map(Column::cqlName).collect(Collectors.joining(", "));
        String whereRow = " WHERE " + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        String wherePartition = " WHERE " + def.partitionKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        // every select has the columns recordOf reads, in its order: row key, keys, newest write, the keys' write times
        // then, on a versioned table, the newest version's latest and earliest write and its TS
        this.newestWrites = RowsLayout.hasNewestWrites(def) && hasColumn(session, def, RowsLayout.NEWEST_HI);
        String hi = Cql.quote(RowsLayout.NEWEST_HI);
        String select = "SELECT " + key + ", " + keys + ", " + written + ", WRITETIME(" + keys + ")"
                + (newestWrites ? ", " + hi + ", " + Cql.quote(RowsLayout.NEWEST_LO) + ", WRITETIME(" + hi + ")" : "");
        int extra = newestWrites ? 3 : 0;
        this.partitionWrittenAt = rowKeySize + 3 + extra;
        // only a recompute reads the keys of per-version indexes (record, records), not every sibling diff
        boolean versionKeys = RowsLayout.hasVersionKeys(def) && hasColumn(session, def, RowsLayout.VERSION_KEYS);
        String vkeys = Cql.quote(RowsLayout.VERSION_KEYS);
        String selectVersionKeys = versionKeys ? ", " + vkeys + ", WRITETIME(" + vkeys + ")" : "";
        this.rowVersionKeys = versionKeys ? rowKeySize + 3 + extra : -1;
        this.partitionVersionKeys = versionKeys ? rowKeySize + (hasClustering ? 4 : 3) + extra : -1;
        this.row = session.prepare(select + selectVersionKeys + " FROM " + rows + whereRow);
        this.partition = session.prepare(select + (hasClustering ? ", " + Cql.quote(RowsLayout.PARTITION_WRITTEN) : "") + selectVersionKeys
                + " FROM " + rows + wherePartition);
        this.addVersionKeys = versionKeys ? session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + vkeys + " = " + vkeys + " + ?" + whereRow)
                : null;
        this.removeVersionKeys = versionKeys
                ? session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + vkeys + " = " + vkeys + " - ?" + whereRow) : null;
        this.scan = session.prepare(select + " FROM " + rows + tokenRange(def));
        this.addKeys = session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + keys + " = " + keys + " + ?" + whereRow);
        this.removeKeys = session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + keys + " = " + keys + " - ?" + whereRow);
        this.rowsIn = rowKey.size() == 1 ? session.prepare(select + " FROM " + rows + " WHERE " + rowKey.get(0).cqlName() + " IN ? LIMIT ?") : null;
        this.setWritten = session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + written + " = ?" + whereRow);
    }

    private static boolean hasColumn(CqlSession session, TableDef def, String column) {
        return session.getMetadata().getKeyspace(Cql.quote(def.keyspace()))
                .flatMap(k -> k.getTable(Cql.quote(RowsLayout.tableName(def.table()))))
                .flatMap(t -> t.getColumn(Cql.quote(column))).isPresent();
    }

    /** {@code WHERE token(partition key) > ? AND token(partition key) <= ?} for the table's partition key. */
    static String tokenRange(TableDef def) {
        String token = "token(" + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        return " WHERE " + token + " > ? AND " + token + " <= ?";
    }

    private static BoundStatementBuilder bindKey(PreparedStatement ps, List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = ps.boundStatementBuilder();
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(i, key.get(i).duplicate());
        }
        return b.setConsistencyLevel(cl).setPageSize(1000);
    }

    /** The record of one row, or null when nothing recorded it. */
    public RowRecord record(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        return recordOf(session.execute(bindKey(row, rowKey, cl).build()).one(), rowVersionKeys);
    }

    /** The record of one row with each entry key's write time, read asynchronously (null when nothing recorded it). */
    public java.util.concurrent.CompletionStage<RowRecord> recordAsync(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        return session.executeAsync(bindKey(row, rowKey, cl).setIdempotence(true).build()).thenApply(rs -> recordOf(rs.one()));
    }

    /**
     * The records, with each entry key's write time, of up to 50 rows whose row key is one
     * partition-key column, with one query (rows nothing recorded are left out), by that key.
     */
    public java.util.concurrent.CompletionStage<Map<ByteBuffer, RowRecord>> recordsAsync(List<ByteBuffer> keys, ConsistencyLevel cl) {
        if (rowsIn == null) {
            throw new IllegalStateException(def.qualifiedName() + ": its rows table cannot read many rows in one query");
        }
        var stmt = rowsIn.boundStatementBuilder().setBytesUnsafe(0, BaseTable.inList(session, keys))
                .setInt(1, keys.size()).setPageSize(keys.size() + 1).setConsistencyLevel(cl).setIdempotence(true).build();
        return session.executeAsync(stmt).thenApply(rs -> {
            Map<ByteBuffer, RowRecord> out = new java.util.HashMap<>();
            for (Row r : rs.currentPage()) {
                RowRecord record = recordOf(r);
                if (record != null) {
                    out.put(record.rowKey().get(0), record);
                }
            }
            return out;
        });
    }

    /**
     * Versioned tables: records that a recompute wrote index cells at timestamps up to {@code ts}
     * (kept as the greatest). A version whose TS is not above it cannot be diffed: its writes at
     * their own TS could lose to those cells.
     */
    public void recordRecompute(List<ByteBuffer> rowKey, long ts, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        BoundStatementBuilder b = setWritten.boundStatementBuilder().setLong(0, ts).setLong(1, ts);
        for (int i = 0; i < rowKey.size(); i++) {
            b.setBytesUnsafe(2 + i, rowKey.get(i).duplicate());
        }
        session.execute(b.setConsistencyLevel(cl).setIdempotence(true).build());
    }

    /** The records of every row of a partition, with each entry key's write time. */
    public PartitionRecords records(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        List<RowRecord> out = new ArrayList<>();
        long partitionWritten = Long.MIN_VALUE;
        for (Row r : session.execute(bindKey(partition, partitionKey, cl).build())) {
            if (hasClustering && !r.isNull(partitionWrittenAt)) {
                partitionWritten = Math.max(partitionWritten, r.getLong(partitionWrittenAt));
            }
            RowRecord record = recordOf(r, partitionVersionKeys);
            if (record != null) {
                out.add(record);
            }
        }
        return new PartitionRecords(out, partitionWritten);
    }

    /** The records of every row whose partition token lies in (start, end]. */
    public List<RowRecord> scan(long start, long end, int pageSize, ConsistencyLevel cl) {
        List<RowRecord> out = new ArrayList<>();
        for (Row r : session.execute(scan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            RowRecord record = recordOf(r);
            if (record != null) {
                out.add(record);
            }
        }
        return out;
    }

    /**
     * A row of a records select (row key, keys, newest write, the keys' write times): null for none,
     * or for a partition's static row alone.
     */
    private RowRecord recordOf(Row r) {
        return recordOf(r, -1);
    }

    /** As above; {@code versionKeysAt}: where the select has {@value RowsLayout#VERSION_KEYS} and its write times (-1: none). */
    private RowRecord recordOf(Row r, int versionKeysAt) {
        if (r == null) {
            return null;
        }
        List<ByteBuffer> rowKey = new ArrayList<>(rowKeySize);
        for (int i = 0; i < rowKeySize; i++) {
            ByteBuffer v = r.getBytesUnsafe(i);
            if (v == null) {
                return null;
            }
            rowKey.add(v);
        }
        Map<String, Map<List<ByteBuffer>, Long>> times = new LinkedHashMap<>();
        Map<String, Set<List<ByteBuffer>>> keys = elements(r, rowKeySize, rowKeySize + 2, times);
        Map<String, Map<List<ByteBuffer>, Long>> versionKeys = new LinkedHashMap<>();
        if (versionKeysAt >= 0) {
            elements(r, versionKeysAt, versionKeysAt + 1, versionKeys);
        }
        long rewrittenAt = Long.MIN_VALUE;
        if (newestWrites && !r.isNull(rowKeySize + 3) && !r.isNull(rowKeySize + 4)
                && r.getLong(rowKeySize + 3) != RowsLayout.newestLo(r.getLong(rowKeySize + 4))) {
            rewrittenAt = r.getLong(rowKeySize + 5);
        }
        return new RowRecord(rowKey, keys, r.isNull(rowKeySize + 1) ? Long.MIN_VALUE : r.getLong(rowKeySize + 1), times, versionKeys,
                rewrittenAt);
    }

    private static final com.datastax.oss.driver.api.core.type.codec.TypeCodec<Set<ByteBuffer>> SET_OF_BLOB =
            com.datastax.oss.driver.api.core.type.codec.TypeCodecs.setOf(com.datastax.oss.driver.api.core.type.codec.TypeCodecs.BLOB);
    private static final com.datastax.oss.driver.api.core.type.codec.TypeCodec<List<Long>> LIST_OF_BIGINT =
            com.datastax.oss.driver.api.core.type.codec.TypeCodecs.listOf(com.datastax.oss.driver.api.core.type.codec.TypeCodecs.BIGINT);

    /**
     * The elements of a set of entry keys (column {@code at}) per index name, with their write times
     * (column {@code timesAt}) into {@code times}. Every diff marker reads a record, so this decodes
     * with fixed codecs (not the driver's registry lookup per column) and names indexes without a
     * string decode per element.
     */
    private Map<String, Set<List<ByteBuffer>>> elements(Row r, int at, int timesAt, Map<String, Map<List<ByteBuffer>, Long>> times) {
        Map<String, Set<List<ByteBuffer>>> keys = new LinkedHashMap<>();
        List<Long> written = LIST_OF_BIGINT.decode(r.getBytesUnsafe(timesAt), r.protocolVersion()); // one per element, in the set's order
        Set<ByteBuffer> elements = SET_OF_BLOB.decode(r.getBytesUnsafe(at), r.protocolVersion());
        if (elements == null) {
            return keys;
        }
        int i = 0;
        for (ByteBuffer e : elements) {
            List<ByteBuffer> parts = Composite.decode(e);
            String index = indexName(parts.get(0));
            List<ByteBuffer> key = Composite.decode(parts.get(1));
            keys.computeIfAbsent(index, k -> new LinkedHashSet<>()).add(key);
            if (written != null && i < written.size()) {
                times.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(key, written.get(i));
            }
            i++;
        }
        return keys;
    }

    /** The index name an element's first part spells: one of the definition's, else decoded. */
    private String indexName(ByteBuffer utf8) {
        for (int i = 0; i < indexNameBytes.length; i++) {
            if (indexNameBytes[i].equals(utf8)) {
                return indexNames[i];
            }
        }
        return StandardCharsets.UTF_8.decode(utf8.duplicate()).toString();
    }

    /** True when this rows table records the entry keys of per-version indexes ({@value RowsLayout#VERSION_KEYS}). */
    public boolean recordsVersionKeys() {
        return addVersionKeys != null;
    }

    /** The statement that records entry keys of per-version indexes (per index name) at {@code timestampMicros}, or null for none. */
    public com.datastax.oss.driver.api.core.cql.Statement<?> addVersionKeys(List<ByteBuffer> rowKey,
            Map<String, ? extends java.util.Collection<List<ByteBuffer>>> keys, long timestampMicros, ConsistencyLevel cl) {
        Set<ByteBuffer> elements = new LinkedHashSet<>();
        keys.forEach((index, list) -> list.forEach(key -> elements.add(element(index, key))));
        if (elements.isEmpty() || addVersionKeys == null) {
            return null;
        }
        return bindElements(addVersionKeys, timestampMicros, elements, rowKey).setConsistencyLevel(cl).setIdempotence(true).build();
    }

    /**
     * The statements that record the keys of the per-version entries among {@code writes} (as a
     * rebuild or a fix writes them, at their versions' TS), as the trigger does: one per TS.
     */
    public List<com.datastax.oss.driver.api.core.cql.Statement<?>> versionKeysOf(List<ByteBuffer> rowKey,
            List<io.cassandragsi.index.TablePlan.IndexWrite> writes, ConsistencyLevel cl) {
        List<com.datastax.oss.driver.api.core.cql.Statement<?>> out = new ArrayList<>();
        if (addVersionKeys == null) {
            return out;
        }
        Map<Long, Set<ByteBuffer>> byTime = new java.util.TreeMap<>();
        for (io.cassandragsi.index.TablePlan.IndexWrite w : writes) {
            if (w instanceof io.cassandragsi.index.TablePlan.Upsert && w.index().perVersion()) {
                byTime.computeIfAbsent(w.timestamp(), t -> new LinkedHashSet<>()).add(element(w.index().index().name(), w.key()));
            }
        }
        byTime.forEach((t, elements) -> out.add(bindElements(addVersionKeys, t, elements, rowKey).setConsistencyLevel(cl).setIdempotence(true).build()));
        return out;
    }

    /** The statements that forget entry keys of per-version indexes, like {@link #forgetKeys}. */
    public List<com.datastax.oss.driver.api.core.cql.Statement<?>> forgetVersionKeys(List<ByteBuffer> rowKey,
            Map<String, Map<List<ByteBuffer>, Long>> keys, ConsistencyLevel cl) {
        return removeVersionKeys == null ? List.of() : removals(removeVersionKeys, rowKey, keys, cl);
    }

    /**
     * The statements that make the rows table forget entry keys of {@value RowsLayout#KEYS} (per
     * index name, each with the write time it was read with), each at its own write time, so
     * that it shadows only the writes that recorded it then, not a later one.
     */
    public List<com.datastax.oss.driver.api.core.cql.Statement<?>> forgetKeys(List<ByteBuffer> rowKey, Map<String, Map<List<ByteBuffer>, Long>> keys,
            ConsistencyLevel cl) {
        return removals(removeKeys, rowKey, keys, cl);
    }

    private List<com.datastax.oss.driver.api.core.cql.Statement<?>> removals(PreparedStatement ps, List<ByteBuffer> rowKey,
            Map<String, Map<List<ByteBuffer>, Long>> keys, ConsistencyLevel cl) {
        Map<Long, Set<ByteBuffer>> byTime = new java.util.TreeMap<>();
        keys.forEach((index, times) -> times.forEach((key, t) -> byTime.computeIfAbsent(t, x -> new LinkedHashSet<>()).add(element(index, key))));
        List<com.datastax.oss.driver.api.core.cql.Statement<?>> out = new ArrayList<>(byTime.size());
        byTime.forEach((t, elements) -> out.add(bindElements(ps, t, elements, rowKey).setConsistencyLevel(cl).setIdempotence(true).build()));
        return out;
    }

    private BoundStatementBuilder bindElements(PreparedStatement ps, long timestamp, Set<ByteBuffer> elements, List<ByteBuffer> rowKey) {
        checkRowKey(rowKey);
        BoundStatementBuilder b = ps.boundStatementBuilder().setLong(0, timestamp).setSet(1, elements, ByteBuffer.class);
        for (int i = 0; i < rowKey.size(); i++) {
            b.setBytesUnsafe(2 + i, rowKey.get(i).duplicate());
        }
        return b;
    }

    /** A record for a row the rows table does not know. */
    public static RowRecord none(List<ByteBuffer> rowKey) {
        return new RowRecord(rowKey, Map.of(), Long.MIN_VALUE);
    }

    /** Records entry keys for a row before their entries are written, so that a later repair finds them. */
    public void addKeys(List<ByteBuffer> rowKey, Map<String, ? extends java.util.Collection<List<ByteBuffer>>> keys, long timestampMicros,
            ConsistencyLevel cl) {
        Set<ByteBuffer> elements = new LinkedHashSet<>();
        keys.forEach((index, list) -> list.forEach(key -> elements.add(element(index, key))));
        if (elements.isEmpty()) {
            return;
        }
        session.execute(bindElements(addKeys, timestampMicros, elements, rowKey).setConsistencyLevel(cl).setIdempotence(true).build());
    }

    /** The rows table's element for an entry key: as the trigger writes it. */
    public static ByteBuffer element(String index, List<ByteBuffer> key) {
        return RowsLayout.element(index, key);
    }

    private void checkRowKey(List<ByteBuffer> rowKey) {
        if (rowKey.size() != rowKeySize) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs " + rowKeySize);
        }
    }
}
