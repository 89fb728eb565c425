package io.cassandragsi.repair.read;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Runs asynchronous tasks with at most a given number in flight, starting the next one as one
 * completes, without a thread of its own. The results come in task order; the first failure fails
 * the whole and starts nothing more. Pure (no driver), so it is unit-tested alone.
 */
final class Bounded<T> {
    private final List<Supplier<CompletableFuture<T>>> tasks;
    private final Object[] results;
    private final AtomicInteger next = new AtomicInteger();
    private final AtomicInteger left;
    private final CompletableFuture<List<T>> done = new CompletableFuture<>();

    private Bounded(List<Supplier<CompletableFuture<T>>> tasks) {
        this.tasks = tasks;
        this.results = new Object[tasks.size()];
        this.left = new AtomicInteger(tasks.size());
    }

    /** Runs {@code tasks}, at most {@code maxInFlight} at a time. */
    static <T> CompletableFuture<List<T>> run(List<Supplier<CompletableFuture<T>>> tasks, int maxInFlight) {
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1, not " + maxInFlight);
        }
        Bounded<T> b = new Bounded<>(tasks);
        if (tasks.isEmpty()) {
            b.done.complete(List.of());
        }
        for (int lane = 0; lane < Math.min(maxInFlight, tasks.size()); lane++) {
            b.lane();
        }
        return b.done;
    }

    /** Starts tasks one after another until one is still running (its completion continues the lane). */
    private void lane() {
        int i;
        while (!done.isDone() && (i = next.getAndIncrement()) < tasks.size()) {
            CompletableFuture<T> f;
            try {
                f = tasks.get(i).get();
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
                return;
            }
            int k = i;
            if (!f.isDone()) {
                f.whenComplete((v, e) -> {
                    finish(k, v, e);
                    lane();
                });
                return;
            }
            f.whenComplete((v, e) -> finish(k, v, e));
        }
    }

    private void finish(int i, T value, Throwable failure) {
        if (failure != null) {
            done.completeExceptionally(failure);
            return;
        }
        results[i] = value;
        if (left.decrementAndGet() == 0) {
            @SuppressWarnings("unchecked")
            List<T> out = (List<T>) Arrays.asList(results);
            done.complete(out);
        }
    }
}
