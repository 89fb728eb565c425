package io.cassandragsi.trigger;

/** JMX view of {@link MaintainerMetrics}. */
public interface MaintainerMetricsMBean {
    /** The queue shard of this maintainer's epoch (its markers and its progress record). */
    int getShard();

    /** starting, running, retired. */
    String getState();

    /** Plain writes taken from the trigger. */
    long getQueued();

    /** Writes maintained here: diffs and reconciles written. */
    long getDone();

    /** Writes handed to the repair service (not plain after all, not visible in time, errors). */
    long getHandedOff();

    /** Repairs tried again (a version not visible yet, a write that failed). */
    long getRetried();

    /** Writes of tables no longer indexed when their turn came. */
    long getDropped();

    /** Repairs or writes that failed (each retried or handed off). */
    long getErrors();

    /** Plain writes whose rows were read together with others' (the newest versions of many rows at once). */
    long getPrefetched();

    /** Plain writes found to be rewrites of a version (handed off for a recompute). */
    long getRewrites();

    /** Selects of this node's maintainers answered from its own replica on their threads (node-wide, since the jar loaded). */
    long getLocalReads();

    /** Mutations of this node's maintainers applied here alone, the partition's only replica (node-wide, since the jar loaded). */
    long getLocalWrites();

    /** Writes taken and not finished yet. */
    long getBacklog();

    /** Milliseconds since the oldest write taken and not finished (0 when idle). */
    long getLagMillis();

    /** Updates of tables in eventual indexing read back from this node's CDC log for a stopped epoch and indexed again. */
    long getCdcReplayed();

    /** CDC segments deleted once every maintainer had passed them. */
    long getCdcSegmentsDeleted();

    /** CDC segments Cassandra dropped before the backstop could (cdc_total_space full): the repair service repairs them if an epoch behind them stops first. */
    long getCdcSegmentsLost();
}
