package io.cassandragsi.oracle;

import java.util.UUID;

/**
 * Version-1 UUIDs as Cassandra's {@code TimeUUIDType} orders them, written here again on purpose:
 * the oracles share no code with the project.
 */
public final class Timeuuids {
    /** 100-ns intervals from the UUID epoch (1582-10-15) to the Unix epoch. */
    private static final long GREGORIAN_TO_UNIX = 0x01B21DD213814000L;

    private Timeuuids() {}

    /** The UUID's time in 100-ns ticks since 1970-01-01T00:00Z. */
    public static long ticks(UUID u) {
        if (u.version() != 1) {
            throw new IllegalArgumentException("not a time-based UUID: " + u);
        }
        return u.timestamp() - GREGORIAN_TO_UNIX;
    }

    /** {@code TimeUUIDType}'s order: by time, then by the clock sequence and node bytes, compared signed. */
    public static int compare(UUID a, UUID b) {
        int c = Long.compare(ticks(a), ticks(b));
        if (c != 0) {
            return c;
        }
        long x = a.getLeastSignificantBits();
        long y = b.getLeastSignificantBits();
        for (int shift = 56; shift >= 0; shift -= 8) {
            c = Byte.compare((byte) (x >>> shift), (byte) (y >>> shift));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** A time-based UUID at {@code ticks} 100-ns intervals after the Unix epoch, with the given clock sequence and node bits. */
    public static UUID at(long ticks, long clockSeqAndNode) {
        long t = ticks + GREGORIAN_TO_UNIX;
        long msb = (t << 32) | ((t >>> 16) & 0xFFFF0000L) | 0x1000L | ((t >>> 48) & 0x0FFFL);
        return new UUID(msb, (clockSeqAndNode & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
    }
}
