package io.cassandragsi.repair.read;

import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The wait of a fresh read (docs/design.md section 8.7): until the table's safe time has passed
 * the moment the read arrived, looked at every {@value #LOOK_EVERY_MILLIS} ms on one scheduler
 * thread, so no thread is parked per read. Past its deadline it fails with 503 {@code
 * fresh_timeout}, naming what holds the safe time back and when to try again. A safe time not
 * known yet is waited for like one behind; one the service's settings keep unknown (queue reads
 * weaker than a quorum) fails the read at once.
 */
final class FreshWait {
    static final long LOOK_EVERY_MILLIS = 10;

    private final IndexReader.SafeTimes safeTimes;
    private final ScheduledExecutorService scheduler;

    FreshWait(IndexReader.SafeTimes safeTimes, ScheduledExecutorService scheduler) {
        this.safeTimes = safeTimes;
        this.scheduler = scheduler;
    }

    /** Completes once the safe time of {@code table} is at or after {@code arrival}; fails once {@code max} has passed. */
    CompletableFuture<Void> until(TableDef table, Instant arrival, Duration max) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long deadline = System.nanoTime() + max.toNanos();
        look(done, table, arrival, max, deadline);
        return done;
    }

    private void look(CompletableFuture<Void> done, TableDef table, Instant arrival, Duration max, long deadline) {
        Instant safe;
        String unknown = null;
        try {
            safe = safeTimes.of(table);
        } catch (ReadException e) {
            if (e.kind() != ReadException.Kind.NOT_READY || !e.passes()) { // a safe time the settings keep unknown: no wait ends
                done.completeExceptionally(e);
                return;
            }
            safe = null;
            unknown = e.detail();
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
            return;
        }
        if (safe != null && !safe.isBefore(arrival)) {
            done.complete(null);
            return;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            done.completeExceptionally(timedOut(table, arrival, max, safe, unknown));
            return;
        }
        try {
            scheduler.schedule(() -> look(done, table, arrival, max, deadline), Math.min(LOOK_EVERY_MILLIS, TimeUnit.NANOSECONDS.toMillis(left) + 1),
                    TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) { // the reader is closing
            done.completeExceptionally(ReadException.unavailable("the reader is closing", e));
        }
    }

    /** 503 naming how far behind the safe time is and what holds it back, with a {@code Retry-After} of that distance. */
    private ReadException timedOut(TableDef table, Instant arrival, Duration max, Instant safe, String unknown) {
        String held = safeTimes.heldBy(table);
        String behind = safe == null ? "is not known (" + unknown + ")"
                : "is " + Duration.between(safe, arrival).toMillis() + " ms behind the read's arrival (" + safe + ")";
        long retryAfter = safe == null ? 1 : Math.max(1, (Duration.between(safe, arrival).toMillis() + 999) / 1000);
        return ReadException.freshTimeout("the safe time of " + table.qualifiedName() + " " + behind + " after "
                + max.toMillis() + " ms of waiting" + (held == null ? "" : "; held back by " + held)
                + "; try again later, or read without fresh=true (eventual, or consistent=true)", retryAfter);
    }
}
