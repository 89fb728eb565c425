package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.status.StatusReport;
import io.cassandragsi.repair.status.StatusText;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi status}: what a running repair service and the in-node maintainers are doing, read
 * from the service's {@code /admin/status} (docs/design.md section 7.7) and printed for people.
 * The same report is the HTML page at {@code GET /} of the HTTP API.
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Show what the repair service and each node's maintainer are doing (lag, hand-offs, sweeps, retries, definition problems).")
public final class StatusCommand implements Callable<Integer> {
    @Option(names = "--url", paramLabel = "URL",
            description = "The service's HTTP API (default: http.bind and http.port of the config, http://127.0.0.1:8080 without one).")
    String url;

    @Option(names = "--json", description = "Print /admin/status as the service sends it.")
    boolean json;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        ServiceStatus service = new ServiceStatus(connection.load(), url);
        java.io.PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(service.fetch());
            return GsiCommand.OK;
        }
        out.print(StatusText.render(StatusReport.of(service.read()), service.base));
        out.flush(); // print does not flush picocli's writer, and the launcher exits at once
        return GsiCommand.OK;
    }
}
