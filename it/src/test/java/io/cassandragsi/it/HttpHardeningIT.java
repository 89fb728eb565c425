package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.http.HttpApi;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Hostile input against the service's HTTP API on a real node (issue 13): each bad request is
 * answered with its 4xx (or its connection closed) within a bound, and a good read issued
 * meanwhile still answers 200 within a few seconds. The server runs with its production
 * timeouts. All traffic goes to 127.0.0.1. Timings are printed for the record.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class HttpHardeningIT {
    private static final String KS = "it_http";
    private static final String GOOD = "/v1/" + KS + "/revisions//by_length/7";
    private static final long GOOD_READ_MILLIS = 3000;
    private static CqlSession session;
    private static GsiServer server;
    private static int port;

    @BeforeAll
    static void setUp() {
        session = SharedCluster.session();
        TableDef def = SharedCluster.example("revisions", KS);
        SharedCluster.apply(def);
        var insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        Random rnd = new Random(13);
        long clock = Tids.ticks(Instant.now());
        for (int i = 0; i < 5; i++) {
            session.execute(insert.bind("k" + i, Tids.fromTicks(clock + i, rnd.nextLong()), BigInteger.valueOf(7), "v" + i));
        }
        GsiConfig d = GsiConfig.defaults();
        server = new GsiServer(session, new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false)));
        port = server.httpPort();
    }

    @AfterAll
    static void tearDown() {
        if (server != null) {
            server.close();
        }
    }

    /** An answer: status (-1: closed without one), status line and headers, body, milliseconds from connect to the end. */
    record Reply(int status, String head, String body, long millis) {}

    /** Sends {@code request} as is and reads until the server closes; the socket times out after {@code timeoutMillis}. */
    private static Reply send(int toPort, String request, int timeoutMillis) throws IOException {
        long t0 = System.nanoTime();
        try (Socket s = new Socket("127.0.0.1", toPort)) {
            s.setSoTimeout(timeoutMillis);
            try {
                s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            } catch (IOException e) {
                // closed before all was sent: read what came back
            }
            byte[] bytes;
            try {
                bytes = s.getInputStream().readAllBytes();
            } catch (SocketTimeoutException e) {
                throw new AssertionError("neither an answer nor a close within " + timeoutMillis + " ms");
            } catch (IOException e) {
                bytes = new byte[0];
            }
            String text = new String(bytes, StandardCharsets.UTF_8);
            long ms = (System.nanoTime() - t0) / 1_000_000;
            int split = text.indexOf("\r\n\r\n");
            if (!text.startsWith("HTTP/1.1 ") || split < 0) {
                return new Reply(-1, "", text, ms);
            }
            return new Reply(Integer.parseInt(text.substring(9, 12)), text.substring(0, split), text.substring(split + 4), ms);
        }
    }

    private static Reply request(String method, String target, String headers) throws IOException {
        return send(port, method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n" + headers + "Connection: close\r\n\r\n", 30_000);
    }

    private static Reply get(String target) throws IOException {
        return request("GET", target, "");
    }

    private static void goodReadAnswers(String during) throws IOException {
        Reply r = get(GOOD);
        System.out.printf("HttpHardeningIT: good read during %s -> %d in %d ms%n", during, r.status(), r.millis());
        assertThat(r.status()).as("good read during %s: %s", during, r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"items\":[");
        assertThat(r.millis()).as("good read during %s", during).isLessThan(GOOD_READ_MILLIS);
    }

    /** Asserts a JSON error of {@code status} within 2 s, containing each of {@code parts}. */
    private static void refused(String what, Reply r, int status, String... parts) {
        System.out.printf("HttpHardeningIT: %s -> %d in %d ms: %s%n", what, r.status(), r.millis(),
                r.body().length() > 160 ? r.body().substring(0, 160) + "..." : r.body());
        assertThat(r.status()).as("%s: %s", what, r.body()).isEqualTo(status);
        assertThat(r.body()).as(what).startsWith("{\"error\":").contains("\"detail\":").contains(parts);
        assertThat(r.millis()).as(what).isLessThan(2000);
    }

    /** Asserts a 4xx (any body) or a closed connection within 3 s. */
    private static void refusedOrClosed(String what, Reply r) {
        System.out.printf("HttpHardeningIT: %s -> %s in %d ms%n", what, r.status() < 0 ? "closed" : r.status(), r.millis());
        assertThat(r.status() < 0 || (r.status() >= 400 && r.status() < 500)).as("%s: %d", what, r.status()).isTrue();
        assertThat(r.millis()).as(what).isLessThan(3000);
    }

    @Test
    @Order(1)
    void should_answer_200_when_the_read_is_good() throws Exception {
        goodReadAnswers("nothing else");
    }

    @Test
    @Order(2)
    void should_refuse_huge_numbers_fast_when_they_reach_the_io_thread() throws Exception {
        String base = "/v1/" + KS + "/revisions//by_length/";
        refused("100,000-digit value", get(base + "9".repeat(100_000)), 414, "16384");
        refused("10,000-digit value", get(base + "9".repeat(10_000)), 400, "value_too_long", "at most 256");
        refused("255 digits then x", get(base + "9".repeat(255) + "x"), 400, "not a valid varint");
        refused("timeuuid of 5,000 characters", get("/v1/" + KS + "/revisions//by_tid/" + "0".repeat(5000)), 400, "value_too_long");
        refused("as_of of 5,000 characters", get(GOOD + "?as_of=" + "1".repeat(5000)), 400, "as_of");
        goodReadAnswers("huge numbers");
    }

    @Test
    @Order(3)
    void should_answer_400_when_escapes_are_invalid_utf8() throws Exception {
        String base = "/v1/" + KS + "/revisions//by_length/";
        for (String bad : new String[] {"%FF", "%C3%28", "%ED%A0%80", "%F0%9F%98", "%G1", "1%"}) {
            refused("escape " + bad, get(base + bad), 400, "bad_encoding");
        }
        refused("query escape %FF", get(GOOD + "?as_of=%FF"), 400, "bad_encoding");
        refusedOrClosed("raw non-ASCII bytes", get(base + "\u00ff\u00fe"));
        goodReadAnswers("invalid escapes");
    }

    @Test
    @Order(4)
    void should_answer_414_when_the_path_value_or_query_string_is_too_long() throws Exception {
        refused("70 KB path value", get("/v1/" + KS + "/revisions//by_length/" + "a".repeat(70 * 1024)), 414, "16384");
        refused("9 KB query string", get(GOOD + "?next=" + "A".repeat(9 * 1024)), 414, "8192");
        refusedOrClosed("300 KB query string", get(GOOD + "?next=" + "A".repeat(300 * 1024)));
        refused("40 path segments", get(GOOD + "/1".repeat(40)), 400, "segments");
        goodReadAnswers("over-long targets");
    }

    @Test
    @Order(5)
    void should_answer_431_or_close_when_headers_flood() throws Exception {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            many.append("X-Flood-").append(i).append(": ").append(i).append("\r\n");
        }
        refused("100 headers", request("GET", GOOD, many.toString()), 431, "64");
        refused("one 20 KB header", request("GET", GOOD, "X-Big: " + "b".repeat(20_000) + "\r\n"), 431, "8192");
        StringBuilder flood = new StringBuilder();
        for (int i = 0; i < 5000; i++) {
            flood.append("X-Flood-").append(i).append(": ").append(i).append("\r\n");
        }
        refusedOrClosed("5,000 headers", request("GET", GOOD, flood.toString()));
        refusedOrClosed("one 2 MB header", request("GET", GOOD, "X-Huge: " + "h".repeat(2 << 20) + "\r\n"));
        goodReadAnswers("header floods");
    }

    @Test
    @Order(6)
    void should_close_a_slowloris_connection_within_the_parse_timeout() throws Exception {
        long limit = HttpApi.Timeouts.DEFAULTS.parse().toMillis() + 3000;
        String partial = "GET " + GOOD + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nX-Slow: ";
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            long t0 = System.nanoTime();
            long closedAfter = -1;
            for (int i = 0; closedAfter < 0 && (System.nanoTime() - t0) / 1_000_000 < limit + 5000; i++) {
                try {
                    out.write(partial.charAt(Math.min(i, partial.length() - 1)));
                    out.flush();
                    if (s.getInputStream().read() < 0) {
                        closedAfter = (System.nanoTime() - t0) / 1_000_000;
                    }
                } catch (SocketTimeoutException e) {
                    if (i % 4 == 0) {
                        goodReadAnswers("a slowloris connection");
                    }
                } catch (IOException e) {
                    closedAfter = (System.nanoTime() - t0) / 1_000_000;
                }
            }
            System.out.printf("HttpHardeningIT: slowloris (one byte every 0.5 s) closed after %d ms%n", closedAfter);
            assertThat(closedAfter).as("closed by the server").isNotNegative().isLessThan(limit);
        }
        goodReadAnswers("after a slowloris connection");
    }

    @Test
    @Order(7)
    void should_keep_answering_good_reads_when_many_bad_requests_come_at_once() throws Exception {
        String base = "/v1/" + KS + "/revisions//by_length/";
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            List<Future<Reply>> bad = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int i = 0; i < 600; i++) {
                String target = switch (i % 5) {
                    case 0 -> base + "9".repeat(15_000);
                    case 1 -> base + "%FF%FE";
                    case 2 -> base + "a".repeat(70 * 1024);
                    case 3 -> base + "9".repeat(250) + "e99999";
                    default -> GOOD + "?limit=" + "9".repeat(5000);
                };
                bad.add(pool.submit(() -> get(target)));
            }
            for (int i = 0; i < 5; i++) {
                goodReadAnswers("600 concurrent bad requests");
            }
            long slowest = 0;
            for (Future<Reply> f : bad) {
                Reply r = f.get(60, TimeUnit.SECONDS);
                assertThat(r.status()).as(r.body()).isBetween(400, 499);
                slowest = Math.max(slowest, r.millis());
            }
            System.out.printf("HttpHardeningIT: 600 bad requests (32 at a time) all 4xx in %d ms, slowest %d ms%n",
                    (System.nanoTime() - t0) / 1_000_000, slowest);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    @Order(8)
    void should_answer_421_when_the_host_is_foreign() throws Exception {
        refused("Host attacker.example", send(port, "GET " + GOOD + " HTTP/1.1\r\nHost: attacker.example:" + port
                + "\r\nConnection: close\r\n\r\n", 10_000), 421, "misdirected_request");
        refused("Host 127.0.0.1 on another port", send(port, "GET " + GOOD + " HTTP/1.1\r\nHost: 127.0.0.1:1"
                + "\r\nConnection: close\r\n\r\n", 10_000), 421, "misdirected_request");
        Reply local = send(port, "GET " + GOOD + " HTTP/1.1\r\nHost: localhost:" + port + "\r\nConnection: close\r\n\r\n", 10_000);
        assertThat(local.status()).as(local.body()).isEqualTo(200);
    }

    @Test
    @Order(9)
    void should_answer_403_when_an_admin_post_comes_from_a_foreign_origin() throws Exception {
        String rebuild = "/admin/" + KS + "/revisions/by_length/rebuild";
        refused("rebuild from Origin http://evil.example", request("POST", rebuild, "Origin: http://evil.example\r\nContent-Length: 0\r\n"),
                403, "forbidden_origin");
        refused("check --fix from Origin null", request("POST", "/admin/" + KS + "/revisions/by_length/check?fix=true",
                "Origin: null\r\nContent-Length: 0\r\n"), 403, "forbidden_origin");
        Reply preflight = request("OPTIONS", rebuild, "Origin: http://evil.example\r\nAccess-Control-Request-Method: POST\r\n");
        refused("CORS preflight from http://evil.example", preflight, 403, "forbidden_origin");
        Reply read = request("GET", GOOD, "Origin: http://evil.example\r\n");
        assertThat(read.status()).as("a cross-site read is answered, but grants nothing").isEqualTo(200);
        for (Reply r : List.of(preflight, read)) {
            assertThat(r.head().toLowerCase(java.util.Locale.ROOT)).as("no CORS grant").doesNotContain("access-control-");
        }
    }

    @Test
    @Order(10)
    void should_answer_400_when_job_parameters_are_out_of_bounds() throws Exception {
        String rebuild = "/admin/" + KS + "/revisions/by_length/rebuild";
        refused("parallelism=65536&splits=65536", request("POST", rebuild + "?parallelism=65536&splits=65536", "Content-Length: 0\r\n"),
                400, "parallelism", "1 to 64");
        refused("splits=4097", request("POST", rebuild + "?splits=4097", "Content-Length: 0\r\n"), 400, "0 to 4096");
        refused("check examples=1000", request("POST", "/admin/" + KS + "/revisions/by_length/check?examples=1000", "Content-Length: 0\r\n"),
                400, "examples");
    }

    @Test
    @Order(11)
    void should_answer_400_when_the_hash_value_is_empty() throws Exception {
        refused("empty hash value", get("/v1/" + KS + "/revisions//by_length//"), 400, "empty");
    }

    @Test
    @Order(12)
    void should_hide_driver_messages_and_which_part_is_unknown_when_answering_errors() throws Exception {
        // the same tables in a keyspace with three replicas on this one node: LOCAL_QUORUM is unavailable
        TableDef rf3 = SharedCluster.example("revisions", "it_http_rf3");
        for (CqlGenerator.Statement st : CqlGenerator.all(rf3, "gsi", "{'class': 'SimpleStrategy', 'replication_factor': 3}")) {
            session.execute(SimpleStatement.newInstance(st.cql()).setTimeout(Duration.ofSeconds(60)));
        }
        session.checkSchemaAgreement();
        Reply unavailable = get("/v1/it_http_rf3/revisions//by_length/1");
        refused("read at an unreachable consistency", unavailable, 503, "cassandra_unavailable");
        assertThat(unavailable.body()).doesNotContain("127.0.").doesNotContain("9042").doesNotContain("SELECT").doesNotContain("replica");
        try (HttpApi api = new HttpApi("127.0.0.1", 0, "it-http-token", server.reader(), Map::of, () -> "", null)) {
            String auth = "Authorization: Bearer it-http-token\r\n";
            List<String> bodies = new ArrayList<>();
            for (String path : new String[] {"/v1/no_such_ks/revisions//by_length/1", "/v1/" + KS + "/no_such_table//by_length/1",
                "/v1/" + KS + "/revisions//no_such_index/1"}) {
                Reply r = send(api.port(), "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + api.port() + "\r\n" + auth
                        + "Connection: close\r\n\r\n", 10_000);
                refused("404 with a token: " + path, r, 404, "no such keyspace, table or index");
                bodies.add(r.body().replaceAll("'[^']*'", "'…'"));
            }
            assertThat(bodies).as("one message for all three").containsOnly(bodies.get(0));
            Reply noToken = send(api.port(), "POST /admin/" + KS + "/revisions/by_length/rebuild HTTP/1.1\r\nHost: 127.0.0.1:" + api.port()
                    + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 10_000);
            refused("admin POST without the token", noToken, 401, "unauthorized");
        }
    }

    @Test
    @Order(Integer.MAX_VALUE) // closes the server
    void should_stop_within_seconds_when_hostile_requests_are_in_flight() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Socket slow = new Socket("127.0.0.1", port);
                slow.getOutputStream().write(("GET " + GOOD + " HTTP/1.1\r\nHost: 127.0.").getBytes(StandardCharsets.US_ASCII));
                sockets.add(slow);
                Socket keptAlive = new Socket("127.0.0.1", port);
                keptAlive.getOutputStream().write(("GET " + GOOD + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                sockets.add(keptAlive);
                Socket huge = new Socket("127.0.0.1", port);
                huge.getOutputStream().write(("GET /v1/" + KS + "/revisions//by_length/" + "9".repeat(60_000)).getBytes(StandardCharsets.US_ASCII));
                sockets.add(huge);
            }
            Thread.sleep(500);
            long t0 = System.nanoTime();
            server.close();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            server = null;
            System.out.printf("HttpHardeningIT: GsiServer.close() with 12 hostile connections open took %d ms%n", ms);
            assertThat(ms).as("shutdown with hostile requests in flight").isLessThan(10_000);
            for (Socket s : sockets) {
                s.setSoTimeout(5000);
                try {
                    s.getInputStream().readAllBytes();
                } catch (IOException e) {
                    // reset: closed as well
                }
            }
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }
}
