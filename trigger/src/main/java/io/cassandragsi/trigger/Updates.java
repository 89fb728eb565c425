package io.cassandragsi.trigger;

import org.apache.cassandra.db.partitions.PartitionUpdate;

/**
 * The trigger's write path for one kind of table (docs/design.md section 5), chosen once per
 * compiled table: {@link VersionedUpdates} or {@link UnversionedUpdates}.
 */
interface Updates {
    /**
     * What the trigger makes of {@code update}; on the CAS path ({@code cas}) markers only. Plain
     * rows are offered to {@code node} (null: none takes them, their markers go to the service).
     */
    Added add(CompiledTable table, PartitionUpdate update, boolean cas, RowFeed node);
}
