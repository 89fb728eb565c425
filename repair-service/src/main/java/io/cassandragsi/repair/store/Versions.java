package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.maintain.Version;
import java.nio.ByteBuffer;
import java.util.BitSet;

/** Decodes stored versions of a base row ({@link Version}), read with every attribute or with the ones a read needs. */
public final class Versions {
    private Versions() {}

    /** A row selected with the attributes in definition order. */
    public static Version of(Row row, int attributes, int tidAttribute) {
        ByteBuffer[] values = new ByteBuffer[attributes];
        for (int i = 0; i < attributes; i++) {
            values[i] = row.getBytesUnsafe(i);
        }
        return new Version(values, tidAttribute);
    }

    /** A row selected with the attributes at {@code positions}, in that order; the others not known. */
    public static Version of(Row row, int attributes, int tidAttribute, int[] positions, BitSet known) {
        ByteBuffer[] values = new ByteBuffer[attributes];
        for (int i = 0; i < positions.length; i++) {
            values[positions[i]] = row.getBytesUnsafe(i);
        }
        return new Version(values, tidAttribute, known);
    }
}
