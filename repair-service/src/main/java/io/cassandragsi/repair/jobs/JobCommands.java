package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.cli.CommandFailedException;
import io.cassandragsi.repair.config.CassandraUnavailableException;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import java.io.PrintWriter;
import java.util.concurrent.TimeUnit;

/** What the rebuild and check commands share: the target argument, the session, Ctrl-C. */
final class JobCommands {
    private JobCommands() {}

    /** {@code KEYSPACE.TABLE} split at the first dot. */
    static String[] keyspaceTable(String arg) {
        int dot = arg.indexOf('.');
        if (dot <= 0 || dot == arg.length() - 1) {
            throw new CommandFailedException("'" + arg + "' is not KEYSPACE.TABLE");
        }
        return new String[] {arg.substring(0, dot), arg.substring(dot + 1)};
    }

    static CqlSession open(GsiConfig config) {
        try {
            return CqlSessions.open(config);
        } catch (CassandraUnavailableException e) {
            throw new CommandFailedException(e.getMessage(), e);
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
