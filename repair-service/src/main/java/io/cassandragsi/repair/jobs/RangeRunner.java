package io.cassandragsi.repair.jobs;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * Runs a task per token range on a fixed number of threads. A range that failed because Cassandra
 * did not answer is tried again ({@link #runRetrying}); any other failure, or the last attempt's,
 * stops the others (after the rows in hand) as cancellation does; ranges whose task did not finish
 * are not counted.
 */
final class RangeRunner {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(RangeRunner.class);

    /** Works one range; returns false when it stopped before the end. */
    @FunctionalInterface
    interface RangeTask {
        boolean run(TokenRange range, BooleanSupplier stop) throws InterruptedException;
    }

    /** How many ranges finished, and the first failure (null if none). */
    record Outcome(int done, Throwable failure) {}

    private RangeRunner() {}

    /** Attempts of a range whose task failed because Cassandra did not answer (a node killed: its requests in flight time out). */
    static final int RANGE_ATTEMPTS = 4;

    /**
     * Runs a range's task, again from the range's start when it failed because Cassandra did not
     * answer (a timeout, too few replicas, no node), after 1, 2, 4 s: the driver meanwhile marks a
     * dead node down and sends the range's requests to the other replicas. Every task is idempotent
     * (its writes carry their timestamps); its counts then include the part it did twice.
     */
    static boolean runRetrying(RangeTask task, TokenRange range, BooleanSupplier stop) throws InterruptedException {
        for (int attempt = 1;; attempt++) {
            try {
                return task.run(range, stop);
            } catch (RuntimeException e) {
                if (attempt >= RANGE_ATTEMPTS || !cassandraDidNotAnswer(e) || stop.getAsBoolean()) {
                    throw e;
                }
                LOG.warn("range {}: Cassandra did not answer ({}); trying the range again in {} s", range, e, 1 << (attempt - 1));
                Thread.sleep(1000L << (attempt - 1));
            }
        }
    }

    /** Whether a failure, or one of its causes, is Cassandra not answering rather than a bad request. */
    static boolean cassandraDidNotAnswer(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof com.datastax.oss.driver.api.core.DriverTimeoutException
                    || t instanceof com.datastax.oss.driver.api.core.AllNodesFailedException
                    || t instanceof com.datastax.oss.driver.api.core.servererrors.QueryConsistencyException
                    || t instanceof com.datastax.oss.driver.api.core.servererrors.UnavailableException
                    || t instanceof com.datastax.oss.driver.api.core.connection.ClosedConnectionException
                    || t instanceof com.datastax.oss.driver.api.core.connection.HeartbeatException) {
                return true;
            }
        }
        return false;
    }

    static Outcome run(String threadName, List<TokenRange> ranges, int parallelism, BooleanSupplier cancelled, RangeTask task) {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        BooleanSupplier stop = () -> failure.get() != null || cancelled.getAsBoolean();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger seq = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(parallelism, ranges.size())), r -> {
            Thread t = new Thread(r, threadName + "-" + seq.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (TokenRange range : ranges) {
                futures.add(pool.submit(() -> {
                    if (stop.getAsBoolean()) {
                        return;
                    }
                    try {
                        if (runRetrying(task, range, stop)) {
                            done.incrementAndGet();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        failure.compareAndSet(null, e);
                    } catch (RuntimeException | Error e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure.compareAndSet(null, e);
        } catch (ExecutionException e) {
            failure.compareAndSet(null, e.getCause());
        } finally {
            pool.shutdownNow();
        }
        return new Outcome(done.get(), failure.get());
    }
}
