package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Bounds the asynchronous requests of a job: {@link #submit} blocks the (worker) caller while
 * {@code max} requests are outstanding, and retries a failed request a few times with backoff.
 * Every request a job makes is idempotent (reads, and writes at a fixed TS), so a retry is always
 * safe. Never call {@link #submit} from a driver callback: it may block.
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
        CompletableFuture<T> result = new CompletableFuture<>();
        result.whenComplete((v, e) -> permits.release());
        attempt(request, 1, result);
        return result;
    }

    private <T> void attempt(Supplier<? extends CompletionStage<T>> request, int attempt, CompletableFuture<T> result) {
        CompletionStage<T> stage;
        try {
            stage = request.get();
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((v, e) -> {
            if (e == null) {
                result.complete(v);
                return;
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (attempt < ATTEMPTS && !(cause instanceof QueryValidationException)) {
                retries.incrementAndGet();
                CompletableFuture.delayedExecutor(100L << (2 * (attempt - 1)), TimeUnit.MILLISECONDS)
                        .execute(() -> attempt(request, attempt + 1, result));
            } else {
                result.completeExceptionally(cause);
            }
        });
    }

    /** Outstanding requests of one unit of work (a token range, a batch): wait for all, keep the first failure. */
    static final class Pending {
        private final AtomicLong outstanding = new AtomicLong();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        void add(CompletableFuture<?> f) {
            outstanding.incrementAndGet();
            f.whenComplete((v, e) -> {
                if (e != null) {
                    failure.compareAndSet(null, e);
                }
                if (outstanding.decrementAndGet() == 0) {
                    synchronized (this) {
                        notifyAll();
                    }
                }
            });
        }

        Throwable failure() {
            return failure.get();
        }

        /** Waits until nothing is outstanding; throws the first failure. */
        void await() throws InterruptedException {
            synchronized (this) {
                while (outstanding.get() > 0) {
                    wait(1000);
                }
            }
            Throwable t = failure.get();
            if (t != null) {
                throw new JobFailedException("index request failed after " + ATTEMPTS + " attempts: " + t, t);
            }
        }
    }
}
