package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.IndexLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * The driver's side of an index table's column layout: binds upserts and decodes selected rows in
 * the order of {@link IndexLayout} (schemas/), the one owner of that order, which the DDL, the
 * trigger and {@code check} follow too. {@link IndexTable} writes and selects with it, reads decode
 * with it, so a change of the order cannot leave one side behind. The positions are the layout's.
 */
public final class IndexColumns {
    private final IndexLayout layout;

    private IndexColumns(Index index) {
        this.layout = IndexLayout.of(index);
    }

    public static IndexColumns of(Index index) {
        return new IndexColumns(index);
    }

    /** Every column's CQL name, in layout order. */
    public List<String> cqlNames() {
        return layout.cqlNames();
    }

    /** The entry key's columns: the first {@code keySize()} of a row. */
    public int keySize() {
        return layout.keySize();
    }

    public int projSize() {
        return layout.projSize();
    }

    /** The {@code _tid} column; -1 for a per-version index. */
    public int tidColumn() {
        return layout.tidColumn();
    }

    /** The {@code _deleted} column; -1 for a per-version index. */
    public int deletedColumn() {
        return layout.deletedColumn();
    }

    /** The position of a key attribute in the entry key, or -1. */
    public int keyColumn(String attribute) {
        return layout.keyColumn(attribute);
    }

    /** The column of a key or projected attribute, or -1 when it is in neither. */
    public int column(String attribute) {
        return layout.column(attribute);
    }

    /** The positions in an entry key of the base row key's columns. */
    public int[] rowKeyInEntryKey(TableDef def) {
        return layout.rowKeyInEntryKey(def);
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
        for (int p = 0; p < layout.projSize(); p++, i++) {
            if (known[p]) {
                b.setBytesUnsafe(i, projections[p] == null ? null : projections[p].duplicate());
            } // else: left unset, the cell is not touched
        }
        if (layout.tidColumn() >= 0) {
            b.setBytesUnsafe(i++, tid.duplicate());
            b.unset(i++); // _deleted is left alone
        }
        return i;
    }
}
