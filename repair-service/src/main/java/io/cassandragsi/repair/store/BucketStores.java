package io.cassandragsi.repair.store;

import io.cassandragsi.check.BucketEntries;
import io.cassandragsi.index.IndexPlan;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * What the check of bucket tables reads and writes (docs/design.md section 9.2), as a small
 * interface (docs/design.md section 1): on the driver ({@link Catalog.Indexed#bucketStores}) and in memory
 * in the unit tests.
 */
public interface BucketStores {
    /** Receives one row of a bucket table: its label, entry key, the entry as written, and the seal that wrote it. */
    @FunctionalInterface
    interface EntryConsumer {
        void accept(String label, List<ByteBuffer> key, BucketEntries.Entry entry, UUID seal) throws InterruptedException;
    }

    /** The state of every bucket of {@code index} that has one, by label ({@link BucketsTable#all}). */
    Map<String, BucketsTable.State> states(IndexPlan index);

    /** Streams every row of {@code index}'s bucket table whose partition token lies in {@code (start, end]}; false when stopped early. */
    boolean scan(IndexPlan index, long start, long end, EntryConsumer consumer, BooleanSupplier stop) throws InterruptedException;

    /** Records a change now for exactly these buckets of {@code index}, which ends their seals (the sealer seals them again); acknowledged on return. */
    void changed(IndexPlan index, Collection<String> labels);
}
