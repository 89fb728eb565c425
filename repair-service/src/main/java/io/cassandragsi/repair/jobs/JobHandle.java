package io.cassandragsi.repair.jobs;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A job running on its own thread: its id, live progress, cancellation and result. Cancelling
 * stops the workers after the rows in hand; ranges not finished are not recorded, so a resumed
 * rebuild does them again (every write is idempotent).
 */
public final class JobHandle<R> {
    private final String id;
    private final String kind;
    private final Progress progress;
    private final AtomicBoolean cancelled = new AtomicBoolean();
    final CompletableFuture<R> result = new CompletableFuture<>();

    JobHandle(String id, String kind, Progress progress) {
        this.id = id;
        this.kind = kind;
        this.progress = progress;
    }

    public String id() {
        return id;
    }

    /** "rebuild" or "check". */
    public String kind() {
        return kind;
    }

    public ProgressSnapshot progress() {
        return progress.snapshot();
    }

    public void cancel() {
        cancelled.set(true);
    }

    public boolean cancelRequested() {
        return cancelled.get();
    }

    public boolean isDone() {
        return result.isDone();
    }

    public CompletableFuture<R> result() {
        return result;
    }

    /** Waits for the result; a job that could not run at all rethrows its exception. */
    public R await() {
        try {
            return result.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }
}
