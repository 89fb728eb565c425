package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import java.nio.ByteBuffer;
import java.util.UUID;

/** What takes the plain rows of a write for the in-node maintainer (docs/design.md section 7.8). */
@FunctionalInterface
interface RowFeed {
    /**
     * Takes a plain write of a row (the versions {@code tidMin .. tidMax} of the row {@code pk},
     * {@code ck}) to maintain, its marker id {@code id} (the one the write's rows-table record names,
     * docs/design.md section 6.6); returns its marker, or null when the maintainer refuses it (queue
     * full, retiring): then the repair service takes it, under the same id.
     */
    Marker offer(UUID id, String keyspace, String table, ByteBuffer pk, ByteBuffer ck, UUID tidMin, UUID tidMax, int flags);
}
