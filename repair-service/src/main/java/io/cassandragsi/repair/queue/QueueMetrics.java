package io.cassandragsi.repair.queue;

import java.util.concurrent.atomic.LongAdder;

/** Counters of the queue consumer; published through Micrometer by the service. */
public final class QueueMetrics {
    public final LongAdder markersRead = new LongAdder();
    public final LongAdder markersDone = new LongAdder();
    public final LongAdder lateMarkers = new LongAdder();
    public final LongAdder casNotApplied = new LongAdder();
    public final LongAdder gaveUp = new LongAdder();
    /** Markers dropped after {@link io.cassandragsi.maintain.NextStep#GIVE_UP} because no index table of their table was known all that time. */
    public final LongAdder unknownTables = new LongAdder();
    /** Shards taken without a checkpoint (read from as far back as the queue keeps markers). */
    public final LongAdder shardsWithoutCheckpoint = new LongAdder();
    public final LongAdder errors = new LongAdder();
}
