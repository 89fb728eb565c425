package io.cassandragsi.repair.cli;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

/**
 * {@code GET /admin/status} of a running repair service, for the commands that ask it ({@code gsi
 * status}, and {@code gsi query --as-of safe} for the safe time): where it is, and what it says.
 */
final class ServiceStatus {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The service's address: {@code url}, else http.bind and http.port of the config. */
    final String base;
    private final HttpConfig http;

    ServiceStatus(GsiConfig config, String url) {
        this.http = config.http();
        this.base = url != null ? url.replaceAll("/+$", "") : http.scheme() + "://" + host(http.bind()) + ":" + http.port();
    }

    /** The status as the service sends it (JSON text); {@link CommandFailedException} naming what went wrong. */
    String fetch() throws InterruptedException {
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
        return response.body();
    }

    /** The status, parsed. */
    Map<String, Object> read() throws InterruptedException {
        String body = fetch();
        try {
            return JSON.readValue(body, new TypeReference<Map<String, Object>>() {});
        } catch (IOException e) {
            throw new CommandFailedException("the service at " + base + " sent a status that is not JSON: " + e.getMessage());
        }
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
