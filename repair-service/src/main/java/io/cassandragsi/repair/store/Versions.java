package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Comparator;
import java.util.UUID;

/** One stored version of a base row, read with every attribute or with the ones a read needs. */
public final class Versions {
    private Versions() {}

    /**
     * A version: {@code values} by attribute position; {@code known} the attributes read (null: all
     * of them, a complete version), the others are not known and read as null.
     */
    public record Version(ByteBuffer[] values, int tidAttribute, BitSet known) implements VersionRow {
        /** A complete version: every attribute known, nulls are nulls. */
        public Version(ByteBuffer[] values, int tidAttribute) {
            this(values, tidAttribute, null);
        }

        @Override
        public boolean has(int attribute) {
            return known == null || known.get(attribute);
        }

        @Override
        public ByteBuffer get(int attribute) {
            ByteBuffer v = values[attribute];
            return v == null ? null : v.duplicate();
        }

        public UUID tid() {
            return Tids.uuid(values[tidAttribute]);
        }
    }

    /** Ascending tid order, as Cassandra's TimeUUIDType orders them. */
    public static final Comparator<Version> ASCENDING = (a, b) -> Tids.compare(a.tid(), b.tid());

    /** A row selected with the attributes in definition order. */
    static Version of(Row row, int attributes, int tidAttribute) {
        ByteBuffer[] values = new ByteBuffer[attributes];
        for (int i = 0; i < attributes; i++) {
            values[i] = row.getBytesUnsafe(i);
        }
        return new Version(values, tidAttribute);
    }

    /** A row selected with the attributes at {@code positions}, in that order; the others not known. */
    static Version of(Row row, int attributes, int tidAttribute, int[] positions, BitSet known) {
        ByteBuffer[] values = new ByteBuffer[attributes];
        for (int i = 0; i < positions.length; i++) {
            values[positions[i]] = row.getBytesUnsafe(i);
        }
        return new Version(values, tidAttribute, known);
    }
}
