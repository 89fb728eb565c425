package io.cassandragsi.trigger;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import javax.management.ObjectName;

/**
 * The in-node maintainer's counters, in the node's JMX as {@code
 * io.cassandragsi:type=Maintainer,shard=N} (one per epoch; a reloaded trigger jar starts a new
 * one) and, through its progress records, in the repair service's {@code /admin/status}.
 */
final class MaintainerMetrics implements MaintainerMetricsMBean {
    final LongAdder queued = new LongAdder();
    final LongAdder done = new LongAdder();
    final LongAdder handedOff = new LongAdder();
    final LongAdder retried = new LongAdder();
    final LongAdder dropped = new LongAdder();
    final LongAdder errors = new LongAdder();
    final LongAdder cdcReplayed = new LongAdder();
    final LongAdder cdcSegmentsDeleted = new LongAdder();
    final LongAdder cdcSegmentsLost = new LongAdder();
    private final int shard;
    private final LongSupplier backlog;
    private final LongSupplier lagMillis;
    private final Supplier<String> state;
    private ObjectName name;
    /** The repair core's counters of this maintainer's repairs. */
    volatile io.cassandragsi.maintain.RepairCounters counters;

    MaintainerMetrics(int shard, LongSupplier backlog, LongSupplier lagMillis, Supplier<String> state) {
        this.shard = shard;
        this.backlog = backlog;
        this.lagMillis = lagMillis;
        this.state = state;
    }

    void register() {
        try {
            name = new ObjectName("io.cassandragsi:type=Maintainer,shard=" + shard);
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, name);
        } catch (Exception | LinkageError e) {
            IndexTrigger.LOG.warn("gsi maintainer: could not register JMX metrics: {}", e.toString());
        }
    }

    void unregister() {
        try {
            if (name != null) {
                ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
            }
        } catch (Exception | LinkageError e) {
            IndexTrigger.LOG.debug("gsi maintainer: could not unregister JMX metrics", e);
        }
    }

    @Override
    public int getShard() {
        return shard;
    }

    @Override
    public String getState() {
        return state.get();
    }

    @Override
    public long getQueued() {
        return queued.sum();
    }

    @Override
    public long getDone() {
        return done.sum();
    }

    @Override
    public long getHandedOff() {
        return handedOff.sum();
    }

    @Override
    public long getRetried() {
        return retried.sum();
    }

    @Override
    public long getDropped() {
        return dropped.sum();
    }

    @Override
    public long getErrors() {
        return errors.sum();
    }

    @Override
    public long getPrefetched() {
        return counters == null ? 0 : counters.prefetched.sum();
    }

    @Override
    public long getRewrites() {
        return counters == null ? 0 : counters.rewrites.sum();
    }

    @Override
    public long getLocalReads() {
        return LocalReads.COUNT.sum();
    }

    @Override
    public long getLocalWrites() {
        return NodeWrites.LOCAL.sum();
    }

    @Override
    public long getBacklog() {
        return backlog.getAsLong();
    }

    @Override
    public long getLagMillis() {
        return lagMillis.getAsLong();
    }

    @Override
    public long getCdcReplayed() {
        return cdcReplayed.sum();
    }

    @Override
    public long getCdcSegmentsDeleted() {
        return cdcSegmentsDeleted.sum();
    }

    @Override
    public long getCdcSegmentsLost() {
        return cdcSegmentsLost.sum();
    }
}
