package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.RowReconcile.BaseCell;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
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
    private final PreparedStatement baseScan;
    private final int rowKeySize;
    private final RowsTable records;


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
        // an unversioned row's key is its whole primary key
        List<Column> rowKey = io.cassandragsi.schema.RowsLayout.rowKey(def);
        this.primaryKey = io.cassandragsi.schema.RowsLayout.rowKeyAttributes(def);
        this.rowKeySize = rowKey.size();
        this.records = new RowsTable(session, def);
        List<String> select = new ArrayList<>();
        for (Column c : rowKey) {
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
        String whereRow = " WHERE " + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.baseRow = session.prepare(base + whereRow);
        this.basePartition = session.prepare(base + wherePartition);
        this.baseScan = session.prepare(base + RowsTable.tokenRange(def));
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


    /** The table's rows table. */
    public RowsTable records() {
        return records;
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



    private void checkRowKey(List<ByteBuffer> rowKey) {
        if (rowKey.size() != rowKeySize) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs " + rowKeySize);
        }
    }
}
