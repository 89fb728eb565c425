package io.cassandragsi.tables;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Order;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The maintenance statements of one base table (docs/design.md section 6) and the decoding of what
 * they select, for the driver and for Cassandra's internals alike (docs/design.md section 1). A versioned
 * row is named by its partition key and the clustering prefix before the tid; an unversioned row
 * by its whole primary key. Read-path checks stay with the service's reads.
 */
public final class BaseTableCql {
    private final TableDef def;
    private final List<String> names;
    private final int tidAttribute;
    private final int[] rowKeyAttributes;
    private final String table;
    private final String whereRow;
    private final String whereRowKeyOnly;
    private final String selectAll;
    /** Versioned: the attributes a diff's entry keys need (row key, tid, the indexes' key attributes), in definition order. */
    private final int[] keyPositions;
    private final BitSet keyKnown;
    /** Unversioned: regular attributes some index keys on or projects, each selected with its write time and TTL. */
    private final int[] indexed;

    public BaseTableCql(TableDef def, TablePlan plan) {
        this.def = def;
        this.names = new ArrayList<>(def.attributes().keySet());
        this.tidAttribute = def.versioned() ? names.indexOf(def.tid().name()) : -1;
        this.rowKeyAttributes = RowsLayout.rowKeyAttributes(def);
        this.table = Cql.qualified(def.keyspace(), def.table());
        List<Column> rowKey = RowsLayout.rowKey(def);
        this.whereRowKeyOnly = " WHERE " + rowKey.stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.whereRow = whereRowKeyOnly;
        this.selectAll = select(names);
        SortedSet<Integer> needed = new TreeSet<>();
        Arrays.stream(rowKeyAttributes).forEach(needed::add);
        SortedSet<Integer> used = new TreeSet<>();
        for (IndexPlan p : plan.indexes()) {
            for (int a : p.keyAttributes()) {
                if (a >= 0) {
                    needed.add(a);
                    if (!def.isPrimaryKey(names.get(a))) {
                        used.add(a);
                    }
                }
            }
            for (int a : p.projAttributes()) {
                used.add(a);
            }
        }
        if (tidAttribute >= 0) {
            needed.add(tidAttribute);
        }
        this.keyPositions = needed.stream().mapToInt(Integer::intValue).toArray();
        this.keyKnown = new BitSet(names.size());
        for (int p : keyPositions) {
            keyKnown.set(p);
        }
        this.indexed = used.stream().mapToInt(Integer::intValue).toArray();
    }

    public TableDef definition() {
        return def;
    }

    public int tidAttribute() {
        return tidAttribute;
    }

    /** The positions of the row key's attributes among a version's values. */
    public int[] rowKeyAttributes() {
        return rowKeyAttributes.clone();
    }

    private String select(List<String> attributes) {
        return "SELECT " + attributes.stream().map(Cql::quote).collect(Collectors.joining(", ")) + " FROM " + table;
    }

    /** {@code WHERE token(partition key) > ? AND token(partition key) <= ?} for the table's partition key. */
    public static String tokenRange(TableDef def) {
        String token = "token(" + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        return " WHERE " + token + " > ? AND " + token + " <= ?";
    }

    /**
     * A row is one partition and tids are stored descending: the first rows of each partition are
     * its newest versions, and one {@code IN} query can ask them of many partitions.
     */
    public boolean oneRowPerPartition() {
        return def.versioned() && def.partitionKey().size() == 1 && def.clusteringPrefix().isEmpty() && def.tid().order() == Order.DESC;
    }

    /** ORDER BY that walks the tid ascending (or descending) within a row, whatever its declared order. */
    public String orderBy(boolean ascendingTid) {
        boolean reverse = (def.tid().order() == Order.ASC) != ascendingTid;
        return " ORDER BY " + def.clustering().stream()
                .map(c -> c.cqlName() + " " + (reverse ? flip(c.order()) : c.order()).cql())
                .collect(Collectors.joining(", "));
    }

    private static Order flip(Order o) {
        return o == Order.ASC ? Order.DESC : Order.ASC;
    }

    // ---- versioned tables: every attribute, bound by the row key, then the tids named

    /** Versions of a row with tid at or below one, newest first (a reader stops below its range); binds row key, tid. */
    public String versionsDownFrom() {
        return selectAll + whereRow + " AND " + tid() + " <= ?" + orderBy(false);
    }

    /** Versions of a row with tid in [min, max]; binds row key, min, max. */
    public String versionsBetween() {
        return selectAll + whereRow + " AND " + tid() + " >= ? AND " + tid() + " <= ?";
    }

    /** The version of a row just before a tid; binds row key, tid. */
    public String versionBefore() {
        return selectAll + whereRow + " AND " + tid() + " < ?" + orderBy(false) + " LIMIT 1";
    }

    /** The version of a row just after a tid; binds row key, tid. */
    public String versionAfter() {
        return selectAll + whereRow + " AND " + tid() + " > ?" + orderBy(true) + " LIMIT 1";
    }

    /** Every version of a row; binds the row key. */
    public String versionsOfRow() {
        return selectAll + whereRow;
    }

