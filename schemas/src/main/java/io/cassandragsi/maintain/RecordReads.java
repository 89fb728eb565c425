package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Reads of one base table's rows table (docs/design.md section 3), at the read level. */
public interface RecordReads {
    /** The record of one row, with its per-version keys; null when nothing recorded it. */
    CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey);

    /**
     * The records of up to 50 rows whose row key is one partition-key column, by that key (rows
     * nothing recorded are left out); their per-version keys need not be read.
     */
    CompletableFuture<Map<ByteBuffer, RowRecord>> records(List<ByteBuffer> keys);

    /** The records of every row of a partition, with their per-version keys. */
    PartitionRecords partition(List<ByteBuffer> partitionKey);
}
