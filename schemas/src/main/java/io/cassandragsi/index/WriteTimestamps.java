package io.cassandragsi.index;

import java.util.UUID;

/**
 * The write-timestamp rule (docs/design.md section 4.1, contract): every index cell written for version
 * {@code t} uses {@code TS(t)}, the tid's own time at its full 100-ns resolution, counted from the
 * Unix epoch.
 *
 * <pre>TS(t) = t.timestamp() - 0x01B21DD213814000   (100-ns ticks since 1970-01-01T00:00Z)</pre>
 *
 * <p>Consequences, all intended:
 * <ul>
 *   <li>TS is strictly increasing in the tid's time, so Cassandra's last-write-wins keeps, for every
 *       index cell, the value written for the latest version, whatever the order in which the
 *       trigger, the repair service, retries and rebuilds deliver their writes. Every index write
 *       is idempotent and order-independent.
 *   <li>Two tids in the same 100-ns tick (they differ only in clock sequence or node) get the same
 *       TS; Cassandra then keeps the greater value (tombstones win ties), deterministically on
 *       every replica.
 *   <li>TS is ten times a microsecond timestamp of the same moment. Index tables must be written
 *       only by this project: a client write with a microsecond timestamp always loses.
 * </ul>
 */
public final class WriteTimestamps {
    /** 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch. */
    public static final long UUID_EPOCH_OFFSET = 0x01B21DD213814000L;

    private WriteTimestamps() {}

    /** TS(t) for a version-1 (time-based) UUID. */
    public static long of(UUID tid) {
        if (tid.version() != 1) {
            throw new IllegalArgumentException("not a timeuuid (version " + tid.version() + "): " + tid);
        }
        return tid.timestamp() - UUID_EPOCH_OFFSET;
    }

    /** TS(t) from the most significant 64 bits of a version-1 UUID. */
    public static long ofMostSignificantBits(long msb) {
        long ticks = ((msb & 0x0FFFL) << 48) | (((msb >>> 16) & 0xFFFFL) << 32) | (msb >>> 32);
        return ticks - UUID_EPOCH_OFFSET;
    }

    /** TS(t) from a serialized timeuuid (16 bytes); the buffer's position is left alone. */
    public static long ofSerialized(java.nio.ByteBuffer tid) {
        if (tid.remaining() != 16) {
            throw new IllegalArgumentException("a timeuuid has 16 bytes, not " + tid.remaining());
        }
        long msb = tid.getLong(tid.position());
        if (((msb >>> 12) & 0xF) != 1) {
            throw new IllegalArgumentException("not a timeuuid (version " + ((msb >>> 12) & 0xF) + ")");
        }
        return ofMostSignificantBits(msb);
    }

    /** Milliseconds since the Unix epoch of a timestamp TS. */
    public static long toEpochMillis(long ts) {
        return Math.floorDiv(ts, 10_000L);
    }
}
