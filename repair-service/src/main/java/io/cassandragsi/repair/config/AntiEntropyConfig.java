package io.cassandragsi.repair.config;

import java.time.Duration;

/**
 * {@code anti_entropy}: the service's continuous, slow {@code check --fix} of every index
 * (docs/design.md section 9.3). {@code rowsPerSecond} paces it (base rows and index entries read
 * per second, and each range scanned counts one); a table's passes start at most every {@code
 * passInterval}; the first waits {@code startAfter} after the service started; each pass is split
 * into {@code splits} token ranges, each recorded when done.
 */
public record AntiEntropyConfig(boolean enabled, int rowsPerSecond, Duration startAfter, Duration passInterval, int splits) {
    public static AntiEntropyConfig defaults() {
        return new AntiEntropyConfig(true, 200, Duration.ofMinutes(1), Duration.ofMinutes(1), 64);
    }

    public AntiEntropyConfig {
        if (rowsPerSecond < 1) {
            throw new IllegalArgumentException("anti_entropy.rows_per_second must be at least 1, not " + rowsPerSecond);
        }
        if (splits < 1 || splits > 4096) {
            throw new IllegalArgumentException("anti_entropy.splits must be from 1 to 4096, not " + splits);
        }
    }

    public AntiEntropyConfig withEnabled(boolean e) {
        return new AntiEntropyConfig(e, rowsPerSecond, startAfter, passInterval, splits);
    }
}
