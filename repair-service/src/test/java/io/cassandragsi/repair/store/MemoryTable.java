package io.cassandragsi.repair.store;

import io.cassandragsi.oracle.LwwTable;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * One table in memory under the rules of Cassandra that the service's tables depend on, for the
 * in-memory twins (docs/design.md section 1). The cells, row markers, TTLs and deletions are the tests' one
 * last-write-wins model ({@link LwwTable}, in the schemas test-jar): per-cell last-write-wins with
 * Cassandra 5.0.6's full tie rule (a tombstone or an expiring cell beats a live one, a tombstone
 * an expiring one, then the later expiry, the lower TTL, the greater value), TTLs in whole
 * seconds of the clock, a row that exists while its row marker (written by {@code INSERT}, not by
 * {@code UPDATE}) or any cell lives, and a row delete that shadows every cell at or below its
 * timestamp. On top of it, lightweight transactions: linearizable compare-and-set on one partition,
 * written at a ballot timestamp above every earlier ballot of that partition.
 *
 * <p>Plain writes take the clock's microseconds, so two writers in the same microsecond tie.
 */
public final class MemoryTable {
    private final Clock clock;
    private final LwwTable table;
    private final Map<Object, Long> ballots = new HashMap<>();

    public MemoryTable(Clock clock) {
        this.clock = clock;
        this.table = new LwwTable(clock::millis);
    }

    /** The timestamp of a plain write now: the clock in microseconds. */
    public long now() {
        Instant i = clock.instant();
        return i.getEpochSecond() * 1_000_000L + i.getNano() / 1_000;
    }

    /**
     * Writes cells of one row at {@code timestamp} ({@code INSERT} with {@code marker}, {@code
     * UPDATE} without), expiring after {@code ttlSeconds} (0: never); a null value writes a
     * tombstone.
     */
    public synchronized void write(Object key, boolean marker, Map<String, byte[]> values, int ttlSeconds, long timestamp) {
        if (marker) {
            table.insertMarker(key, null, timestamp, ttlSeconds);
        }
        values.forEach((column, value) -> table.write(key, null, column, value == null ? null : ByteBuffer.wrap(value), timestamp, ttlSeconds));
    }

    /** Deletes the row at {@code timestamp}. */
    public synchronized void deleteRow(Object key, long timestamp) {
        table.deleteRow(key, null, timestamp);
    }

    /** The live value of a cell, or null. */
    public synchronized byte[] read(Object key, String column) {
        ByteBuffer v = table.value(key, null, column);
        if (v == null) {
            return null;
        }
        byte[] out = new byte[v.remaining()];
        v.duplicate().get(out);
        return out;
    }

    /** Whether the row has a live marker or cell. */
    public synchronized boolean exists(Object key) {
        return table.exists(key, null);
    }

    /** The keys of the rows that exist. */
    public synchronized List<Object> keys() {
        List<Object> out = new ArrayList<>();
        for (LwwTable.RowKey k : table.liveRows()) {
            out.add(k.partition());
        }
        return out;
    }

    /**
     * A lightweight transaction on one partition: {@code body} reads and writes the table at the
     * ballot timestamp it is given, atomically with respect to every other call.
     */
    public synchronized <T> T lwt(Object key, LongFunction<T> body) {
        long ballot = Math.max(now(), ballots.getOrDefault(key, Long.MIN_VALUE) + 1);
        ballots.put(key, ballot);
        return body.apply(ballot);
    }

    static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /** A CQL timestamp: milliseconds since 1970, 8 bytes big-endian. */
    static byte[] timestamp(Instant i) {
        return ByteBuffer.allocate(8).putLong(i.toEpochMilli()).array();
    }

    static Instant timestamp(byte[] b) {
        return b == null ? null : Instant.ofEpochMilli(ByteBuffer.wrap(b).getLong());
    }
}
