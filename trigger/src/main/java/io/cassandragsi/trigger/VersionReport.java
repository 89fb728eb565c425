package io.cassandragsi.trigger;

import io.cassandragsi.schema.BuildVersion;
import io.cassandragsi.schema.TriggerVersionsLayout;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.db.rows.BTreeRow;
import org.apache.cassandra.db.rows.BufferCell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.utils.ByteBufferUtil;
import org.apache.cassandra.utils.FBUtilities;

/**
 * Tells the repair service which version of the trigger jar this node runs ({@link
 * TriggerVersionsLayout}, docs/deployment.md, Versions): on the first indexed write after the jar
 * was loaded, then every {@link TriggerVersionsLayout#REPORT_EVERY_MILLIS}. The write happens on a
 * short-lived daemon thread at consistency ONE, never on the write path; a failure is logged and
 * tried again a minute later. State is static, so a jar reloaded by {@code nodetool
 * reloadtriggers} (a new class loader) reports at its first write.
 */
final class VersionReport {
    static final long RETRY_AFTER_MILLIS = 60_000L;
    private static final long LOADED_MILLIS = System.currentTimeMillis();
    /** When the next report is due (0: at the first write). */
    private static volatile long dueMillis;

    private VersionReport() {}

    /** Called on every indexed write: one volatile read unless a report is due. */
    static void maybe(CompiledTable table) {
        long now = System.currentTimeMillis();
        if (now < dueMillis || table.queue == null) {
            return;
        }
        synchronized (VersionReport.class) {
            if (now < dueMillis) {
                return;
            }
            dueMillis = now + RETRY_AFTER_MILLIS; // until the report succeeds
        }
        String keyspace = table.queue.table().keyspace;
        Thread t = new Thread(() -> report(keyspace), "gsi-version-report");
        t.setDaemon(true);
        t.start();
    }

    private static void report(String keyspace) {
        try {
            TableMetadata t = Schema.instance.getTableMetadata(keyspace, TriggerVersionsLayout.TABLE);
            if (t == null) {
                CompiledTable.logRateLimited("gsi trigger: no table {}.{} to report this node's trigger version {} to: run gsi schema apply",
                        keyspace, TriggerVersionsLayout.TABLE, BuildVersion.get());
                return;
            }
            long nowMicros = FBUtilities.timestampMicros();
            long nowInSec = FBUtilities.nowInSeconds();
            Row.Builder b = BTreeRow.unsortedBuilder();
            b.newRow(Clustering.EMPTY);
            cell(t, b, TriggerVersionsLayout.C_VERSION, ByteBufferUtil.bytes(BuildVersion.get()), nowMicros, nowInSec);
            cell(t, b, TriggerVersionsLayout.C_LOADED, ByteBufferUtil.bytes(LOADED_MILLIS), nowMicros, nowInSec);
            cell(t, b, TriggerVersionsLayout.C_REPORTED, ByteBufferUtil.bytes(nowMicros / 1000), nowMicros, nowInSec);
            ByteBuffer node = ByteBufferUtil.bytes(FBUtilities.getBroadcastAddressAndPort().getHostAddressAndPort());
            NodeWrites.send(List.of(new Mutation(PartitionUpdate.singleRowUpdate(t, node, b.build()))), ConsistencyLevel.ONE);
            dueMillis = System.currentTimeMillis() + TriggerVersionsLayout.REPORT_EVERY_MILLIS;
            IndexTrigger.LOG.info("gsi trigger: version {} reported to {}.{}", BuildVersion.get(), keyspace, TriggerVersionsLayout.TABLE);
        } catch (RuntimeException | LinkageError e) {
            CompiledTable.logRateLimited("gsi trigger: could not report this node's trigger version (tried again in a minute): {}", e.toString());
        }
    }

    private static void cell(TableMetadata t, Row.Builder b, String column, ByteBuffer value, long nowMicros, long nowInSec) {
        ColumnMetadata c = t.getColumn(ByteBufferUtil.bytes(column));
        if (c == null) {
            throw new IllegalStateException("table " + t + " lacks column " + column + ": run gsi schema apply");
        }
        b.addCell(BufferCell.expiring(c, nowMicros, TriggerVersionsLayout.TTL_SECONDS, nowInSec, value));
    }
}
