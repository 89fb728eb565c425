package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Reads of index tables for the jobs (docs/design.md section 9): every entry of a range of the
 * index partitions' tokens, and one entry by its key, each with its cells' write times.
 */
public interface EntryScans {
    /** Receives one index row. */
    @FunctionalInterface
    interface EntryConsumer {
        void accept(List<ByteBuffer> key, Observed entry) throws InterruptedException;
    }

    /** Streams every entry whose index partition token lies in {@code (start, end]}; false when stopped early. */
    boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException;

    /** The entry with this key; null when the index has no row for it. */
    CompletableFuture<Observed> entry(IndexPlan index, List<ByteBuffer> key);
}
