package io.cassandragsi.trigger;

/** JMX view of {@link TriggerMetrics}. */
public interface TriggerMetricsMBean {
    /** The version of the loaded trigger jar (docs/deployment.md, Versions). */
    String getVersion();

    /** Partition updates of indexed tables seen. */
    long getUpdates();

    /** Index entries written (one per index per version). */
    long getEntriesWritten();

    /** Work-queue markers written. */
    long getMarkersWritten();

    /** Rows that could not be fully indexed from the write alone (partial updates): left to the repair service. */
    long getIncompleteRows();

    /** Updates that delete rows, ranges or partitions, or carry a TTL: left to the repair service. */
    long getDeletes();

    /** Conditional (CAS) writes: queued for the repair service, which indexes them once applied. */
    long getCasWrites();

    /** Indexes skipped because their definition does not fit the live table (see the node's log). */
    long getSkippedIndexes();

    /** Markers not written because the queue table is missing (run ./gsi schema apply). */
    long getMarkersDropped();

    /** Unexpected errors caught in the trigger (the write went on; see the node's log). */
    long getErrors();

    /** Index entries not written because their key is over the size Cassandra can store (see the node's log). */
    long getOversizedKeys();

    /** Writes whose index writes would have pushed the batch over the node's mutation size limit: left to the repair service. */
    long getOversizedWrites();

    /** Index tables not maintained because an older cassandra-gsi made them (another table layout): run ./gsi schema apply. */
    long getLayoutMismatches();

    /** Writes the trigger could not index and could not even queue a marker for (see the node's log; ./gsi check --fix indexes them). */
    long getUnmarkedWrites();

    /** Plain writes of tables in node mode handed to this node's maintainer. */
    long getToMaintainer();

    /** Plain writes of tables in node mode the maintainer refused (queue full, retiring): queued for the repair service instead. */
    long getMaintainerRefused();

    /** Writes of tables in eventual indexing taken whole by the maintainer (nothing added to their batch). */
    long getEventualWrites();

    /** False when the check at load of how the trigger tells conditional writes from the others failed: every write is then treated as conditional. */
    boolean isPathDetectionOk();
}
