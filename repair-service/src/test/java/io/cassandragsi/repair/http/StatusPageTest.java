package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.config.HttpConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@code GET /}: the status page, served by the HTTP API from the service's status. */
class StatusPageTest {
    private static HttpApi api(String token) {
        return new HttpApi(new HttpConfig("127.0.0.1", 0, token, false), HttpApi.Timeouts.DEFAULTS, q -> CompletableFuture.failedFuture(new IllegalStateException()),
                () -> Map.<String, Object>of("owner", "me", "lag_ms", 0L, "nodes", List.of(Map.of("node", "127.0.0.1:7000", "state", "running",
                        "heartbeat_age_ms", 15_000L))), () -> "", null);
    }

    private static HttpResponse<String> get(HttpApi api, String path, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api.port() + path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void should_serve_the_status_as_a_page_that_allows_no_script_and_no_outside_asset() throws Exception {
        try (HttpApi api = api(null)) {
            HttpResponse<String> page = get(api, "/", null);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(v -> assertThat(v).startsWith("default-src 'none'"));
            assertThat(page.body()).contains("<h1>cassandra-gsi ")
                    .contains("node 127.0.0.1:7000: its maintainer has been silent for 15.0 s");
        }
    }

    @Test
    void should_ask_for_the_token_like_every_admin_route_when_one_is_configured() throws Exception {
        try (HttpApi api = api("s3cret-token-value")) {
            assertThat(get(api, "/", null).statusCode()).isEqualTo(401);
            assertThat(get(api, "/", "s3cret-token-value").statusCode()).isEqualTo(200);
        }
    }
}
