package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Reads of index entries by key, at the read level (docs/design.md section 6). */
public interface EntryReads {
    /** The entries among {@code keys} that the index (one that keeps one entry per row) has a row for, with their cells' write times. */
    CompletableFuture<Map<List<ByteBuffer>, RowReconcile.EntryState>> entryStates(IndexPlan index, Collection<List<ByteBuffer>> keys);

    /** The keys among {@code keys} that have no entry row (an index that keeps an entry per version). */
    CompletableFuture<Set<List<ByteBuffer>>> absent(IndexPlan index, Collection<List<ByteBuffer>> keys);
}
