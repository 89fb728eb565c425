package io.cassandragsi.maintain;

import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Comparator;
import java.util.UUID;

/**
 * One stored version of a versioned base row: {@code values} by attribute position; {@code known}
 * the attributes read (null: all of them, a complete version), the others are not known and read
 * as null. How a version is read is the storage adapter's; what it means is the same on the node
 * and in the service.
 */
public record Version(ByteBuffer[] values, int tidAttribute, BitSet known) implements VersionRow {
    /** Ascending tid order, as Cassandra's TimeUUIDType orders them. */
    public static final Comparator<Version> ASCENDING = (a, b) -> Tids.compare(a.tid(), b.tid());

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
