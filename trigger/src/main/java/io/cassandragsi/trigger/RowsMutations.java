package io.cassandragsi.trigger;

import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.CellPath;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;

/**
 * Rows-table mutations (docs/design.md section 3): what the trigger records in a base write's own
 * mutation (same partition key), and the repair core's rows-table writes as the in-node maintainer
 * sends them. Each element is written at the timestamp the write-timestamp rule gives it.
 */
final class RowsMutations {
    private RowsMutations() {}

    /**
     * An entry key a version gave its row, and the version's TS (the element's write time); in
     * {@code _vkeys} for an index that keeps an entry per version, else in {@code _keys}.
     */
    record RecordedKey(ByteBuffer element, long ts, boolean perVersion) {}

    /**
     * What an update gives one versioned row's rows-table row: the entry keys its versions have, and
     * the write of the newest version that carried every indexed key attribute (its TS and write
     * timestamp; {@code Long.MIN_VALUE}: none).
     */
    static final class VersionedRecord {
        final List<RecordedKey> keys = new ArrayList<>(2);
        long newestTs = Long.MIN_VALUE;
        long newestWrite;

        void wrote(long ts, long write) {
            if (ts > newestTs) {
                newestTs = ts;
                newestWrite = write;
            }
        }
    }

    /**
     * An unversioned row's rows-table row: the entry keys a write gave the row, the write's timestamp
     * as the newest seen, and (when {@code markerId} is not null and the table has the column) the
     * write's marker id beside it (docs/design.md section 6.6).
     */
    static Row unversioned(CompiledTable table, Clustering<?> clustering, List<ByteBuffer> entryKeys, long timestamp, ByteBuffer markerId) {
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(clustering);
        for (ByteBuffer k : entryKeys) {
            element(builder, table.rows.keys(), k, timestamp);
        }
        builder.addCell(BufferCell.live(table.rows.written(), timestamp, ByteBufferUtil.bytes(timestamp)));
        if (markerId != null && table.rows.writeId() != null) {
            builder.addCell(BufferCell.live(table.rows.writeId(), timestamp, markerId));
        }
        return builder.build();
    }

    /**
     * The rows-table row of a versioned row (partition key and clustering prefix): the entry keys its
     * versions gave it, each element written at its version's TS, so that the element's write time
     * names the newest version that had the key (a version rewritten with another key shows). And,
     * at the TS of the version that carried every indexed key attribute, its write timestamp in
     * {@code _whi} and {@code _wlo}: among writes of one version Cassandra keeps the greater value
     * of each, so the two differ once that version has been written twice at different timestamps.
     * Null when the update gives the row nothing to record.
     */
    static Row versioned(CompiledTable table, List<ByteBuffer> prefix, VersionedRecord record) {
        boolean newest = record.newestTs != Long.MIN_VALUE;
        if (!newest && record.keys.isEmpty()) {
            return null;
        }
        CompiledTable.Rows rows = table.rows;
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(prefix.isEmpty() ? Clustering.EMPTY : Clustering.make(prefix.toArray(new ByteBuffer[0])));
        if (newest) {
            builder.addCell(BufferCell.live(rows.newestHi(), record.newestTs, ByteBufferUtil.bytes(record.newestWrite)));
            builder.addCell(BufferCell.live(rows.newestLo(), record.newestTs, ByteBufferUtil.bytes(RowsLayout.newestLo(record.newestWrite))));
        }
        for (RecordedKey k : record.keys) {
            element(builder, k.perVersion() ? rows.versionKeys() : rows.keys(), k.element(), k.ts());
        }
        return builder.build();
    }

    /** The static row that records a range or partition delete at {@code timestamp} (tables with clustering columns). */
    static Row partitionDelete(CompiledTable table, long timestamp) {
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(Clustering.STATIC_CLUSTERING);
        builder.addCell(BufferCell.live(table.rows.partitionWritten(), timestamp, ByteBufferUtil.bytes(timestamp)));
        return builder.build();
    }

    /** The rows table's update for one base partition (same partition key: it joins the base write's mutation). */
    static Mutation of(CompiledTable table, ByteBuffer partitionKey, List<Row> rows, Row staticRow) {
        TableMetadata t = table.rows.table();
        PartitionUpdate.Builder b = new PartitionUpdate.Builder(t, t.partitioner.decorateKey(partitionKey), t.regularAndStaticColumns(), rows.size());
        if (staticRow != null) {
            b.add(staticRow);
        }
        for (Row r : rows) {
            b.add(r);
        }
        return new Mutation(b.build());
    }

    /** A rows-table write of the repair core as a mutation, as the service's statements write it ({@code RowsTable} in the repair service). */
    static Mutation of(CompiledTable table, RowsWrite w, long nowInSec) {
        CompiledTable.Rows rows = table.rows;
        int pkSize = table.plan.table().partitionKey().size();
        List<ByteBuffer> rowKey = w.rowKey();
        ByteBuffer partitionKey = pkSize == 1 ? rowKey.get(0) : Composite.encode(rowKey.subList(0, pkSize));
        Row.Builder builder = BTreeRow.unsortedBuilder();
        builder.newRow(rowKey.size() == pkSize ? Clustering.EMPTY : Clustering.make(rowKey.subList(pkSize, rowKey.size()).toArray(new ByteBuffer[0])));
        if (w instanceof RowsWrite.AddKeys a) {
            added(builder, rows.keys(), a.keys(), a.at());
        } else if (w instanceof RowsWrite.ForgetKeys f) {
            removed(builder, rows.keys(), f.keys(), nowInSec);
        } else if (w instanceof RowsWrite.AddVersionKeys a) {
            added(builder, rows.versionKeys(), a.keys(), a.at());
        } else if (w instanceof RowsWrite.ForgetVersionKeys f) {
            removed(builder, rows.versionKeys(), f.keys(), nowInSec);
        } else {
            long ts = ((RowsWrite.RecordRecompute) w).ts();
            builder.addCell(BufferCell.live(rows.written(), ts, ByteBufferUtil.bytes(ts)));
        }
        return new Mutation(PartitionUpdate.singleRowUpdate(rows.table(), partitionKey, builder.build()));
    }

    private static void added(Row.Builder builder, ColumnMetadata column, Map<String, ? extends Collection<List<ByteBuffer>>> keys, long at) {
        keys.forEach((index, list) -> list.forEach(key -> element(builder, column, RowsLayout.element(index, key), at)));
    }

    /** Each element removed at the write time it was read with: it shadows that write only. */
    private static void removed(Row.Builder builder, ColumnMetadata column, Map<String, Map<List<ByteBuffer>, Long>> keys, long nowInSec) {
        Map<ByteBuffer, Long> byElement = new TreeMap<>();
        keys.forEach((index, times) -> times.forEach((key, t) -> byElement.merge(RowsLayout.element(index, key), t, Math::max)));
        byElement.forEach((element, t) -> builder.addCell(BufferCell.tombstone(column, t, nowInSec, CellPath.create(element))));
    }

    private static void element(Row.Builder builder, ColumnMetadata column, ByteBuffer element, long timestamp) {
        builder.addCell(BufferCell.live(column, timestamp, ByteBufferUtil.EMPTY_BYTE_BUFFER, CellPath.create(element)));
    }
}
