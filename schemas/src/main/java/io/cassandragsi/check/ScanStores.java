package io.cassandragsi.check;

import io.cassandragsi.maintain.RowRecord;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The storage the whole-index jobs of one table read (docs/design.md section 9), as small
 * interfaces: one adapter on the driver, one in memory for tests. {@link EntryRule#rows} picks the
 * base reads of its kind; writes go through the job's own writer.
 */
public interface ScanStores {
    /** The base table's rows with every version (a versioned table). */
    RowScans<RowHistory.Versions> versions();

    /** The base table's rows now (an unversioned table). */
    RowScans<RowHistory.Current> current();

    EntryScans entries();

    /** Where a fix records a change to the history of ended buckets (docs/design.md section 9.4). */
    io.cassandragsi.maintain.BucketChanges buckets();

    /** The rows-table record of one row, without its per-version keys; null when nothing recorded it. */
    CompletableFuture<RowRecord> record(List<ByteBuffer> rowKey);
}
