package io.cassandragsi.trigger;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;
import javax.management.ObjectName;

/**
 * Counters for operators, exposed over JMX as {@code io.cassandragsi:type=Trigger} (read them with
 * any JMX client, or through the repair service's status). Plain adders: no locks on the write path.
 */
public final class TriggerMetrics implements TriggerMetricsMBean {
    public static final String OBJECT_NAME = "io.cassandragsi:type=Trigger";

    final LongAdder updates = new LongAdder();
    final LongAdder entries = new LongAdder();
    final LongAdder markers = new LongAdder();
    final LongAdder incompleteRows = new LongAdder();
    final LongAdder deletes = new LongAdder();
    final LongAdder casWrites = new LongAdder();
    final LongAdder skippedIndexes = new LongAdder();
    final LongAdder markersDropped = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder oversizedKeys = new LongAdder();
    final LongAdder oversizedWrites = new LongAdder();
    final LongAdder layoutMismatches = new LongAdder();
    /** Writes our catch-all let through without even a marker (building the marker failed too). */
    final LongAdder unmarked = new LongAdder();
    /** Writes routed to this node's maintainer, and plain writes of node-mode tables it refused (queue full, retiring). */
    final LongAdder toMaintainer = new LongAdder();
    final LongAdder maintainerRefused = new LongAdder();
    /** Writes of tables in eventual indexing that the maintainer took whole: nothing was added to their batch. */
    final LongAdder eventualWrites = new LongAdder();
    /** False when the load-time check of the write path detection failed: every write is then treated as conditional. */
    volatile boolean pathDetection = true;

    /** Counts and logs an error of ours while indexing an update (the write goes on; the repair service indexes it). */
    void countError(org.apache.cassandra.schema.TableMetadata base, RuntimeException e) {
        errors.increment();
        CompiledTable.logRateLimited("gsi trigger: error indexing an update of {}.{}; the write goes on and the repair service will index it: {}",
                base.keyspace, base.name, e.toString());
        IndexTrigger.LOG.debug("gsi trigger error", e);
    }

    /** Counts and logs the entries a derivation left out because their key is too large; their marker flag. */
    int oversized(CompiledTable table, io.cassandragsi.index.TablePlan.Derivation derivation, UpdateRow values) {
        if (derivation.oversized().isEmpty()) {
            return 0;
        }
        oversizedKeys.add(derivation.oversized().size());
        CompiledTable.logRateLimited("gsi trigger: the entry key of {}.{} row {} in index {} takes more than {} bytes, more than"
                + " Cassandra stores as a key; the row is not indexed there (the write goes on)", table.keyspaceName(), table.name(),
                values.describe(), derivation.oversized().get(0).index().name(), io.cassandragsi.index.TablePlan.MAX_KEY_BYTES);
        return io.cassandragsi.schema.QueueLayout.FLAG_TOO_LARGE;
    }

    /** Counts and logs markers not written because there is no queue table. */
    void noQueue(CompiledTable table) {
        markersDropped.increment();
        CompiledTable.logRateLimited("gsi trigger: no queue table ({}.{} with a gsi_queue comment); index entries of {}.{} are written but"
                + " never repaired. Run ./gsi schema apply.", io.cassandragsi.schema.QueueLayout.DEFAULT_KEYSPACE,
                io.cassandragsi.schema.QueueLayout.TABLE, table.keyspaceName(), table.name());
    }

    static TriggerMetrics register() {
        TriggerMetrics metrics = new TriggerMetrics();
        try {
            ObjectName name = new ObjectName(OBJECT_NAME);
            var server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(name)) {
                server.unregisterMBean(name); // a reloaded trigger jar replaces the old counters
            }
            server.registerMBean(metrics, name);
        } catch (Exception | LinkageError e) {
            IndexTrigger.LOG.warn("gsi trigger: could not register JMX metrics {}: {}", OBJECT_NAME, e.toString());
        }
        return metrics;
    }

    @Override
    public String getVersion() {
        return io.cassandragsi.schema.BuildVersion.get();
    }

    @Override
    public long getUpdates() {
        return updates.sum();
    }

    @Override
    public long getEntriesWritten() {
        return entries.sum();
    }

    @Override
    public long getMarkersWritten() {
        return markers.sum();
    }

    @Override
    public long getIncompleteRows() {
        return incompleteRows.sum();
    }

    @Override
    public long getDeletes() {
        return deletes.sum();
    }

    @Override
    public long getCasWrites() {
        return casWrites.sum();
    }

    @Override
    public long getSkippedIndexes() {
        return skippedIndexes.sum();
    }

    @Override
    public long getMarkersDropped() {
        return markersDropped.sum();
    }

    @Override
    public long getErrors() {
        return errors.sum();
    }

    @Override
    public long getOversizedKeys() {
        return oversizedKeys.sum();
    }

    @Override
    public long getOversizedWrites() {
        return oversizedWrites.sum();
    }

    @Override
    public long getLayoutMismatches() {
        return layoutMismatches.sum();
    }

    @Override
    public long getUnmarkedWrites() {
        return unmarked.sum();
    }

    @Override
    public long getToMaintainer() {
        return toMaintainer.sum();
    }

    @Override
    public long getMaintainerRefused() {
        return maintainerRefused.sum();
    }

    @Override
    public long getEventualWrites() {
        return eventualWrites.sum();
    }

    @Override
    public boolean isPathDetectionOk() {
        return pathDetection;
    }
}
