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
 * Runs a task per token range on a fixed number of threads. The first failure stops the others
 * (after the rows in hand) as cancellation does; ranges whose task did not finish are not counted.
 */
final class RangeRunner {
    /** Works one range; returns false when it stopped before the end. */
    @FunctionalInterface
    interface RangeTask {
        boolean run(TokenRange range, BooleanSupplier stop) throws InterruptedException;
    }

    /** How many ranges finished, and the first failure (null if none). */
    record Outcome(int done, Throwable failure) {}

    private RangeRunner() {}

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
                        if (task.run(range, stop)) {
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
