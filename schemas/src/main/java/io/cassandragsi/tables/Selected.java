package io.cassandragsi.tables;

import java.nio.ByteBuffer;

/**
 * One row of a select, by column position, in Cassandra's serialized form (null for a null): the
 * driver's {@code Row.getBytesUnsafe} and a result set inside the node both look like this, so the
 * table classes of this package decode for both.
 */
@FunctionalInterface
public interface Selected {
    ByteBuffer column(int i);

    default boolean isNull(int i) {
        return column(i) == null;
    }

    default long bigint(int i) {
        ByteBuffer b = column(i);
        return b.getLong(b.position());
    }

    default int integer(int i) {
        ByteBuffer b = column(i);
        return b.getInt(b.position());
    }
}
