package io.cassandragsi.check;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Reads of one base table's rows for the jobs (docs/design.md section 9), as its kind keeps them
 * ({@link RowHistory}): every row of a range of the partition-key tokens, and one row again.
 * Implemented on the driver (the repair service) and in memory (tests).
 */
public interface RowScans<H extends RowHistory> {
    /** Receives one row. */
    @FunctionalInterface
    interface RowConsumer<H> {
        void accept(H row) throws InterruptedException;
    }

    /**
     * Streams every row whose partition token lies in {@code (start, end]}, one row at a time (a
     * versioned row with all its versions). Returns false when {@code stop} said so before the
     * range was exhausted.
     */
    boolean scan(long start, long end, RowConsumer<H> consumer, BooleanSupplier stop) throws InterruptedException;

    /** One row read again; a row the base no longer has comes back empty (no versions, or every cell dead). */
    CompletableFuture<H> row(List<ByteBuffer> rowKey);
}
