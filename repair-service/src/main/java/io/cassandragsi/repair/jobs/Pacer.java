package io.cassandragsi.repair.jobs;

import java.util.concurrent.locks.LockSupport;

/**
 * Keeps a job below a rate (rows and entries per second): each {@link #take} waits, on the
 * calling thread, until the job is no further ahead than a tenth of a second of work. Thread-safe.
 */
final class Pacer {
    private final double nanosPerUnit;
    private final long burstNanos;
    private long next;

    Pacer(double perSecond) {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("a pace must be positive, not " + perSecond);
        }
        this.nanosPerUnit = 1e9 / perSecond;
        this.burstNanos = 100_000_000L;
        this.next = System.nanoTime();
    }

    /** Counts {@code units} and waits until they fit the pace (returns early when the thread is interrupted). */
    void take(long units) {
        long wait;
        synchronized (this) {
            long now = System.nanoTime();
            next = Math.max(next, now - burstNanos) + (long) (units * nanosPerUnit);
            wait = next - now - burstNanos;
        }
        if (wait > 0 && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(wait);
        }
    }
}
