package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import java.math.BigInteger;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A steady write load beside a read benchmark ({@code gsi bench read --write-load N}): {@code N}
 * indexed writes per second into the benchmark's table, in ticks of 10 ms, each a new row with an
 * indexed value outside the values the reads ask for (their answers do not change), so that the
 * reads, and above all the fresh read's wait for the safe time (docs/design.md section 8.7), are
 * measured while the maintainers work. At most 256 writes in flight; a tick that finds none free
 * skips its writes and counts them as not sent, so the load never queues up behind a slow node.
 */
final class BackgroundWrites implements AutoCloseable {
    private static final int MAX_IN_FLIGHT = 256;

    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-write-load");
        t.setDaemon(true);
        return t;
    });
    private final Semaphore inFlight = new Semaphore(MAX_IN_FLIGHT);
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final long startNanos = System.nanoTime();
    private final int perSecond;

    /** Starts {@code perSecond} writes per second of {@code insert} (key, tid, length, value); 0 starts nothing. */
    BackgroundWrites(CqlSession session, PreparedStatement insert, int perSecond) {
        if (perSecond < 0) {
            throw new IllegalArgumentException("--write-load must be 0 or more writes per second, got " + perSecond);
        }
        this.perSecond = perSecond;
        if (perSecond == 0) {
            return;
        }
        Random rnd = new Random(7);
        String value = "y".repeat(200);
        AtomicLong sent = new AtomicLong();
        ticker.scheduleAtFixedRate(() -> {
            // the writes due by now, less those already sent: a late tick catches up, a slow node does not pile up
            long due = (System.nanoTime() - startNanos) * perSecond / 1_000_000_000L;
            while (sent.get() < due) {
                long i = sent.incrementAndGet();
                if (!inFlight.tryAcquire()) {
                    skipped.incrementAndGet();
                    continue;
                }
                // lengths from 2,000 up: never the values the reads ask for (HOT, RARE and the loaded rows' 10..1009)
                session.executeAsync(insert.bind("load-" + i, Uuids.timeBased(), BigInteger.valueOf(2_000 + rnd.nextInt(1_000)), value))
                        .whenComplete((r, e) -> {
                            (e == null ? acked : failed).incrementAndGet();
                            inFlight.release();
                        });
            }
        }, 0, 10, TimeUnit.MILLISECONDS);
    }

    /** Acknowledged writes per second since the start. */
    double ackedPerSecond() {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        return seconds <= 0 ? 0 : acked.get() / seconds;
    }

    /** The asked rate, the rate acknowledged, and the writes that failed or were skipped (too many in flight). */
    String summary() {
        return String.format(java.util.Locale.ROOT, "write load: asked %d/s, acknowledged %.0f/s, %d failed, %d skipped (%d in flight at most)",
                perSecond, ackedPerSecond(), failed.get(), skipped.get(), MAX_IN_FLIGHT);
    }

    long failed() {
        return failed.get();
    }

    long skipped() {
        return skipped.get();
    }

    @Override
    public void close() throws InterruptedException {
        ticker.shutdownNow();
        inFlight.tryAcquire(MAX_IN_FLIGHT, 30, TimeUnit.SECONDS); // let the last writes land before the node stops
    }
}
