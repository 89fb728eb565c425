package io.cassandragsi.repair.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.status.StatusReport;
import io.cassandragsi.repair.status.StatusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
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

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Integer call() throws InterruptedException {
        GsiConfig config = connection.load();
        HttpConfig http = config.http();
        String base = url != null ? url.replaceAll("/+$", "") : "http://" + host(http.bind()) + ":" + http.port();
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + "/admin/status")).timeout(Duration.ofSeconds(10)).GET();
        if (http.token() != null) {
            request.header("Authorization", "Bearer " + http.token());
        }
        HttpResponse<String> response;
        try {
            response = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build().send(request.build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
            throw new CommandFailedException("no repair service answers at " + base + " (" + e.getMessage() + "): start one with ./gsi serve or"
                    + " ./gsi up, or name it with --url");
        }
        if (response.statusCode() != 200) {
            throw new CommandFailedException("the service at " + base + " answered " + response.statusCode() + ": " + response.body()
                    + (response.statusCode() == 401 ? " (give its http.token in --config)" : ""));
        }
        if (json) {
            spec.commandLine().getOut().println(response.body());
            return GsiCommand.OK;
        }
        Map<String, Object> status;
        try {
            status = JSON.readValue(response.body(), new TypeReference<Map<String, Object>>() {});
        } catch (IOException e) {
            throw new CommandFailedException("the service at " + base + " sent a status that is not JSON: " + e.getMessage());
        }
        java.io.PrintWriter out = spec.commandLine().getOut();
        out.print(StatusText.render(StatusReport.of(status), base));
        out.flush(); // print does not flush picocli's writer, and the launcher exits at once
        return GsiCommand.OK;
    }

    /** The address to reach a service bound to {@code bind}: loopback for a wildcard bind. */
    static String host(String bind) {
        String b = bind.trim();
        if (b.equals("0.0.0.0") || b.equals("::") || b.equals("[::]")) {
            return "127.0.0.1";
        }
        return b.contains(":") && !b.startsWith("[") ? "[" + b + "]" : b;
    }
}
