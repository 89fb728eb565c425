package io.cassandragsi.repair.jobs;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts the Murmur3 ring into contiguous ranges of (almost) equal width. Murmur3 tokens are the
 * longs greater than {@link Long#MIN_VALUE} (Cassandra never gives a key the minimum token), so
 * {@code (MIN, MAX]} is the whole ring and the ranges below cover it exactly once.
 */
public final class TokenRanges {
    /** More ranges than this make the job table and the per-range overhead the cost. */
    public static final int MAX_SPLITS = 1 << 16;

    public static final TokenRange FULL_RING = new TokenRange(Long.MIN_VALUE, Long.MAX_VALUE);

    private TokenRanges() {}

    /** {@code n} contiguous ranges covering the ring, in token order; widths differ by at most one. */
    public static List<TokenRange> split(int n) {
        if (n < 1 || n > MAX_SPLITS) {
            throw new IllegalArgumentException("the ring can be split into 1 to " + MAX_SPLITS + " ranges, not " + n);
        }
        BigInteger min = BigInteger.valueOf(Long.MIN_VALUE);
        BigInteger width = BigInteger.valueOf(Long.MAX_VALUE).subtract(min); // tokens in (MIN, MAX]
        BigInteger parts = BigInteger.valueOf(n);
        List<TokenRange> out = new ArrayList<>(n);
        long start = Long.MIN_VALUE;
        for (int i = 1; i <= n; i++) {
            long end = i == n ? Long.MAX_VALUE : min.add(width.multiply(BigInteger.valueOf(i)).divide(parts)).longValueExact();
            out.add(new TokenRange(start, end));
            start = end;
        }
        return out;
    }
}
