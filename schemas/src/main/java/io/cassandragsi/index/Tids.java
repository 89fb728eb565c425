package io.cassandragsi.index;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.UUID;

/** Making and reading version ids (version-1 time UUIDs) without a driver or Cassandra. */
public final class Tids {
    private Tids() {}

    /**
     * A timeuuid at {@code ticks} 100-ns intervals after the Unix epoch (so {@code
     * WriteTimestamps.of(result) == ticks}), with the given clock-sequence-and-node bits.
     */
    public static UUID fromTicks(long ticks, long leastSignificantBits) {
        return raw(ticks, (leastSignificantBits & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
    }

    private static UUID raw(long ticks, long lsb) {
        long t = ticks + WriteTimestamps.UUID_EPOCH_OFFSET;
        long msb = ((t & 0xFFFFFFFFL) << 32) | (((t >>> 32) & 0xFFFFL) << 16) | 0x1000L | ((t >>> 48) & 0x0FFFL);
        return new UUID(msb, lsb);
    }

    /** The smallest timeuuid of a 100-ns tick in Cassandra's order (as CQL's minTimeuuid, at full resolution). */
    public static UUID minAtTicks(long ticks) {
        return raw(ticks, 0x8080808080808080L);
    }

    /** The largest timeuuid of a 100-ns tick in Cassandra's order (as CQL's maxTimeuuid, at full resolution). */
    public static UUID maxAtTicks(long ticks) {
        return raw(ticks, 0x7F7F7F7F7F7F7F7FL);
    }

    public static long ticks(Instant instant) {
        return Math.multiplyExact(instant.getEpochSecond(), 10_000_000L) + instant.getNano() / 100;
    }

    public static Instant instant(UUID tid) {
        long ticks = WriteTimestamps.of(tid);
        return Instant.ofEpochSecond(Math.floorDiv(ticks, 10_000_000L), Math.floorMod(ticks, 10_000_000L) * 100);
    }

    public static ByteBuffer bytes(UUID uuid) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).flip();
        return b;
    }

    public static UUID uuid(ByteBuffer bytes) {
        return new UUID(bytes.getLong(bytes.position()), bytes.getLong(bytes.position() + 8));
    }

    /**
     * Orders timeuuids as Cassandra's TimeUUIDType does: by time, then by the raw bytes of the
     * clock sequence and node (signed byte comparison of the least significant bits).
     */
    public static int compare(UUID a, UUID b) {
        int c = Long.compare(WriteTimestamps.of(a), WriteTimestamps.of(b));
        if (c != 0) {
            return c;
        }
        return compareSignedBytes(a.getLeastSignificantBits(), b.getLeastSignificantBits());
    }

    private static int compareSignedBytes(long x, long y) {
        for (int shift = 56; shift >= 0; shift -= 8) {
            int c = Byte.compare((byte) (x >>> shift), (byte) (y >>> shift));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }
}
