package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.Composite;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.RowReconcile.BaseCell;
import io.cassandragsi.index.TablePlan;
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
 * The reads an unversioned table's repair needs (STYLE.md item 2: one class owns its statements):
 * the base row as Cassandra holds it now, with each indexed cell's write time and remaining TTL,
 * and the table's rows table ({@link RowsLayout}): the entry keys each row has had and the newest
 * write the trigger saw.
 */
public final class UnversionedRows {
    private final CqlSession session;
    private final TableDef def;
    /** Regular attributes some index keys on or projects, by attribute position. */
    private final int[] indexed;
    private final int attributes;
    private final int[] primaryKey;
    private final PreparedStatement baseRow;
    private final PreparedStatement basePartition;
    private final PreparedStatement rowsRow;
    private final PreparedStatement rowsPartition;
    private final PreparedStatement addKeys;
    private final PreparedStatement baseScan;
    private final PreparedStatement recordsScan;
    private final int rowKeySize;
    private final boolean hasClustering;

    /** What the rows table says of one row: its key, the entry keys it has had per index name, and the newest write seen. */
    public record RowRecord(List<ByteBuffer> rowKey, Map<String, Set<List<ByteBuffer>>> keys, long written) {
        public Set<List<ByteBuffer>> keys(String index) {
            return keys.getOrDefault(index, Set.of());
        }
    }

    /** A row of the base as it is now. */
    public record BaseRow(List<ByteBuffer> rowKey, RowReconcile.BaseRow cells) {}

    public UnversionedRows(CqlSession session, TableDef def, TablePlan plan) {
        this.session = session;
        this.def = def;
        List<String> names = new ArrayList<>(def.attributes().keySet());
        this.attributes = names.size();
        Set<Integer> used = new java.util.TreeSet<>();
        for (IndexPlan p : plan.indexes()) {
            for (int a : p.keyAttributes()) {
                if (a >= 0 && !def.isPrimaryKey(names.get(a))) {
                    used.add(a);
                }
            }
            for (int a : p.projAttributes()) {
                used.add(a);
            }
        }
        this.indexed = used.stream().mapToInt(Integer::intValue).toArray();
        this.primaryKey = def.primaryKey().stream().mapToInt(c -> names.indexOf(c.name())).toArray();
        this.rowKeySize = def.primaryKey().size();
        this.hasClustering = !def.clustering().isEmpty();
        List<String> select = new ArrayList<>();
        for (Column c : def.primaryKey()) {
            select.add(c.cqlName());
        }
        for (int a : indexed) {
            String n = Cql.quote(names.get(a));
            select.add(n);
            select.add("WRITETIME(" + n + ")");
            select.add("TTL(" + n + ")");
        }
        String base = "SELECT " + String.join(", ", select) + " FROM " + Cql.qualified(def.keyspace(), def.table());
        String wherePartition = " WHERE " + def.partitionKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        String whereRow = " WHERE " + def.primaryKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.baseRow = session.prepare(base + whereRow);
        this.basePartition = session.prepare(base + wherePartition);
        String rows = Cql.qualified(def.keyspace(), RowsLayout.tableName(def.table()));
        String keys = Cql.quote(RowsLayout.KEYS);
        String written = Cql.quote(RowsLayout.WRITTEN);
        this.rowsRow = session.prepare("SELECT " + keys + ", " + written + " FROM " + rows + whereRow);
        this.rowsPartition = session.prepare("SELECT " + def.primaryKey().stream().map(Column::cqlName).collect(Collectors.joining(", "))
                + ", " + keys + ", " + written + (hasClustering ? ", " + Cql.quote(RowsLayout.PARTITION_WRITTEN) : "")
                + " FROM " + rows + wherePartition);
        String token = " WHERE token(" + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ") > ? AND token("
                + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ") <= ?";
        this.baseScan = session.prepare(base + token);
        this.recordsScan = session.prepare("SELECT " + def.primaryKey().stream().map(Column::cqlName).collect(Collectors.joining(", "))
                + ", " + keys + ", " + written + " FROM " + rows + token);
        this.addKeys = session.prepare("UPDATE " + rows + " USING TIMESTAMP ? SET " + keys + " = " + keys + " + ?" + whereRow);
    }

