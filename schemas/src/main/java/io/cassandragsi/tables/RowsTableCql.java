package io.cassandragsi.tables;

import java.util.UUID;
import io.cassandragsi.index.Tids;

import io.cassandragsi.maintain.PartitionRecords;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Composite;
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
 * The statements of one base table's rows table ({@link RowsLayout}, docs/design.md section 3)
 * and the decoding of what they select, for the driver (the repair service and its jobs) and for
 * Cassandra's internals (the in-node maintainer) alike (docs/design.md section 1). Rows are named by the row
 * key: the partition key, then the clustering columns before the tid.
 *
 * <p>Every select has the columns {@link #record} reads, in its order: the row key, {@code _keys},
 * {@code _w}, the write times of {@code _keys}; then, on a versioned table, {@code _whi},
 * {@code _wlo} and the write time of {@code _whi}; then, for a partition's rows of a table with
 * clustering columns, {@code _pw}; then, where asked, {@code _vkeys} and their write times.
 */
public final class RowsTableCql {
    private final TableDef def;
    private final int rowKeySize;
    private final boolean hasClustering;
    private final boolean newestWrites;
    private final boolean writeId;
    private final boolean versionKeys;
    private final String[] indexNames;
    private final ByteBuffer[] indexNameBytes;
    private final String table;
    private final String whereRow;
    private final String select;
    private final String selectVersionKeys;

    public RowsTableCql(TableDef def) {
        this.def = def;
        this.indexNames = def.indexes().keySet().toArray(new String[0]);
        this.indexNameBytes = new ByteBuffer[indexNames.length];
        for (int i = 0; i < indexNames.length; i++) {
            indexNameBytes[i] = ByteBuffer.wrap(indexNames[i].getBytes(StandardCharsets.UTF_8));
        }
        List<Column> rowKey = RowsLayout.rowKey(def);
        this.rowKeySize = rowKey.size();
        this.hasClustering = !def.clusteringPrefix().isEmpty();
        this.newestWrites = RowsLayout.hasNewestWrites(def);
        this.writeId = RowsLayout.hasWriteId(def);
        this.versionKeys = RowsLayout.hasVersionKeys(def);
        this.table = Cql.qualified(def.keyspace(), RowsLayout.tableName(def.table()));
        String keys = Cql.quote(RowsLayout.KEYS);
        String hi = Cql.quote(RowsLayout.NEWEST_HI);
        this.whereRow = " WHERE " + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.select = "SELECT " + rowKey.stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ", " + keys + ", "
                + Cql.quote(RowsLayout.WRITTEN) + ", WRITETIME(" + keys + ")"
                + (newestWrites ? ", " + hi + ", " + Cql.quote(RowsLayout.NEWEST_LO) + ", WRITETIME(" + hi + ")" : "")
                + (writeId ? ", " + Cql.quote(RowsLayout.WRITE_ID) : "");
        String vkeys = Cql.quote(RowsLayout.VERSION_KEYS);
        this.selectVersionKeys = versionKeys ? ", " + vkeys + ", WRITETIME(" + vkeys + ")" : "";
    }

    public TableDef definition() {
        return def;
    }

    /** The number of row-key values. */
    public int rowKeySize() {
        return rowKeySize;
    }

    /** Where {@link #row} and {@link #partition} select {@code _vkeys} (-1: the table has none). */
    private int rowVersionKeysAt() {
        return versionKeys ? rowKeySize + 3 + extra() : -1;
    }

    /** The columns selected after {@code WRITETIME(_keys)}: {@code _whi}, {@code _wlo} and a write time (versioned), or {@code _wid}. */
    private int extra() {
        return (newestWrites ? 3 : 0) + (writeId ? 1 : 0);
    }

    /** One row's record with its per-version keys; binds the row key. */
    public String row() {
        return select + selectVersionKeys + " FROM " + table + whereRow;
    }

    /** The records of many rows whose row key is one partition-key column (without per-version keys); binds the list, then the limit. */
    public String rowsIn() {
        return rowKeySize == 1 ? select + " FROM " + table + " WHERE " + RowsLayout.rowKey(def).get(0).cqlName() + " IN ? LIMIT ?" : null;
    }

    /** Every row of a partition, with {@code _pw} and the per-version keys; binds the partition key. */
    public String partition() {
        return select + (hasClustering ? ", " + Cql.quote(RowsLayout.PARTITION_WRITTEN) : "") + selectVersionKeys + " FROM " + table
                + " WHERE " + def.partitionKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
    }

    /** Every row whose partition token lies in (start, end] (without per-version keys); binds start, end. */
    public String scan() {
        return select + " FROM " + table + BaseTableCql.tokenRange(def);
    }

    /** The record of a selected row of {@link #row}, or null when nothing recorded it. */
    public RowRecord row(Selected r) {
        return record(r, rowVersionKeysAt());
    }

    /** The record of a selected row of {@link #rowsIn} or {@link #scan}, or null. */
    public RowRecord record(Selected r) {
        return record(r, -1);
    }

    /** The records of a partition's selected rows ({@link #partition}). */
    public PartitionRecords partition(Iterable<? extends Selected> rows) {
        int pwAt = rowKeySize + 3 + extra();
        int vkeysAt = versionKeys ? pwAt + (hasClustering ? 1 : 0) : -1;
        List<RowRecord> out = new ArrayList<>();
        long partitionWritten = Long.MIN_VALUE;
        for (Selected r : rows) {
            if (hasClustering && !r.isNull(pwAt)) {
                partitionWritten = Math.max(partitionWritten, r.bigint(pwAt));
            }
            RowRecord record = record(r, vkeysAt);
            if (record != null) {
                out.add(record);
            }
        }
        return new PartitionRecords(out, partitionWritten);
    }

    /** A row of a records select: null for none, or for a partition's static row alone. */
    private RowRecord record(Selected r, int versionKeysAt) {
        List<ByteBuffer> rowKey = new ArrayList<>(rowKeySize);
        for (int i = 0; i < rowKeySize; i++) {
            ByteBuffer v = r.column(i);
            if (v == null) {
                return null;
            }
            rowKey.add(v);
        }
        Map<String, Map<List<ByteBuffer>, Long>> times = new LinkedHashMap<>();
        Map<String, Set<List<ByteBuffer>>> keys = elements(r.column(rowKeySize), r.column(rowKeySize + 2), times);
        Map<String, Map<List<ByteBuffer>, Long>> byVersion = new LinkedHashMap<>();
        if (versionKeysAt >= 0) {
            elements(r.column(versionKeysAt), r.column(versionKeysAt + 1), byVersion);
        }
        long rewrittenAt = Long.MIN_VALUE;
        if (newestWrites && !r.isNull(rowKeySize + 3) && !r.isNull(rowKeySize + 4)
                && r.bigint(rowKeySize + 3) != RowsLayout.newestLo(r.bigint(rowKeySize + 4))) {
            rewrittenAt = r.bigint(rowKeySize + 5);
        }
        UUID writtenBy = writeId && !r.isNull(rowKeySize + 3) ? Tids.uuid(r.column(rowKeySize + 3)) : null;
        return new RowRecord(rowKey, keys, r.isNull(rowKeySize + 1) ? Long.MIN_VALUE : r.bigint(rowKeySize + 1), times, byVersion, rewrittenAt,
                writtenBy);
    }

    /** The elements of a set of entry keys per index name, with their write times into {@code times}. */
    private Map<String, Set<List<ByteBuffer>>> elements(ByteBuffer set, ByteBuffer writetimes, Map<String, Map<List<ByteBuffer>, Long>> times) {
        Map<String, Set<List<ByteBuffer>>> keys = new LinkedHashMap<>();
        List<ByteBuffer> elements = CollectionBytes.elements(set);
        long[] written = CollectionBytes.bigints(writetimes); // one per element, in the set's order
        for (int i = 0; i < elements.size(); i++) {
            List<ByteBuffer> parts = Composite.decode(elements.get(i));
            String index = indexName(parts.get(0));
            List<ByteBuffer> key = Composite.decode(parts.get(1));
            keys.computeIfAbsent(index, k -> new LinkedHashSet<>()).add(key);
            if (i < written.length) {
                times.computeIfAbsent(index, k -> new LinkedHashMap<>()).put(key, written[i]);
            }
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

    /** {@code UPDATE ... USING TIMESTAMP ? SET column = column + ?} (or {@code -}) of a set column; binds timestamp, elements, row key. */
    public String changeSet(String column, boolean add) {
        String c = Cql.quote(column);
        return "UPDATE " + table + " USING TIMESTAMP ? SET " + c + " = " + c + (add ? " + ?" : " - ?") + whereRow;
    }

    /** {@code UPDATE ... USING TIMESTAMP ? SET _w = ?}; binds timestamp, value, row key. */
    public String setWritten() {
        return "UPDATE " + table + " USING TIMESTAMP ? SET " + Cql.quote(RowsLayout.WRITTEN) + " = ?" + whereRow;
    }
}
