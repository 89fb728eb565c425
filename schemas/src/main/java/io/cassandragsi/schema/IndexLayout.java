package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.List;

/**
 * The column layout of one index table, in one place for the DDL ({@link CqlGenerator}), the
 * trigger and the repair service's writes, selects and decoding: the entry key (the index's key
 * columns, see {@link Index}), the projections, then {@value Index#TID_COLUMN} and
 * {@value Index#DELETED_COLUMN} unless the index is per version; where each attribute sits in it;
 * and where the base row key ({@link RowsLayout#rowKey}) sits in an entry key. So a change of the
 * order cannot leave one side behind. Pure.
 */
public final class IndexLayout {
    private static final Column TID = Column.of(Index.TID_COLUMN, AttrType.TIMEUUID);
    private static final Column DELETED = Column.of(Index.DELETED_COLUMN, AttrType.TIMEUUID);

    private final Index index;
    private final List<Column> key;
    private final List<Column> proj;

    private IndexLayout(Index index) {
        this.index = index;
        this.key = List.copyOf(index.keyColumns());
        this.proj = index.proj();
    }

    public static IndexLayout of(Index index) {
        return new IndexLayout(index);
    }

    /** Every column with its type, in layout order: the entry key, then {@link #regularColumns}. */
    public List<Column> columns() {
        List<Column> all = new ArrayList<>(key);
        all.addAll(regularColumns());
        return all;
    }

    /** The columns after the key: the projections, then {@code _tid} and {@code _deleted} unless per version. */
    public List<Column> regularColumns() {
        List<Column> regular = new ArrayList<>(proj);
        if (!index.perVersion()) {
            regular.add(TID);
            regular.add(DELETED);
        }
        return regular;
    }

    /** The entry key's columns: partition then clustering columns of the index table. */
    public List<Column> keyColumns() {
        return key;
    }

    /** Every column's CQL name, in layout order. */
    public List<String> cqlNames() {
        return columns().stream().map(Column::cqlName).toList();
    }

    /** The entry key's columns: the first {@code keySize()} of a row. */
    public int keySize() {
        return key.size();
    }

    public int projSize() {
        return proj.size();
    }

    /** The column of projection {@code p}. */
    public int projColumn(int p) {
        return key.size() + p;
    }

    /** The {@code _tid} column; -1 for a per-version index. */
    public int tidColumn() {
        return index.perVersion() ? -1 : key.size() + proj.size();
    }

    /** The {@code _deleted} column; -1 for a per-version index. */
    public int deletedColumn() {
        return index.perVersion() ? -1 : key.size() + proj.size() + 1;
    }

    /** The position of a key attribute in the entry key, or -1. */
    public int keyColumn(String attribute) {
        return position(key, attribute);
    }

    /** The column of a key or projected attribute, or -1 when it is in neither. */
    public int column(String attribute) {
        int k = position(key, attribute);
        if (k >= 0) {
            return k;
        }
        int p = position(proj, attribute);
        return p >= 0 ? projColumn(p) : -1;
    }

    /**
     * The positions in an entry key of the base row key's columns ({@link RowsLayout#rowKey}
     * order): every index key ends with the base primary key's attributes it does not already have.
     */
    public int[] rowKeyInEntryKey(TableDef def) {
        List<Column> rowKey = RowsLayout.rowKey(def);
        int[] positions = new int[rowKey.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = keyColumn(rowKey.get(i).name());
            if (positions[i] < 0) {
                throw new IllegalStateException("index " + index.name() + " lacks base key attribute " + rowKey.get(i).name());
            }
        }
        return positions;
    }

    private static int position(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}