    private BoundStatementBuilder bindKey(PreparedStatement ps, int from, List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = ps.boundStatementBuilder();
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(from + i, key.get(i).duplicate());
        }
        return b.setConsistencyLevel(cl).setPageSize(1000);
    }

    /** The base row now ({@code rowKey}: partition key then clustering values); every cell dead when the row is gone. */
    public BaseRow row(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        Row r = session.execute(bindKey(baseRow, 0, rowKey, cl).build()).one();
        return r == null ? absent(rowKey) : decode(r);
    }

    /** Every row of a base partition now. */
    public List<BaseRow> partition(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        List<BaseRow> out = new ArrayList<>();
        for (Row r : session.execute(bindKey(basePartition, 0, partitionKey, cl).build())) {
            out.add(decode(r));
        }
        return out;
    }

    /** Every base row whose partition token lies in (start, end]. */
    public List<BaseRow> scanBase(long start, long end, int pageSize, ConsistencyLevel cl) {
        List<BaseRow> out = new ArrayList<>();
        for (Row r : session.execute(baseScan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            out.add(decode(r));
        }
        return out;
    }

    /** The rows-table records of every row whose partition token lies in (start, end]. */
    public List<RowRecord> scanRecords(long start, long end, int pageSize, ConsistencyLevel cl) {
        List<RowRecord> out = new ArrayList<>();
        for (Row r : session.execute(recordsScan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            RowRecord record = recordOf(r);
            if (record != null) {
                out.add(record);
            }
        }
        return out;
    }

    /** A row of a records select (primary key, keys, newest write): null for a partition's static row alone. */
    private RowRecord recordOf(Row r) {
        List<ByteBuffer> rowKey = new ArrayList<>(rowKeySize);
        for (int i = 0; i < rowKeySize; i++) {
            ByteBuffer v = r.getBytesUnsafe(i);
            if (v == null) {
                return null;
            }
            rowKey.add(v);
        }
        return new RowRecord(rowKey, decodeKeys(r.getSet(rowKeySize, ByteBuffer.class)),
                r.isNull(rowKeySize + 1) ? Long.MIN_VALUE : r.getLong(rowKeySize + 1));
    }

    /** A record for a row the rows table does not know. */
    public static RowRecord none(List<ByteBuffer> rowKey) {
        return new RowRecord(rowKey, Map.of(), Long.MIN_VALUE);
    }

    /** A row that is not in the base: its key attributes, every other cell dead. */
    public BaseRow absent(List<ByteBuffer> rowKey) {
        BaseCell[] cells = new BaseCell[attributes];
        java.util.Arrays.fill(cells, BaseCell.DEAD);
        for (int i = 0; i < primaryKey.length; i++) {
            cells[primaryKey[i]] = BaseCell.key(rowKey.get(i));
        }
        return new BaseRow(rowKey, new RowReconcile.BaseRow(cells));
    }

    private BaseRow decode(Row r) {
        BaseCell[] cells = new BaseCell[attributes];
        java.util.Arrays.fill(cells, BaseCell.DEAD);
        List<ByteBuffer> rowKey = new ArrayList<>(rowKeySize);
        for (int i = 0; i < primaryKey.length; i++) {
            ByteBuffer v = r.getBytesUnsafe(i);
            rowKey.add(v);
            cells[primaryKey[i]] = BaseCell.key(v);
        }
        int col = primaryKey.length;
        for (int a : indexed) {
            ByteBuffer v = r.getBytesUnsafe(col);
            if (v != null) {
                long writetime = r.getLong(col + 1);
                int ttl = r.isNull(col + 2) ? 0 : r.getInt(col + 2);
                cells[a] = new BaseCell(v, writetime, ttl);
            }
            col += 3;
        }
        return new BaseRow(rowKey, new RowReconcile.BaseRow(cells));
    }

    /** The rows-table record of one row, or null when the trigger never saw it. */
    public RowRecord record(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        Row r = session.execute(bindKey(rowsRow, 0, rowKey, cl).build()).one();
        if (r == null) {
            return null;
        }
        return new RowRecord(rowKey, decodeKeys(r.getSet(0, ByteBuffer.class)), r.isNull(1) ? Long.MIN_VALUE : r.getLong(1));
    }

    /** The records of every row of a partition, and the newest range or partition delete seen (or Long.MIN_VALUE). */
    public record PartitionRecords(List<RowRecord> rows, long partitionWritten) {}

    public PartitionRecords records(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        List<RowRecord> out = new ArrayList<>();
        long partitionWritten = Long.MIN_VALUE;
        for (Row r : session.execute(bindKey(rowsPartition, 0, partitionKey, cl).build())) {
            int n = rowKeySize;
            if (hasClustering && !r.isNull(n + 2)) {
                partitionWritten = Math.max(partitionWritten, r.getLong(n + 2));
            }
            RowRecord record = recordOf(r);
            if (record != null) {
                out.add(record);
            }
        }
        return new PartitionRecords(out, partitionWritten);
    }

    /** Records entry keys for a row before their entries are written, so that a later repair finds them. */
    public void addKeys(List<ByteBuffer> rowKey, Map<String, List<ByteBuffer>> keys, long timestampMicros, ConsistencyLevel cl) {
        Set<ByteBuffer> elements = new LinkedHashSet<>();
        keys.forEach((index, key) -> elements.add(element(index, key)));
        BoundStatementBuilder b = addKeys.boundStatementBuilder().setLong(0, timestampMicros).setSet(1, elements, ByteBuffer.class);
        for (int i = 0; i < rowKey.size(); i++) {
            b.setBytesUnsafe(2 + i, rowKey.get(i).duplicate());
        }
        session.execute(b.setConsistencyLevel(cl).setIdempotence(true).build());
    }

    /** The rows table's element for an entry key: as the trigger writes it. */
    public static ByteBuffer element(String index, List<ByteBuffer> key) {
        return Composite.encode(List.of(ByteBuffer.wrap(index.getBytes(StandardCharsets.UTF_8)), Composite.encode(key)));
    }

    private static Map<String, Set<List<ByteBuffer>>> decodeKeys(Set<ByteBuffer> elements) {
        Map<String, Set<List<ByteBuffer>>> out = new LinkedHashMap<>();
        for (ByteBuffer e : elements) {
            List<ByteBuffer> parts = Composite.decode(e);
            String index = StandardCharsets.UTF_8.decode(parts.get(0).duplicate()).toString();
            out.computeIfAbsent(index, k -> new LinkedHashSet<>()).add(Composite.decode(parts.get(1)));
        }
        return out;
    }

    private void checkRowKey(List<ByteBuffer> rowKey) {
        if (rowKey.size() != rowKeySize) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs " + rowKeySize);
        }
    }
}
