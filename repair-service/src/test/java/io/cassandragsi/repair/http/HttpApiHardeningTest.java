package io.cassandragsi.repair.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.repair.read.Values;
import io.cassandragsi.schema.AttrType;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hostile input against a real {@link HttpApi} on loopback, with reads that parse their values as
 * {@link IndexReader} does ({@link Values#parse} on the calling thread) and answer at once, or
 * never for the value {@code hang}. No Cassandra: the end-to-end twin is {@code HttpHardeningIT}.
 * Every case checks that the bad request is answered (or its connection closed) within a bound,
 * and that a good read issued meanwhile answers 200 quickly.
 */
class HttpApiHardeningTest {
    private static final HttpApi.Timeouts FAST = new HttpApi.Timeouts(Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(1), Duration.ofSeconds(1));
    private static final String GOOD = "/v1/ks/t//by_n/42";

    private final List<HttpApi> apis = new ArrayList<>();
    private final AtomicInteger starts = new AtomicInteger();

    private HttpApi api(String token, List<String> allowedHosts) {
        HttpApi.Reads reads = q -> {
            if (q.table().equals("nope")) {
                return CompletableFuture.failedFuture(ReadException.notFound("no indexed table 'nope' in keyspace '" + q.keyspace() + "'"));
            }
            if (q.table().equals("down")) {
                return CompletableFuture.failedFuture(ReadException.unavailable(
                        "Cassandra did not answer: All 1 node(s) tried failed: /10.9.8.7:9042 SELECT * FROM ks.secret", null));
            }
            for (String v : q.values()) {
                if (v.equals("hang")) {
                    return new CompletableFuture<>();
                }
                Values.parse("n", AttrType.VARINT, v);
            }
            return CompletableFuture.completedFuture(new IndexReader.Page(List.of(Map.of("n", 42)), null));
        };
        HttpApi.Admin admin = new HttpApi.Admin() {
            @Override
            public Map<String, Object> start(String keyspace, String table, String index, String job, Map<String, String> params) {
                if (!table.equals("t")) {
                    throw ReadException.notFound("no indexed table '" + table + "'");
                }
                starts.incrementAndGet();
                return Map.of("id", job + "-1");
            }

            @Override
            public Map<String, Object> job(String id) {
                throw ReadException.notFound("no job");
            }
        };
        HttpApi api = new HttpApi(new HttpConfig("127.0.0.1", 0, token, false, allowedHosts), FAST, reads, Map::of, () -> "", admin);
        apis.add(api);
        return api;
    }

    private HttpApi api() {
        return api(null, List.of());
    }

    @AfterEach
    void close() {
        apis.forEach(HttpApi::close);
    }

    /** An answer: status (-1: the connection closed without one), body, milliseconds taken. */
    record Answer(int status, String body, long millis) {}

    private static Answer raw(int port, byte[] request, int timeoutMillis) throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(timeoutMillis);
            try {
                s.getOutputStream().write(request);
                s.getOutputStream().flush();
            } catch (IOException e) {
                // the server may close before reading everything we send
            }
            String response;
            try {
                response = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("no answer and no close within " + timeoutMillis + " ms");
            } catch (IOException e) {
                response = ""; // reset
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            if (!response.startsWith("HTTP/1.1 ")) {
                return new Answer(-1, response, ms);
            }
            int end = response.indexOf("\r\n\r\n");
            return new Answer(Integer.parseInt(response.substring(9, 12)), end < 0 ? "" : response.substring(end + 4), ms);
        }
    }

    private static Answer get(int port, String target, String headers) throws IOException {
        return raw(port, ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers + "Connection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), 10_000);
    }

    private static Answer post(int port, String target, String headers) throws IOException {
        return raw(port, ("POST " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers
                + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1), 10_000);
    }

    private static void assertGoodReadAnswers(int port) throws IOException {
        Answer a = get(port, GOOD, "");
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(a.millis()).as("a good read meanwhile").isLessThan(2000);
    }

    private static void assertJsonError(Answer a, int status, String... contains) {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        assertThat(a.body()).startsWith("{\"error\":").contains("\"detail\":");
        for (String c : contains) {
            assertThat(a.body()).contains(c);
        }
        assertThat(a.millis()).isLessThan(2000);
    }

    @Test
    void should_answer_fast_400_or_414_when_numbers_are_huge() throws Exception {
        HttpApi api = api();
        assertJsonError(get(api.port(), "/v1/ks/t//by_n/" + "9".repeat(10_000), ""), 400, "at most " + Values.MAX_NUMBER_CHARS);
        assertJsonError(get(api.port(), "/v1/ks/t//by_n/" + "9".repeat(100_000), ""), 414, String.valueOf(RequestLimits.MAX_PATH_BYTES));
        assertJsonError(get(api.port(), "/v1/ks/t//by_n/" + "1".repeat(255) + "x", ""), 400, "not a valid varint");
        assertGoodReadAnswers(api.port());
    }

    @Test
    void should_answer_400_when_escapes_are_invalid_or_not_utf8() throws Exception {
        HttpApi api = api();
        for (String bad : new String[] {"%FF", "%C3%28", "%ED%A0%80", "%G1", "%4", "1%"}) {
            assertJsonError(get(api.port(), "/v1/ks/t//by_n/" + bad, ""), 400, "bad_encoding");
            assertJsonError(get(api.port(), GOOD + "?limit=" + bad, ""), 400, "bad_encoding");
        }
        // raw bytes that are not ASCII in the request line: Undertow refuses them itself
        byte[] rawUtf8 = ("GET /v1/ks/t//by_n/\u00ff\u00fe HTTP/1.1\r\nHost: 127.0.0.1:" + api.port() + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        Answer a = raw(api.port(), rawUtf8, 5000);
        assertThat(a.status()).as(a.body()).isIn(-1, 400);
        assertThat(a.millis()).isLessThan(2000);
        assertGoodReadAnswers(api.port());
    }

    @Test
    void should_answer_414_or_close_when_the_path_or_query_is_too_long() throws Exception {
        HttpApi api = api();
        assertJsonError(get(api.port(), "/v1/ks/t//by_n/" + "a".repeat(70 * 1024), ""), 414, String.valueOf(RequestLimits.MAX_PATH_BYTES));
        assertJsonError(get(api.port(), GOOD + "?next=" + "A".repeat(9 * 1024), ""), 414, String.valueOf(RequestLimits.MAX_QUERY_BYTES));
        Answer huge = get(api.port(), GOOD + "?next=" + "A".repeat(200 * 1024), "");
        assertThat(huge.status()).as("past Undertow's ceiling").isIn(-1, 400, 414, 431);
        assertThat(huge.millis()).isLessThan(2000);
        assertJsonError(get(api.port(), "/v1/ks/t//by_n" + "/1".repeat(40), ""), 400, "segments");
        StringBuilder many = new StringBuilder(GOOD + "?a0=0");
        for (int i = 1; i < 40; i++) {
            many.append("&a").append(i).append("=1");
        }
        assertJsonError(get(api.port(), many.toString(), ""), 400, "parameters");
        assertGoodReadAnswers(api.port());
    }

    @Test
    void should_answer_431_or_close_when_headers_flood() throws Exception {
        HttpApi api = api();
        StringBuilder some = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            some.append("X-Flood-").append(i).append(": 1\r\n");
        }
        assertJsonError(get(api.port(), GOOD, some.toString()), 431, String.valueOf(RequestLimits.MAX_HEADERS));
        assertJsonError(get(api.port(), GOOD, "X-Big: " + "b".repeat(20_000) + "\r\n"), 431, String.valueOf(RequestLimits.MAX_HEADER_BYTES));
        StringBuilder lots = new StringBuilder();
        for (int i = 0; i < 1000; i++) {
            lots.append("X-Flood-").append(i).append(": 1\r\n");
        }
        Answer a = get(api.port(), GOOD, lots.toString());
        assertThat(a.status()).as(a.body()).isIn(-1, 400, 431);
        Answer huge = get(api.port(), GOOD, "X-Huge: " + "h".repeat(1024 * 1024) + "\r\n");
        assertThat(huge.status()).as(huge.body()).isIn(-1, 400, 431);
        assertThat(huge.millis()).isLessThan(3000);
        assertGoodReadAnswers(api.port());
    }

    /** Something done on an open socket; {@code IOException} means the server closed it. */
    interface Tick {
        void run(int i) throws IOException;
    }

    /** Milliseconds until the server closes {@code s}, calling {@code tick} about every 200 ms; fails after 10 s. */
    private static long millisUntilClosed(Socket s, Tick tick) throws IOException {
        long t0 = System.nanoTime();
        s.setSoTimeout(200);
        for (int i = 0; i < 50; i++) {
            try {
                tick.run(i);
                if (s.getInputStream().read() < 0) {
                    return (System.nanoTime() - t0) / 1_000_000;
                }
            } catch (SocketTimeoutException e) {
                // still open
            } catch (IOException e) {
                return (System.nanoTime() - t0) / 1_000_000;
            }
        }
        throw new AssertionError("still open after 10 s");
    }

    @Test
    void should_close_a_slowloris_connection_when_the_parse_timeout_passes() throws Exception {
        HttpApi api = api();
        String partial = "GET /v1/ks/t//by_n/42 HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
        try (Socket s = new Socket("127.0.0.1", api.port())) {
            OutputStream out = s.getOutputStream();
            long ms = millisUntilClosed(s, i -> {
                out.write(partial.charAt(Math.min(i, partial.length() - 1)));
                out.flush();
                if (i == 2) {
                    assertGoodReadAnswers(api.port());
                }
            });
            assertThat(ms).as("closed within the parse timeout and a margin").isLessThan(FAST.parse().toMillis() + 2500);
        }
        assertGoodReadAnswers(api.port());
    }

    @Test
    void should_close_a_silent_connection_when_no_request_comes() throws Exception {
        HttpApi api = api();
        try (Socket s = new Socket("127.0.0.1", api.port())) {
            assertThat(millisUntilClosed(s, i -> {})).isLessThan(FAST.noRequest().toMillis() + 2500);
        }
    }

    @Test
    void should_keep_answering_good_reads_when_many_bad_requests_come_at_once() throws Exception {
        HttpApi api = api();
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<Answer>> bad = new ArrayList<>();
            for (int i = 0; i < 400; i++) {
                String target = switch (i % 4) {
                    case 0 -> "/v1/ks/t//by_n/" + "9".repeat(200) + "x";
                    case 1 -> "/v1/ks/t//by_n/%FF";
                    case 2 -> "/v1/ks/t//by_n/" + "a".repeat(20_000);
                    default -> GOOD + "?limit=" + "9".repeat(100);
                };
                bad.add(pool.submit(() -> get(api.port(), target, "")));
            }
            for (int i = 0; i < 5; i++) {
                assertGoodReadAnswers(api.port());
            }
            for (Future<Answer> f : bad) {
                Answer a = f.get(20, TimeUnit.SECONDS);
                assertThat(a.status()).as(a.body()).isBetween(400, 499);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(api.rejected.sum()).isEqualTo(400);
    }

    @Test
    void should_answer_421_or_400_when_the_host_is_foreign_or_missing() throws Exception {
        HttpApi api = api(null, List.of("gsi.example.com"));
        int port = api.port();
        byte[] rebinding = ("GET " + GOOD + " HTTP/1.1\r\nHost: attacker.example:" + port + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        assertJsonError(raw(port, rebinding, 5000), 421, "attacker.example");
        byte[] noHost = ("GET " + GOOD + " HTTP/1.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        Answer missing = raw(port, noHost, 5000);
        assertThat(missing.status()).as("HTTP/1.1 without Host: Undertow refuses it itself").isEqualTo(400);
        assertThat(missing.millis()).isLessThan(2000);
        for (String host : new String[] {"localhost:" + port, "127.0.0.1", "gsi.example.com"}) {
            byte[] ok = ("GET " + GOOD + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
            assertThat(raw(port, ok, 5000).status()).as(host).isEqualTo(200);
        }
        byte[] http10 = ("GET " + GOOD + " HTTP/1.0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
        assertThat(raw(port, http10, 5000).status()).as("HTTP/1.0 without Host").isIn(200, -1);
    }

    @Test
    void should_answer_403_when_an_admin_post_comes_from_a_foreign_origin() throws Exception {
        HttpApi api = api();
        int port = api.port();
        String path = "/admin/ks/t/by_n/rebuild";
        for (String origin : new String[] {"http://evil.example", "null", "http://localhost:3000", "http://127.0.0.1"}) {
            assertJsonError(post(port, path, "Origin: " + origin + "\r\n"), 403, "forbidden_origin");
        }
        assertThat(starts.get()).isZero();
        assertThat(post(port, path, "Origin: http://127.0.0.1:" + port + "\r\n").status()).isEqualTo(200);
        assertThat(post(port, path, "").status()).as("no Origin: not a browser").isEqualTo(200);
        assertThat(starts.get()).isEqualTo(2);
        Answer a = raw(port, ("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
                .getBytes(StandardCharsets.US_ASCII), 5000);
        assertJsonError(a, 413, "body");
        assertThat(get(port, "/v1/ks/t//by_n/42", "Origin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n").body())
                .doesNotContain("Access-Control");
    }

    @Test
    void should_require_the_token_and_hide_which_part_is_unknown_when_a_token_is_set() throws Exception {
        HttpApi api = api("s3cret", List.of());
        int port = api.port();
        assertJsonError(post(port, "/admin/ks/t/by_n/rebuild", ""), 401, "unauthorized");
        String auth = "Authorization: Bearer s3cret\r\n";
        Answer table = get(port, "/v1/ks/nope//by_n/1", auth);
        assertJsonError(table, 404, "no such keyspace, table or index");
        assertThat(table.body()).doesNotContain("no indexed table");
        Answer admin = post(port, "/admin/ks/nope/by_n/rebuild", auth);
        assertJsonError(admin, 404, "no such keyspace, table or index");
        Answer detailed = get(api().port(), "/v1/ks/nope//by_n/1", "");
        assertThat(detailed.body()).as("loopback without token: precise").contains("no indexed table 'nope'");
    }

    @Test
    void should_hide_driver_messages_when_cassandra_is_unavailable() throws Exception {
        HttpApi api = api();
        Answer a = get(api.port(), "/v1/ks/down//by_n/1", "");
        assertJsonError(a, 503, "cassandra_unavailable");
        assertThat(a.body()).doesNotContain("10.9.8.7").doesNotContain("SELECT").doesNotContain("node(s)");
        assertThat(api.failed.sum()).isEqualTo(1);
    }

    @Test
    void should_answer_400_when_a_hash_value_is_empty() throws Exception {
        HttpApi api = api();
        assertJsonError(get(api.port(), "/v1/ks/t//by_n//", ""), 400, "empty");
        assertJsonError(get(api.port(), "/v1/ks/t//by_n//5", ""), 400, "empty");
    }

    @Test
    void should_answer_503_when_a_read_does_not_finish_within_the_answer_timeout() throws Exception {
        HttpApi api = api();
        Answer a = get(api.port(), "/v1/ks/t//by_n/hang", "");
        assertJsonError(a, 503, "timeout");
        assertThat(a.millis()).isGreaterThanOrEqualTo(FAST.answer().toMillis() - 100);
    }

    @Test
    void should_stop_within_seconds_when_hostile_requests_are_in_flight() throws Exception {
        HttpApi api = new HttpApi(new HttpConfig("127.0.0.1", 0, null, false), new HttpApi.Timeouts(Duration.ofSeconds(30),
                Duration.ofSeconds(60), Duration.ofSeconds(120), Duration.ofSeconds(60), Duration.ofSeconds(1)),
                q -> new CompletableFuture<>(), Map::of, () -> "", null);
        int port = api.port();
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket hanging = new Socket("127.0.0.1", port);
                hanging.getOutputStream().write(("GET " + GOOD + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                Socket slow = new Socket("127.0.0.1", port);
                slow.getOutputStream().write("GET /v1/ks/t//by".getBytes(StandardCharsets.US_ASCII));
                sockets.add(hanging);
                sockets.add(slow);
                sockets.add(new Socket("127.0.0.1", port)); // silent
            }
            Thread.sleep(300);
            long t0 = System.nanoTime();
            api.close();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertThat(ms).as("close with requests in flight").isLessThan(5000);
            for (Socket s : sockets) {
                s.setSoTimeout(5000);
                try {
                    s.getInputStream().readAllBytes(); // ends: the server closed it
                } catch (IOException e) {
                    // reset: closed too
                }
            }
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    @Test
    void should_pass_fresh_and_max_wait_and_answer_503_with_retry_after_when_a_fresh_read_waited_too_long() throws Exception {
        List<IndexReader.Query> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        HttpApi api = new HttpApi(new HttpConfig("127.0.0.1", 0, null, false), FAST, q -> {
            seen.add(q);
            return CompletableFuture.failedFuture(ReadException.freshTimeout("the safe time of ks.t is 2500 ms behind; held back by shard 1", 3));
        }, Map::of, () -> "", null);
        apis.add(api);
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + api.port() + GOOD + "?fresh=true&max_wait=250ms")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(r.headers().firstValue("Retry-After")).hasValue("3");
        assertThat(r.body()).contains("fresh_timeout").contains("held back by shard 1");
        assertThat(seen).singleElement().satisfies(q -> {
            assertThat(q.freshRead()).isTrue();
            assertThat(q.maxWait()).isEqualTo(Duration.ofMillis(250));
        });
        assertJsonError(get(api.port(), GOOD + "?fresh=true&max_wait=soon", ""), 400, "bad_fresh", "max_wait");
        assertJsonError(get(api.port(), GOOD + "?fresh=maybe", ""), 400, "fresh must be true or false");
        assertThat(get(api.port(), GOOD + "?fresh=true&max_wait=2", "").status()).isEqualTo(503);
        assertThat(seen.get(seen.size() - 1).maxWait()).as("a bare number is milliseconds").isEqualTo(Duration.ofMillis(2));
    }
}
