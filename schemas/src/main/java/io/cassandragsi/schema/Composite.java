package io.cassandragsi.schema;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Cassandra's composite encoding of several values in one blob (the form of a multi-column
 * partition key): for each value a 2-byte length, the bytes, and an end-of-component byte 0.
 * Markers carry base keys in this form; it is also how to read a composite partition key.
 */
public final class Composite {
    private Composite() {}

    public static ByteBuffer encode(List<ByteBuffer> values) {
        int size = 0;
        for (ByteBuffer v : values) {
            size += 3 + v.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (ByteBuffer v : values) {
            if (v.remaining() > 0xFFFF) {
                throw new IllegalArgumentException("value too long for a composite: " + v.remaining() + " bytes");
            }
            out.putShort((short) v.remaining());
            out.put(v.duplicate());
            out.put((byte) 0);
        }
        out.flip();
        return out;
    }

    public static List<ByteBuffer> decode(ByteBuffer composite) {
        ByteBuffer in = composite.duplicate();
        List<ByteBuffer> values = new ArrayList<>();
        while (in.hasRemaining()) {
            if (in.remaining() < 3) {
                throw new IllegalArgumentException("truncated composite value");
            }
            int length = in.getShort() & 0xFFFF;
            if (in.remaining() < length + 1) {
                throw new IllegalArgumentException("truncated composite value");
            }
            ByteBuffer v = in.slice();
            v.limit(length);
            values.add(v);
            in.position(in.position() + length);
            in.get();
        }
        return values;
    }
}
