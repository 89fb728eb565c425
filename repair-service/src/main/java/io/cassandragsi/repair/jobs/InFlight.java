package io.cassandragsi.repair.jobs;

import io.cassandragsi.repair.store.IndexWriter;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Bounds the asynchronous reads of a job: {@link #submit} blocks the (worker) caller while
 * {@code max} requests are outstanding, and retries a failed request a few times with backoff
 * ({@link IndexWriter#retrying}, as the job's writes are). Every read is idempotent, so a retry is
 * always safe. Never call {@link #submit} from a driver callback: it may block. A job's writes go
 * through the process's {@link IndexWriter}.
 */
final class InFlight {
    static final int ATTEMPTS = 4;
    private final Semaphore permits;
    final AtomicLong retries = new AtomicLong();

    InFlight(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max in-flight requests must be at least 1, not " + max);
        }
        this.permits = new Semaphore(max);
    }

    <T> CompletableFuture<T> submit(Supplier<? extends CompletionStage<T>> request) throws InterruptedException {
        permits.acquire();
        CompletableFuture<T> result = IndexWriter.retrying(request, ATTEMPTS, retries);
        result.whenComplete((v, e) -> permits.release());
        return result;
    }

    /** Waits until no write of {@code round} (a token range, a batch of fixes) is outstanding; throws the first failure. */
    static void await(IndexWriter.Round<?> round) throws InterruptedException {
        Map<?, Throwable> failed = round.await();
        if (!failed.isEmpty()) {
            throw failed(failed.values().iterator().next());
        }
    }

    /** The failure of a job whose write failed for good with {@code t}. */
    static JobFailedException failed(Throwable t) {
        return new JobFailedException("index request failed after " + ATTEMPTS + " attempts: " + t, t);
    }

    /** The value of a read submitted here; a read that failed for good fails the job. */
    static <T> T join(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (CompletionException e) {
            throw new JobFailedException("read failed after " + ATTEMPTS + " attempts: " + e.getCause(), e.getCause());
        }
    }
}
