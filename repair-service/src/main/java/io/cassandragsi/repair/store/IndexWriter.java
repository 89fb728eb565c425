package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.servererrors.QueryValidationException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one way the service sends index statements (the consumer's coalesced writes, rebuild, check
 * {@code --fix}): at most {@code maxInFlight} statements outstanding at once across every caller
 * of one writer, each statement sent on behalf of a caller's group, and a {@link Round} that says
 * which groups failed and why. Every index statement is idempotent and carries its own timestamp,
 * so a retry is always safe. {@link #capped} gives a caller (a job) a lower limit of its own
 * within the writer's.
 *
 * <p>{@link Round#send} blocks the caller while the limit is reached: never call it from a driver
 * callback.
 */
public final class IndexWriter {
    /** Writes in flight at once across the process: below the driver's per-connection limit. */
    public static final int MAX_IN_FLIGHT = 512;

    private final Function<Statement<?>, ? extends CompletionStage<?>> execute;
    private final Semaphore permits;
    private final IndexWriter parent;
    private final AtomicLong retries = new AtomicLong();

    public IndexWriter(Function<Statement<?>, ? extends CompletionStage<?>> execute, int maxInFlight) {
        this(execute, permits(maxInFlight), null);
    }

    private IndexWriter(Function<Statement<?>, ? extends CompletionStage<?>> execute, Semaphore permits, IndexWriter parent) {
        this.execute = execute;
        this.permits = permits;
        this.parent = parent;
    }

    private static Semaphore permits(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max in-flight writes must be at least 1, not " + max);
        }
        return new Semaphore(max);
    }

    /** A writer over this one's limit with at most {@code maxInFlight} of its own outstanding (one job's). */
    public IndexWriter capped(int maxInFlight) {
        return new IndexWriter(execute, permits(maxInFlight), this);
    }

    /**
     * The writes of one unit of work (a shard step, a token range, a batch of fixes); a failed
     * statement is sent up to {@code attempts} times in all, with backoff (never again when the
     * node refused it as invalid).
     */
    public <G> Round<G> round(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be at least 1, not " + attempts);
        }
        return new Round<>(attempts);
    }

    private void acquire(boolean interruptibly) throws InterruptedException {
        if (interruptibly) {
            permits.acquire();
        } else {
            permits.acquireUninterruptibly();
        }
        if (parent != null) {
            try {
                parent.acquire(interruptibly);
            } catch (InterruptedException e) {
                permits.release();
                throw e;
            }
        }
    }

    private void release() {
        if (parent != null) {
            parent.release();
        }
        permits.release();
    }

    /**
     * Runs {@code request}, and again while it fails, up to {@code attempts} times in all, after
     * 100 ms, 400 ms, 1.6 s ...; counts each retry in {@code retries}.
     */
    public static <T> CompletableFuture<T> retrying(Supplier<? extends CompletionStage<T>> request, int attempts, AtomicLong retries) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(request, 1, attempts, retries, result);
        return result;
    }

    private static <T> void attempt(Supplier<? extends CompletionStage<T>> request, int attempt, int attempts, AtomicLong retries,
            CompletableFuture<T> result) {
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
            if (attempt < attempts && !(cause instanceof QueryValidationException)) {
                retries.incrementAndGet();
                CompletableFuture.delayedExecutor(100L << (2 * (attempt - 1)), TimeUnit.MILLISECONDS)
                        .execute(() -> attempt(request, attempt + 1, attempts, retries, result));
            } else {
                result.completeExceptionally(cause);
            }
        });
    }

    /** Statements sent on behalf of groups of type {@code G}; which groups failed, with the first failure of each. */
    public final class Round<G> {
        private final int attempts;
        private final AtomicLong outstanding = new AtomicLong();
        private final Map<G, Throwable> failed = new LinkedHashMap<>();

        private Round(int attempts) {
            this.attempts = attempts;
        }

        /** Sends {@code statement} for {@code group}; blocks while the limit is reached. */
        public void send(Statement<?> statement, G group) throws InterruptedException {
            acquire(true);
            start(statement, group);
        }

        /** As {@link #send}, waiting for a permit through interrupts (and keeping the interrupt). */
        public void sendUninterruptibly(Statement<?> statement, G group) {
            try {
                acquire(false);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e); // not thrown by an uninterruptible acquire
            }
            start(statement, group);
        }

        private void start(Statement<?> statement, G group) {
            outstanding.incrementAndGet();
            CompletableFuture<?> f;
            try {
                f = retrying(() -> execute.apply(statement).thenApply(r -> null), attempts, retries);
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((v, e) -> {
                release();
                synchronized (this) {
                    if (e != null) {
                        failed.putIfAbsent(group, e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
                    }
                    outstanding.decrementAndGet();
                    notifyAll();
                }
            });
        }

        /** The groups some of whose statements failed so far, in the order they first failed. */
        public synchronized Map<G, Throwable> failures() {
            return new LinkedHashMap<>(failed);
        }

        /** Waits until no statement of this round is outstanding; the groups that failed, in the order they first failed. */
        public Map<G, Throwable> await() throws InterruptedException {
            synchronized (this) {
                while (outstanding.get() > 0) {
                    wait(1000);
                }
                return new LinkedHashMap<>(failed);
            }
        }

        /** As {@link #await}, waiting through interrupts (and keeping the interrupt). */
        public Map<G, Throwable> awaitUninterruptibly() {
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        return await();
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Failed statements this writer sent again so far (not those of a {@link #capped} one). */
    public long retries() {
        return retries.get();
    }
}
