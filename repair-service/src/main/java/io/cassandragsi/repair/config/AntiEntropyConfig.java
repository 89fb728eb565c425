package io.cassandragsi.repair.config;

import java.time.Duration;

/**
 * {@code anti_entropy}: the service's continuous, slow {@code check --fix} of every index
 * (docs/design.md section 9.3). {@code rowsPerSecond} paces it (base rows and index entries read
 * per second, and each range scanned counts one); a table's passes start at most every {@code
 * passInterval}; the first waits {@code startAfter} after the service started; each pass is split
 * into {@code splits} token ranges, each recorded when done. A difference on a row written less than
 * {@code settle} ago, or since the safe time, is left to the maintainers: a write its client never saw
 * acknowledged (a coordinator that died mid-batch) lands when a batchlog replays it, below the safe
 * time, with its marker; the markers' sweeps read such a marker up to {@link #MARKER_REACH} after its
 * id (docs/design.md sections 7.3 and 9.3).
 */
public record AntiEntropyConfig(boolean enabled, int rowsPerSecond, Duration startAfter, Duration passInterval, int splits, Duration settle) {
    /** How late a marker can become visible and still be read: the deepest sweep's reach (docs/design.md section 7.3). */
    public static final Duration MARKER_REACH = Duration.ofMinutes(15);

    public static AntiEntropyConfig defaults() {
        return new AntiEntropyConfig(true, 200, Duration.ofMinutes(1), Duration.ofMinutes(1), 64, MARKER_REACH);
    }

    public AntiEntropyConfig {
        if (rowsPerSecond < 1) {
            throw new IllegalArgumentException("anti_entropy.rows_per_second must be at least 1, not " + rowsPerSecond);
        }
        if (splits < 1 || splits > 4096) {
            throw new IllegalArgumentException("anti_entropy.splits must be from 1 to 4096, not " + splits);
        }
        if (settle.isNegative()) {
            throw new IllegalArgumentException("anti_entropy.settle must not be negative, not " + settle);
        }
    }

    public AntiEntropyConfig withEnabled(boolean e) {
        return new AntiEntropyConfig(e, rowsPerSecond, startAfter, passInterval, splits, settle);
    }

    public AntiEntropyConfig withSettle(Duration d) {
        return new AntiEntropyConfig(enabled, rowsPerSecond, startAfter, passInterval, splits, d);
    }
}