    /** Every version of every row whose partition token lies in (start, end], in the table's order; binds start, end. */
    public String versionsScan() {
        return selectAll + tokenRange(def);
    }

    /** Every version of every row of a partition; binds the partition key. */
    public String versionsOfPartition() {
        return selectAll + " WHERE " + def.partitionKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
    }

    /**
     * The newest versions of many rows that are whole partitions ({@link #oneRowPerPartition}), of
     * each only what a diff's marks need (a projection is no work of a diff's); binds the list of
     * partition keys, the per-partition limit and the limit (which fits in one page, so the node
     * runs it without a pager). Null where the layout does not allow it.
     */
    public String newestIn() {
        if (!oneRowPerPartition()) {
            return null;
        }
        List<String> attributes = Arrays.stream(keyPositions).mapToObj(names::get).toList();
        return select(attributes) + " WHERE " + def.partitionKey().get(0).cqlName() + " IN ? PER PARTITION LIMIT ? LIMIT ?";
    }

    private String tid() {
        return Cql.quote(def.tid().name());
    }

    /** A version selected with every attribute, in definition order. */
    public Version version(Selected r) {
        ByteBuffer[] values = new ByteBuffer[names.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = r.column(i);
        }
        return new Version(values, tidAttribute);
    }

    /** A version selected by {@link #newestIn}: its other attributes are not known. */
    public Version newest(Selected r) {
        ByteBuffer[] values = new ByteBuffer[names.size()];
        for (int i = 0; i < keyPositions.length; i++) {
            values[keyPositions[i]] = r.column(i);
        }
        return new Version(values, tidAttribute, keyKnown);
    }

    /** The position of the partition key's (only) attribute among a version's values. */
    public int partitionKeyAttribute() {
        return names.indexOf(def.partitionKey().get(0).name());
    }

    /** The row key of a version: partition key values then clustering prefix values. */
    public List<ByteBuffer> rowKey(Version v) {
        List<ByteBuffer> key = new ArrayList<>(rowKeyAttributes.length);
        for (int a : rowKeyAttributes) {
            key.add(v.values()[a]);
        }
        return key;
    }

    /** Splits versions (in table order) into rows by their clustering prefix; each row ascending. */
    public List<List<Version>> groupRows(List<Version> all) {
        List<List<Version>> rows = new ArrayList<>();
        List<Version> current = null;
        List<ByteBuffer> currentKey = null;
        for (Version v : all) {
            List<ByteBuffer> key = rowKey(v);
            if (!key.equals(currentKey)) {
                current = new ArrayList<>();
                rows.add(current);
                currentKey = key;
            }
            current.add(v);
        }
        for (List<Version> row : rows) {
            row.sort(Version.ASCENDING);
        }
        return rows;
    }

    // ---- unversioned tables: the row now, each indexed cell with its write time and remaining TTL

    private String selectCurrent() {
        List<String> select = new ArrayList<>();
        for (Column c : RowsLayout.rowKey(def)) {
            select.add(c.cqlName());
        }
        for (int a : indexed) {
            String n = Cql.quote(names.get(a));
            select.add(n);
            select.add("WRITETIME(" + n + ")");
            select.add("TTL(" + n + ")");
        }
        return "SELECT " + String.join(", ", select) + " FROM " + table;
    }

    /** The current row; binds the row key (its whole primary key). */
    public String currentRow() {
        return selectCurrent() + whereRowKeyOnly;
    }

    /** Every current row of a partition; binds the partition key. */
    public String currentPartition() {
        return selectCurrent() + " WHERE " + def.partitionKey().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
    }

    /** Every current row whose partition token lies in (start, end]; binds start, end. */
    public String currentScan() {
        return selectCurrent() + tokenRange(def);
    }

    /** A row selected by {@link #currentRow}, {@link #currentPartition} or {@link #currentScan}. */
    public CurrentRow current(Selected r) {
        RowReconcile.BaseCell[] cells = new RowReconcile.BaseCell[names.size()];
        Arrays.fill(cells, RowReconcile.BaseCell.DEAD);
        List<ByteBuffer> rowKey = new ArrayList<>(rowKeyAttributes.length);
        for (int i = 0; i < rowKeyAttributes.length; i++) {
            ByteBuffer v = r.column(i);
            rowKey.add(v);
            cells[rowKeyAttributes[i]] = RowReconcile.BaseCell.key(v);
        }
        int col = rowKeyAttributes.length;
        for (int a : indexed) {
            ByteBuffer v = r.column(col);
            if (v != null) {
                cells[a] = new RowReconcile.BaseCell(v, r.bigint(col + 1), r.isNull(col + 2) ? 0 : r.integer(col + 2));
            }
            col += 3;
        }
        return new CurrentRow(rowKey, new RowReconcile.BaseRow(cells));
    }

    /** A row that is not in the base: its key attributes, every other cell dead. */
    public CurrentRow absent(List<ByteBuffer> rowKey) {
        return CurrentRow.absent(rowKey, rowKeyAttributes, names.size());
    }
}
