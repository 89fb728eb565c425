package io.cassandragsi.maintain;

import io.cassandragsi.index.RowReconcile;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

/** A row of an unversioned base table as it is now: its key and its cells (values, write times, TTLs). */
public record CurrentRow(List<ByteBuffer> rowKey, RowReconcile.BaseRow cells) {
    /**
     * A row that is not in the base: its key attributes (at {@code keyAttributes}, the row key's
     * positions among the definition's attributes), every other cell dead.
     */
    public static CurrentRow absent(List<ByteBuffer> rowKey, int[] keyAttributes, int attributes) {
        RowReconcile.BaseCell[] cells = new RowReconcile.BaseCell[attributes];
        Arrays.fill(cells, RowReconcile.BaseCell.DEAD);
        for (int i = 0; i < keyAttributes.length; i++) {
            cells[keyAttributes[i]] = RowReconcile.BaseCell.key(rowKey.get(i));
        }
        return new CurrentRow(rowKey, new RowReconcile.BaseRow(cells));
    }
}
