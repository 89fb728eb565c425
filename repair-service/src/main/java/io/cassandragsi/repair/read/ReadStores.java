package io.cassandragsi.repair.read;

import io.cassandragsi.repair.store.BaseVersions;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.IndexTable;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What a read of one index reads (docs/design.md section 8.5), as small interfaces (docs/design.md
 * section 1): on the driver ({@link DriverReadStores}) and in memory in the unit tests, so that
 * the planner, the pager, the sources and the base checks are tested without a node.
 */
interface ReadStores {
    /** The restrictions of a read's select: its shape, hash and fixed range values, bounds on the next range attribute. */
    record Select(IndexTable.Shape shape, List<ByteBuffer> fixed, ByteBuffer lower, ByteBuffer upper) {}

    /** A page of the index table's select, and the paging state of the page after it (null: none). */
    record IndexPage(List<IndexRow> rows, byte[] next) {}

    /** Up to {@code size} rows of the index table's select from {@code pagingState} (null: the first page). */
    CompletableFuture<IndexPage> indexPage(Select select, byte[] pagingState, int size);

    /**
     * The entries of buckets {@code labels} merged in clustering order, behind clustering key
     * {@code behind} (null: from the start), at most {@code perPartition} of each bucket
     * ({@code store.MergedSelect}).
     */
    CompletableFuture<List<IndexRow>> buckets(Select select, List<String> labels, List<ByteBuffer> behind, int perPartition);

    /** The states of buckets {@code labels}, by label (a bucket never sealed: a state without seal, or none). */
    CompletableFuture<Map<String, BucketsTable.State>> bucketStates(List<String> labels);

    /** Whether the index has buckets this service reads. */
    boolean hasBuckets();

    /** The base versions the read checks entries against. */
    BaseVersions base();
}
