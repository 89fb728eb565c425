package io.cassandragsi.repair.bench;

import java.util.Arrays;

/** Recorded latencies (ns) and their percentiles, nearest-rank. Pure. */
final class Latencies {
    private long[] values = new long[1024];
    private int size;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    int size() {
        return size;
    }

    /** The p-th percentile (0 < p <= 100) in milliseconds, nearest rank; NaN when empty. */
    double percentileMillis(double p) {
        if (size == 0) {
            return Double.NaN;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(p / 100.0 * size);
        return sorted[Math.max(0, Math.min(size - 1, rank - 1))] / 1e6;
    }
}
