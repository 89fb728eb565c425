package io.cassandragsi.index;

import java.nio.ByteBuffer;

/**
 * The attribute values of one version of a base row, by attribute position (the order of the
 * definition's attributes). Values are in Cassandra's serialized form, which is also the native
 * protocol's, so the trigger and the repair service share one derivation.
 */
public interface VersionRow {
    /** True when this write says something about the attribute: a value or an explicit null. */
    boolean has(int attribute);

    /** The serialized value, or null for an explicit null. Only meaningful when {@link #has}. */
    ByteBuffer get(int attribute);
}
