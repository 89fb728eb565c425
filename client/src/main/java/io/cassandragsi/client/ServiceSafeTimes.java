package io.cassandragsi.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

/**
 * The safe times of a running repair service (docs/design.md section 7.10), as its {@code GET
 * /admin/status} reports them ({@code safe_time.service.at}, {@code safe_time.node.at}), for reads
 * at {@code as_of=safe} and fresh reads. One status serves both modes for 100 ms, the service's own
 * poll; a fresh read looks every 10 ms.
 */
final class ServiceSafeTimes implements IndexReader.SafeTimes {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long REUSE_NANOS = 100_000_000L;

    private final URI status;
    private final String bearerToken;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private JsonNode last;
    private long lastAt;

    ServiceSafeTimes(URI service, String bearerToken) {
        String base = service.toString().replaceAll("/+$", "");
        this.status = URI.create(base + "/admin/status");
        this.bearerToken = bearerToken;
    }

    @Override
    public Instant of(TableDef table) {
        String mode = table.maintenance().jsonName();
        JsonNode never = status().path("safe_time").path("unavailable");
        if (never.isTextual()) { // the service's settings keep it from ever knowing: a fresh read fails at once
            throw ReadException.safeTimeNeverKnown("the repair service at " + base() + " cannot know the safe time: " + never.asText());
        }
        JsonNode at = safeTime(mode).path("at");
        if (!at.isTextual()) {
            String held = heldBy(table);
            throw ReadException.safeTimeUnknown("the repair service at " + base() + " does not know the safe time of tables in " + mode
                    + " mode yet" + (held == null ? "" : " (held by " + held + ")"));
        }
        return Instant.parse(at.asText());
    }

    @Override
    public String heldBy(TableDef table) {
        JsonNode held = safeTime(table.maintenance().jsonName()).path("held_by");
        return held.isMissingNode() || held.isNull() ? null : held.isTextual() ? held.asText() : held.toString();
    }

    private String base() {
        String s = status.toString();
        return s.substring(0, s.length() - "/admin/status".length());
    }

    private JsonNode safeTime(String mode) {
        return status().path("safe_time").path(mode);
    }

    private synchronized JsonNode status() {
        if (last != null && System.nanoTime() - lastAt < REUSE_NANOS) {
            return last;
        }
        HttpRequest.Builder request = HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(2)).GET();
        if (bearerToken != null) {
            request.header("Authorization", "Bearer " + bearerToken);
        }
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw ReadException.safeTimeUnknown("no repair service answers at " + base() + " (" + e + "): as_of=safe and fresh reads ask it"
                    + " for the safe time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw ReadException.safeTimeUnknown("interrupted while asking the repair service at " + base() + " for the safe time");
        }
        if (response.statusCode() != 200) {
            throw ReadException.safeTimeUnknown("the repair service at " + base() + " answered " + response.statusCode() + " to GET /admin/status"
                    + (response.statusCode() == 401 ? ": give its http.token to GsiClient.Builder.service" : ""));
        }
        try {
            last = JSON.readTree(response.body());
        } catch (IOException e) {
            throw ReadException.safeTimeUnknown("the repair service at " + base() + " sent a status that is not JSON: " + e.getMessage());
        }
        lastAt = System.nanoTime();
        return last;
    }
}
