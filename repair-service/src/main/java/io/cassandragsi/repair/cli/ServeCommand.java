package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.repair.service.MissingGrantsException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code gsi serve}: the repair service and its HTTP API against a cluster, until SIGTERM or Ctrl-C. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Run the repair service (work-queue consumer, sibling diff) and the HTTP read API against a cluster"
                + " until Ctrl-C or SIGTERM. Several instances may run at once: they share the queue's shards.")
public final class ServeCommand implements Callable<Integer> {
    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        GsiConfig config = connection.load();
        PrintWriter out = spec.commandLine().getOut();
        CqlSession session = ConnectionOptions.open(config);
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        try (session; GsiServer server = start(session, config)) {
            Thread hook = new Thread(() -> {
                stop.countDown();
                try {
                    stopped.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "gsi-serve-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            out.println("repair service running against " + CqlSessions.describe(config) + " as " + server.service().consumer().owner());
            out.println("HTTP API on http://" + config.http().bind() + ":" + server.httpPort() + "/ (status: /admin/status, metrics: /metrics)");
            out.flush();
            stop.await();
            out.println("stopping...");
            out.flush();
        } finally {
            stopped.countDown();
        }
        return GsiCommand.OK;
    }

    /** The server, or a one-line failure when the role lacks a grant (the message names it). */
    private static GsiServer start(CqlSession session, GsiConfig config) {
        try {
            return new GsiServer(session, config);
        } catch (MissingGrantsException e) {
            throw new CommandFailedException(e.getMessage(), e);
        }
    }
}
