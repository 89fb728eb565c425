package io.cassandragsi.maintain;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Reads of one versioned base table that maintenance needs (docs/design.md section 6). A row is
 * named by its row key: the partition key values, then the clustering values before the tid.
 * Implemented on the driver (the repair service) and on Cassandra's internals (the in-node
 * maintainer); in memory for tests.
 */
public interface VersionReads {
    /**
     * The versions a sibling diff of tids [min, max] needs, ascending: the one before min, all in
     * [min, max], and the one after max, every attribute read.
     */
    List<Version> neighbourhood(List<ByteBuffer> rowKey, UUID min, UUID max, ReadLevel level);

    /** Whether {@link #newest} can read many rows in one request (a row is a whole partition, tids stored descending). */
    boolean readsManyNewest();

    /**
     * The newest {@code perPartition} versions of up to 50 rows that are whole partitions, newest
     * first, by partition key (rows without versions left out), of each version at least the row
     * key, the tid and the indexes' key attributes.
     */
    CompletableFuture<Map<ByteBuffer, List<Version>>> newest(List<ByteBuffer> partitionKeys, int perPartition);

    /** Every version of one row, ascending. */
    List<Version> versions(List<ByteBuffer> rowKey, ReadLevel level);

    /** Every version of every row of one partition, grouped by row, each ascending. */
    List<List<Version>> partition(List<ByteBuffer> partitionKey, ReadLevel level);

    /** The row key of a version: its partition key values then its clustering prefix. */
    List<ByteBuffer> rowKey(Version v);
}
