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
}
