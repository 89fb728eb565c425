package io.cassandragsi.repair.store;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;

/**
 * One table in memory under the rules of Cassandra that the service's tables depend on, for the
 * in-memory twins (STYLE.md item 3):
 *
 * <ul>
 *   <li>per-cell last-write-wins: the higher write timestamp wins; on equal timestamps a tombstone
 *       wins, else the greater value (its bytes, unsigned), else the later expiry;
 *   <li>TTL: a cell written with a TTL is gone once the clock passes its expiry; a row exists
 *       while its row marker (written by {@code INSERT}, not by {@code UPDATE}) or any cell lives;
 *   <li>a row delete shadows every cell written at or below its timestamp;
 *   <li>lightweight transactions are linearizable compare-and-set on one partition, written at a
 *       ballot timestamp above every earlier ballot of that partition.
 * </ul>
 *
 * Plain writes take the clock's microseconds, so two writers in the same microsecond tie.
 */
public final class MemoryTable {
    /** The row marker's column. */
    static final String MARKER = "";

    private final Clock clock;
    private final Map<Object, Map<String, Cell>> rows = new HashMap<>();
    private final Map<Object, Long> rowDeletes = new HashMap<>();
    private final Map<Object, Long> ballots = new HashMap<>();

    /** A cell: a value, or a tombstone (null value), its write timestamp and when it expires. */
    record Cell(byte[] value, long timestamp, long expiresAtMillis) {
        boolean isTombstone() {
            return value == null;
        }
    }

    public MemoryTable(Clock clock) {
        this.clock = clock;
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
        long expires = ttlSeconds > 0 ? clock.millis() + ttlSeconds * 1000L : Long.MAX_VALUE;
        Map<String, Cell> row = rows.computeIfAbsent(key, k -> new HashMap<>());
        if (marker) {
            row.merge(MARKER, new Cell(new byte[0], timestamp, expires), MemoryTable::reconcile);
        }
        values.forEach((column, value) -> row.merge(column, new Cell(value, timestamp, value == null ? Long.MAX_VALUE : expires),
                MemoryTable::reconcile));
    }

    /** Deletes the row at {@code timestamp}. */
    public synchronized void deleteRow(Object key, long timestamp) {
        rowDeletes.merge(key, timestamp, Math::max);
    }

    /** The live value of a cell, or null. */
    public synchronized byte[] read(Object key, String column) {
        Cell c = rows.getOrDefault(key, Map.of()).get(column);
        return live(key, c) ? c.value() : null;
    }

    /** Whether the row has a live marker or cell. */
    public synchronized boolean exists(Object key) {
        return rows.getOrDefault(key, Map.of()).values().stream().anyMatch(c -> live(key, c));
    }

    /** The keys of the rows that exist. */
    public synchronized List<Object> keys() {
        List<Object> out = new ArrayList<>();
        for (Object key : rows.keySet()) {
            if (exists(key)) {
                out.add(key);
            }
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

    private boolean live(Object key, Cell c) {
        return c != null && !c.isTombstone() && c.expiresAtMillis() > clock.millis() && c.timestamp() > rowDeletes.getOrDefault(key, Long.MIN_VALUE);
    }

    /** Cassandra's reconciliation of two versions of one cell. */
    static Cell reconcile(Cell a, Cell b) {
        if (a.timestamp() != b.timestamp()) {
            return a.timestamp() > b.timestamp() ? a : b;
        }
        if (a.isTombstone() != b.isTombstone()) {
            return a.isTombstone() ? a : b;
        }
        if (a.isTombstone()) {
            return a;
        }
        int c = Arrays.compareUnsigned(a.value(), b.value());
        if (c != 0) {
            return c > 0 ? a : b;
        }
        return a.expiresAtMillis() >= b.expiresAtMillis() ? a : b;
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
