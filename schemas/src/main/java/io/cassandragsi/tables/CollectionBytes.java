package io.cassandragsi.tables;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Cassandra's serialized collections (the native protocol's format since v3, also a result's
 * inside the node): a 4-byte element count, then each element as a 4-byte length and its bytes.
 */
public final class CollectionBytes {
    private CollectionBytes() {}

    /**
     * The elements of a serialized set or list (empty for null); each a slice of {@code collection},
     * never a read-only one: the in-node maintainer hands them to Cassandra (docs/design.md section 7.8).
     */
    public static List<ByteBuffer> elements(ByteBuffer collection) {
        if (collection == null || !collection.hasRemaining()) {
            return List.of();
        }
        ByteBuffer b = collection.duplicate();
        int n = b.getInt();
        List<ByteBuffer> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int len = b.getInt();
            if (len < 0) {
                out.add(null);
                continue;
            }
            ByteBuffer e = b.slice();
            e.limit(len);
            out.add(e);
            b.position(b.position() + len);
        }
        return out;
    }

    /** The values of a serialized list of bigints (what {@code WRITETIME} of a collection returns), empty for null. */
    public static long[] bigints(ByteBuffer list) {
        List<ByteBuffer> elements = elements(list);
        long[] out = new long[elements.size()];
        for (int i = 0; i < out.length; i++) {
            ByteBuffer e = elements.get(i);
            out[i] = e == null ? Long.MIN_VALUE : e.getLong(e.position());
        }
        return out;
    }

    /** A serialized list (or set) of the given serialized elements: the bound value of an {@code IN ?} over keys of any type. */
    public static ByteBuffer of(List<ByteBuffer> elements) {
        int size = 4;
        for (ByteBuffer e : elements) {
            size += 4 + e.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.putInt(elements.size());
        for (ByteBuffer e : elements) {
            out.putInt(e.remaining()).put(e.duplicate());
        }
        return out.flip();
    }
}
