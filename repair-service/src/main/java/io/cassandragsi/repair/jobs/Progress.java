package io.cassandragsi.repair.jobs;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/** Live counters of one job, updated by its workers, read by progress bars and the job registry. */
public final class Progress {
    private final AtomicInteger rangesTotal = new AtomicInteger();
    private final AtomicInteger rangesDone = new AtomicInteger();
    private volatile int rangesSkipped;
    private final LongAdder rows = new LongAdder();
    private final LongAdder entries = new LongAdder();
    private final LongAdder writes = new LongAdder();
    private volatile String phase = "starting";
    private volatile long startNanos = System.nanoTime();
    private volatile long endNanos;

    /** Starts the clock: {@code skipped} ranges were finished by an earlier run and count as done. */
    void start(int total, int skipped) {
        rangesTotal.set(total);
        rangesDone.set(skipped);
        rangesSkipped = skipped;
        startNanos = System.nanoTime();
    }

    void phase(String phase) {
        this.phase = phase;
    }

    void rangeDone() {
        rangesDone.incrementAndGet();
    }

    private volatile Pacer pacer;

    /** From now on, every row and entry counted also waits for its turn ({@link Pacer}): a job that must stay slow. */
    void pace(Pacer p) {
        this.pacer = p;
    }

    void rows(long n) {
        rows.add(n);
        Pacer p = pacer;
        if (p != null) {
            p.take(n);
        }
    }

    void entries(long n) {
        entries.add(n);
        Pacer p = pacer;
        if (p != null) {
            p.take(n);
        }
    }

    void writes(long n) {
        writes.add(n);
    }

    void finish(String phase) {
        this.phase = phase;
        endNanos = System.nanoTime();
    }

    public ProgressSnapshot snapshot() {
        long end = endNanos != 0 ? endNanos : System.nanoTime();
        Duration elapsed = Duration.ofNanos(Math.max(0, end - startNanos));
        int total = rangesTotal.get();
        int done = rangesDone.get();
        int skipped = rangesSkipped;
        long r = rows.sum();
        long e = entries.sum();
        double seconds = elapsed.toNanos() / 1e9;
        double rate = seconds <= 0 ? 0 : (r + e) / seconds;
        Duration eta = null;
        if (endNanos != 0) {
            eta = Duration.ZERO;
        } else if (done > skipped) {
            eta = Duration.ofNanos((long) (elapsed.toNanos() * (double) (total - done) / (done - skipped)));
        }
        return new ProgressSnapshot(phase, done, total, skipped, r, e, writes.sum(), rate, elapsed, eta);
    }
}
