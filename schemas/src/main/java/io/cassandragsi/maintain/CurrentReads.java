package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * Reads of one unversioned base table that maintenance needs (docs/design.md section 6): rows as
 * they are now, with each indexed cell's value, write time and remaining TTL.
 */
public interface CurrentReads {
    /** The row now; every cell dead when the row is gone. */
    CurrentRow row(List<ByteBuffer> rowKey, ReadLevel level);

    /** Every row of one partition now. */
    List<CurrentRow> partition(List<ByteBuffer> partitionKey, ReadLevel level);

    /** A row that is not in the base: its key, every other cell dead. */
    CurrentRow absent(List<ByteBuffer> rowKey);
}
