package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.jobs.JobHandle;
import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;

/** What the rebuild and check commands share: following a job with its progress shown, and Ctrl-C. */
final class JobCommands {
    private JobCommands() {}

    /**
     * Follows a job to its end ({@link #await}) with a progress display on {@code err} unless
     * {@code options} say not to; {@code passes}: the display shows the pass the job is in (a check).
     */
    static <R> R follow(JobHandle<R> handle, JobOptions options, PrintWriter err, boolean passes) {
        ProgressDisplay display = new ProgressDisplay(handle.kind(), handle::progress, err, !options.noProgress, passes);
        try {
            return await(handle, err);
        } finally {
            display.close();
        }
    }

    /**
     * Waits for the job; Ctrl-C (SIGINT/SIGTERM) cancels it and waits up to 60 s for the writes in
     * flight, so that a rebuild records every range it finished.
     */
    static <R> R await(JobHandle<R> handle, PrintWriter err) {
        Thread hook = new Thread(() -> {
            if (!handle.isDone()) {
                err.println();
                err.println("stopping " + handle.kind() + " " + handle.id() + " (waiting for writes in flight)...");
                err.flush();
                handle.cancel();
                try {
                    handle.result().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // exiting anyway
                }
            }
        }, "gsi-job-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return handle.await();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs
            }
        }
    }
}
