package io.cassandragsi.repair.jobs;

/**
 * A range of the Murmur3 ring, {@code (start, end]}: the tokens greater than {@code start} and not
 * greater than {@code end}, as a {@code token(pk) > ? AND token(pk) <= ?} restriction reads it.
 */
public record TokenRange(long start, long end) {
    public TokenRange {
        if (start >= end) {
            throw new IllegalArgumentException("empty token range (" + start + ", " + end + "]");
        }
    }

    public boolean contains(long token) {
        return token > start && token <= end;
    }

    @Override
    public String toString() {
        return "(" + start + ", " + end + "]";
    }
}
