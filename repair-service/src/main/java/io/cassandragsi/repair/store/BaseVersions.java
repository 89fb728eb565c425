package io.cassandragsi.repair.store;

import io.cassandragsi.maintain.Version;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The base versions a read checks index entries against (docs/design.md section 8.3), as a small
 * interface (docs/design.md section 1): on the driver ({@link BaseTable.Checks}) and in memory in
 * the unit tests. Asynchronous; safe to call from a driver thread.
 */
public interface BaseVersions {
    /** The version current at tid {@code q}: the one with the greatest tid not after q, or null (an unversioned table: its row, whatever q). */
    CompletableFuture<Version> currentAt(List<ByteBuffer> rowKey, UUID q);

    /** Whether {@link #currentAtAll} can read many rows in one query. */
    boolean readsManyCurrent();

    /** The versions current at {@code q} of up to {@value BaseTable#ROWS_PER_QUERY} rows, in the order of {@code rowKeys} (null where none). */
    CompletableFuture<List<Version>> currentAtAll(List<List<ByteBuffer>> rowKeys, UUID q);

    /** A window read's versions, newest first: those after {@code from} up to {@code upTo}, then the one current at {@code from}. */
    CompletableFuture<List<Version>> window(List<ByteBuffer> rowKey, UUID from, UUID upTo);

    /** The version with exactly this tid, or null. */
    CompletableFuture<Version> version(List<ByteBuffer> rowKey, UUID tid);
}
