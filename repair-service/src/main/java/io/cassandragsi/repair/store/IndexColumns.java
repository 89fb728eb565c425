package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The column layout of one index table, in one place: the order in which upserts bind and read
 * selects return the columns (the entry key, the projections, then {@code _tid} and
 * {@code _deleted} unless the index is per version), where each attribute sits in it, and the
 * decoding of a selected row. {@link IndexTable} writes and selects with it, reads decode with it,
 * so a change of the order cannot leave one side behind. Pure.
 */
public final class IndexColumns {
    private final List<Column> key;
    private final List<Column> proj;
    private final boolean perVersion;

    private IndexColumns(Index index) {
        this.key = List.copyOf(index.keyColumns());
        this.proj = List.copyOf(index.proj());
        this.perVersion = index.perVersion();
    }

    public static IndexColumns of(Index index) {
        return new IndexColumns(index);
    }

    /** Every column's CQL name, in layout order. */
    public List<String> cqlNames() {
        List<String> columns = new ArrayList<>();
        for (Column c : key) {
            columns.add(c.cqlName());
        }
        for (Column c : proj) {
            columns.add(c.cqlName());
        }
        if (!perVersion) {
            columns.add(Cql.quote(Index.TID_COLUMN));
            columns.add(Cql.quote(Index.DELETED_COLUMN));
        }
        return columns;
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
        return perVersion ? -1 : key.size() + proj.size();
    }

    /** The {@code _deleted} column; -1 for a per-version index. */
    public int deletedColumn() {
        return perVersion ? -1 : key.size() + proj.size() + 1;
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

    private static int position(List<Column> columns, String name) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The entry key of a selected row: its key columns. */
    public List<ByteBuffer> entryKey(Row row) {
        List<ByteBuffer> k = new ArrayList<>(key.size());
        for (int i = 0; i < key.size(); i++) {
            k.add(row.getBytesUnsafe(i));
        }
        return k;
    }

    /**
     * Binds an upsert's values from {@code from} on, in layout order: the key, the projections
     * ({@code known[p]} false: left unset, the cell is not touched), then {@code _tid} and an unset
     * {@code _deleted} (a mark not later than {@code _tid} means the entry matches). Returns the
     * next position.
     */
    public int bindUpsert(BoundStatementBuilder b, int from, List<ByteBuffer> entryKey, ByteBuffer[] projections, boolean[] known,
            ByteBuffer tid) {
        int i = from;
        for (ByteBuffer k : entryKey) {
            b.setBytesUnsafe(i++, k.duplicate());
        }
        for (int p = 0; p < proj.size(); p++, i++) {
            if (known[p]) {
                b.setBytesUnsafe(i, projections[p] == null ? null : projections[p].duplicate());
            } // else: left unset, the cell is not touched
        }
        if (!perVersion) {
            b.setBytesUnsafe(i++, tid.duplicate());
            b.unset(i++); // _deleted is left alone
        }
        return i;
    }
}
