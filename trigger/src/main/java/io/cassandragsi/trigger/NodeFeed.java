package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * What the in-node maintainer consumes (docs/design.md section 7): a version of a row to maintain.
 * The trigger is one feed; nothing in the maintainer depends on where versions come from.
 */
interface NodeFeed {
    /**
     * Takes a plain write of a row (the versions {@code tidMin .. tidMax} of the row {@code pk},
     * {@code ck}) to maintain; returns its marker, with the id the maintainer assigned, or null when
     * the maintainer refuses it (queue full, retiring): then the repair service takes it.
     */
    Marker offer(String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags);

    /** The queue shard the markers of accepted writes go to (the maintainer's epoch). */
    int shard();
}
