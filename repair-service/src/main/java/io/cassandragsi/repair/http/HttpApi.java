package io.cassandragsi.repair.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.Values;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.GracefulShutdownHandler;
import io.undertow.util.HeaderValues;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.Protocols;
import io.undertow.util.SameThreadExecutor;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xnio.XnioExecutor;

/**
 * The HTTP API (DESIGN.md section 4) on Undertow: a thin adapter over the index reads and the
 * service's status, metrics and jobs. Paths are parsed from the raw request URI (Undertow's URL
 * decoding is off), so the {@code //} of the read path, encoded slashes and invalid UTF-8 are
 * handled here, with the one JSON error shape. {@link ErrorMapper} maps failures to status codes
 * (STYLE.md item 4); 4xx are logged at WARN, 5xx at ERROR, each with the request line, rate-limited.
 *
 * <p>Hostile input: every request is bounded in size ({@link RequestLimits}, Undertow's options),
 * in time ({@link Timeouts}: parse, idle and answer deadlines) and in the work it can cause before
 * it is refused (values are parsed with size bounds and linear scans); requests must name this
 * service in {@code Host} and state-changing ones must not come from a foreign {@code Origin}
 * ({@link HostPolicy}); the bearer token, when set, is required everywhere. No CORS headers are
 * ever sent. {@link #close()} finishes within {@link Timeouts#shutdown()} twice over, whatever is
 * in flight.
 */
public final class HttpApi implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_DETAIL_CHARS = 1000;

    /** The reads: {@link IndexReader#readAsync} in production; they must not block the calling thread. */
    public interface Reads {
        CompletableFuture<IndexReader.Page> read(IndexReader.Query query);
    }

    /** Job endpoints, provided by the service (null: answered with 404). */
    public interface Admin {
        Map<String, Object> start(String keyspace, String table, String index, String job, Map<String, String> params);

        Map<String, Object> job(String id);
    }

    /**
     * Time limits. {@code parse}: to send a request's line and headers (slowloris); {@code
     * noRequest}: a kept-alive connection with no request; {@code idle}: a connection with no I/O
     * at all; {@code answer}: a read's answer (then 503); {@code shutdown}: for requests in flight
     * to finish at close, and again for Undertow's threads to stop before they are forced.
     */
    public record Timeouts(Duration parse, Duration noRequest, Duration idle, Duration answer, Duration shutdown) {
        public static final Timeouts DEFAULTS = new Timeouts(Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60),
                Duration.ofSeconds(30), Duration.ofSeconds(2));
    }

    private final Undertow server;
    private final GracefulShutdownHandler graceful;
    private final Reads reads;
    private final byte[] token;
    private final Supplier<Map<String, Object>> status;
    private final Supplier<String> metrics;
    private final Admin admin;
    private final Timeouts timeouts;
    private final int port;
    private final HostPolicy hosts;
    /** Whether a 404 may say which of keyspace, table or index is unknown: only to a loopback-only API without token. */
    private final boolean detailedNotFound;
    private final RejectLog log = new RejectLog(LOG, RejectLog.DEFAULT_LINES_PER_MINUTE, System::nanoTime);

    /** Requests refused with a 4xx. */
    public final LongAdder rejected = new LongAdder();
    /** Requests that failed with a 5xx. */
    public final LongAdder failed = new LongAdder();

    /** Loopback-style API over an {@link IndexReader}, with the default timeouts and no extra host names. */
    public HttpApi(String bind, int port, String bearerToken, IndexReader reader, Supplier<Map<String, Object>> status,
            Supplier<String> metrics, Admin admin) {
        this(new HttpConfig(bind, port, bearerToken, false), Timeouts.DEFAULTS, reader::readAsync, status, metrics, admin);
    }

    public HttpApi(HttpConfig config, Timeouts timeouts, Reads reads, Supplier<Map<String, Object>> status, Supplier<String> metrics,
            Admin admin) {
        this.reads = reads;
        this.token = config.token() == null ? null : ("Bearer " + config.token()).getBytes(StandardCharsets.UTF_8);
        this.status = status;
        this.metrics = metrics;
        this.admin = admin;
        this.timeouts = timeouts;
        this.detailedNotFound = config.token() == null && HttpConfig.isLoopback(config.bind());
        this.graceful = Handlers.gracefulShutdown(this::handle);
        this.server = Undertow.builder()
                .addHttpListener(config.port(), config.bind())
                .setServerOption(UndertowOptions.DECODE_URL, false)
                .setServerOption(UndertowOptions.ALLOW_ENCODED_SLASH, true)
                .setServerOption(UndertowOptions.MAX_HEADER_SIZE, RequestLimits.MAX_HEAD_BYTES)
                .setServerOption(UndertowOptions.MAX_HEADERS, RequestLimits.MAX_HEADERS_HARD)
                .setServerOption(UndertowOptions.MAX_PARAMETERS, RequestLimits.MAX_PARAMETERS_HARD)
                .setServerOption(UndertowOptions.MAX_COOKIES, 16)
                .setServerOption(UndertowOptions.MAX_ENTITY_SIZE, RequestLimits.MAX_BODY_BYTES)
                .setServerOption(UndertowOptions.REQUEST_PARSE_TIMEOUT, millis(timeouts.parse()))
                .setServerOption(UndertowOptions.NO_REQUEST_TIMEOUT, millis(timeouts.noRequest()))
                .setServerOption(UndertowOptions.IDLE_TIMEOUT, millis(timeouts.idle()))
                .setServerOption(UndertowOptions.SHUTDOWN_TIMEOUT, millis(timeouts.shutdown()))
                .setHandler(graceful)
                .build();
        this.server.start();
        this.port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
        this.hosts = new HostPolicy(config.bind(), this.port, config.allowedHosts());
        LOG.info("HTTP API on http://{}:{}/ ({})", config.bind(), this.port, token == null ? "no token" : "bearer token required");
    }

    private static int millis(Duration d) {
        return (int) Math.min(Integer.MAX_VALUE, d.toMillis());
    }

    public int port() {
        return port;
    }

    /**
     * Runs on the I/O thread and does only bounded work there: the size checks, the Host, token and
     * Origin checks, and the parsing of the path and parameters, all linear in a request that is
     * itself bounded. A read's values are parsed (with size bounds, {@link Values}) and its queries
     * sent without leaving the I/O thread; its answer is written from the driver thread that
     * completes it. Everything else (status, metrics, jobs) may block, so it is dispatched to a
     * worker.
     */
    private void handle(HttpServerExchange exchange) {
        try {
            RequestLimits.checkTarget(exchange.getRequestURI(), exchange.getQueryString());
            RequestLimits.checkHeaders(exchange.getRequestHeaders());
            RequestLimits.checkNoBody(exchange.getRequestContentLength(), exchange.getRequestHeaders().contains(Headers.TRANSFER_ENCODING));
            checkHost(exchange);
            checkToken(exchange);
            String method = exchange.getRequestMethod().toString();
            if (!method.equals("GET")) {
                checkOrigin(exchange);
            }
            List<String> seg = PathCodec.segments(exchange.getRequestURI());
            Map<String, String> params = PathCodec.query(exchange.getQueryString());
            if (seg.size() >= 1 && seg.get(0).equals("v1")) {
                requireMethod(method.equals("GET"), method, "GET");
                IndexReader.Query query = readQuery(seg, params);
                exchange.dispatch(SameThreadExecutor.INSTANCE, () -> read(exchange, query));
                return;
            }
            exchange.dispatch(() -> {
                try {
                    respond(exchange, route(method, exchange.getRequestURI(), seg, params));
                } catch (RuntimeException e) {
                    fail(exchange, e);
                }
            });
        } catch (RuntimeException e) {
            fail(exchange, e);
        }
    }

    private void read(HttpServerExchange exchange, IndexReader.Query query) {
        CompletableFuture<IndexReader.Page> page;
        try {
            page = reads.read(query);
        } catch (RuntimeException e) {
            page = CompletableFuture.failedFuture(e);
        }
        withDeadline(exchange, page).whenComplete((p, failure) -> {
            if (failure == null) {
                respond(exchange, readBody(p));
            } else {
                Throwable f = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
                if (f instanceof TimeoutException) {
                    f = new HttpError(503, "timeout", "no answer within " + timeouts.answer().toSeconds() + " s", f);
                }
                fail(exchange, notFound(f, query.keyspace(), query.table(), query.index()));
            }
        });
    }

    /**
     * The read's page, or a {@link TimeoutException} after {@link Timeouts#answer()}. The deadline
     * is a timer of the connection's I/O thread, which this runs on: setting it there wakes no
     * thread, and the page's completion removes it. ({@code CompletableFuture.orTimeout} schedules
     * on a shared thread of its own and wakes it twice per read: 5 to 20 us of a 0.3 to 0.5 ms read
     * here, README Performance.)
     */
    private CompletableFuture<IndexReader.Page> withDeadline(HttpServerExchange exchange, CompletableFuture<IndexReader.Page> page) {
        CompletableFuture<IndexReader.Page> answer = new CompletableFuture<>();
        XnioExecutor.Key deadline;
        try {
            deadline = exchange.getIoThread().executeAfter(() -> answer.completeExceptionally(new TimeoutException()),
                    timeouts.answer().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RuntimeException e) {
            return page.orTimeout(timeouts.answer().toMillis(), TimeUnit.MILLISECONDS); // the I/O thread is stopping
        }
        page.whenComplete((p, failure) -> {
            deadline.remove();
            if (failure == null) {
                answer.complete(p);
            } else {
                answer.completeExceptionally(failure);
            }
        });
        return answer;
    }

    /** 400 without a Host on HTTP/1.1 or with several; 421 when it names another host (DNS rebinding). */
    private void checkHost(HttpServerExchange exchange) {
        HeaderValues host = exchange.getRequestHeaders().get(Headers.HOST);
        if (host == null || host.isEmpty()) {
            if (exchange.getProtocol().equals(Protocols.HTTP_1_1)) {
                throw HttpError.badRequest("bad_host", "HTTP/1.1 requests need a Host header");
            }
            return;
        }
        if (host.size() > 1) {
            throw HttpError.badRequest("bad_host", "more than one Host header");
        }
        if (!hosts.hostAllowed(host.getFirst())) {
            throw new HttpError(421, "misdirected_request", "this service does not answer to the host "
                    + Values.quote(host.getFirst()) + " (http.allowed_hosts lists other names it answers to)");
        }
    }

    /** 401 unless the token, when one is set, is given; compared in constant time. */
    private void checkToken(HttpServerExchange exchange) {
        if (token != null) {
            String auth = exchange.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
            if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), token)) {
                throw new HttpError(401, "unauthorized", "this API needs 'Authorization: Bearer <token>' (http.token in the config)");
            }
        }
    }

    /** 403 for a state-changing request from a browser on another site. */
    private void checkOrigin(HttpServerExchange exchange) {
        HeaderValues origin = exchange.getRequestHeaders().get(Headers.ORIGIN);
        if (origin != null && !origin.isEmpty() && (origin.size() > 1 || !hosts.originAllowed(origin.getFirst()))) {
            throw new HttpError(403, "forbidden_origin", "requests from the origin " + Values.quote(origin.getFirst())
                    + " may not change anything here");
        }
    }

    /** Sends a route's answer: JSON, or Prometheus text for a String. */
    private void respond(HttpServerExchange exchange, Object body) {
        try {
            if (body instanceof String text) {
                send(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", text.getBytes(StandardCharsets.UTF_8));
            } else {
                send(exchange, 200, "application/json", JSON.writeValueAsBytes(body));
            }
        } catch (Exception e) {
            fail(exchange, e);
        }
    }

    /** The request line, for logs. */
    private static String line(HttpServerExchange exchange) {
        return exchange.getRequestMethod() + " " + exchange.getRequestURI() + (exchange.getQueryString().isEmpty() ? "" : "?" + exchange.getQueryString());
    }

    /**
     * Answers a failure with the status {@link ErrorMapper} gives it: 4xx logged at WARN, 5xx at
     * ERROR, with the request line, at most {@value RejectLog#DEFAULT_LINES_PER_MINUTE} lines a
     * minute. A 5xx body never repeats what Cassandra or the driver said (node addresses, CQL): that goes to the log.
     * After a 413, 414 or 431 the connection is closed.
     */
    private void fail(HttpServerExchange exchange, Throwable failure) {
        String line = line(exchange);
        ErrorMapper.Answer a = ErrorMapper.map(failure);
        int status = a.status();
        String error = a.error();
        String detail;
        if (a.known() && status < 500) {
            detail = a.detail();
            rejected.increment();
            ErrorMapper.Answer hidden = failure.getCause() == null ? null : ErrorMapper.map(failure.getCause());
            log.warn(line, status, error, hidden != null && hidden.known() && hidden.status() < 500 ? hidden.detail() : detail);
        } else if (a.known()) {
            detail = status == 503 ? "Cassandra is unavailable or did not answer in time; try again later (the service log has more)"
                    : "the service could not answer; the service log has more";
            failed.increment();
            log.error(line, status, error, a.detail(), null);
        } else {
            detail = "unexpected error; the service log has more";
            failed.increment();
            log.error(line, status, error, failure.toString(), failure);
        }
        if (status == 413 || status == 414 || status == 431) {
            exchange.setPersistent(false);
        }
        sendError(exchange, status, error, detail.length() > MAX_DETAIL_CHARS ? detail.substring(0, MAX_DETAIL_CHARS) + "..." : detail);
    }

    /**
     * A 404 for a keyspace, table or index that does not exist, with one message for all three
     * unless the API is loopback-only without a token: callers must not learn which keyspaces and
     * tables exist. The precise reason is logged.
     */
    private Throwable notFound(Throwable failure, String keyspace, String table, String index) {
        if (detailedNotFound || ErrorMapper.status(failure) != 404) {
            return failure;
        }
        return new HttpError(404, "not_found", "no index " + Values.quote(index) + " on table " + Values.quote(keyspace + "." + table)
                + " (no such keyspace, table or index)", failure);
    }

    /** Routes everything but reads; may block (runs on a worker thread). */
    private Object route(String method, String rawPath, List<String> seg, Map<String, String> params) {
        boolean get = method.equals("GET");
        if (seg.equals(List.of("admin", "status"))) {
            requireMethod(get, method, "GET");
            return status.get();
        }
        if (seg.equals(List.of("metrics"))) {
            requireMethod(get, method, "GET");
            return metrics.get();
        }
        if (admin != null && seg.size() == 3 && seg.get(0).equals("admin") && seg.get(1).equals("jobs")) {
            requireMethod(get, method, "GET");
            return admin.job(seg.get(2));
        }
        if (admin != null && seg.size() == 5 && seg.get(0).equals("admin") && (seg.get(4).equals("rebuild") || seg.get(4).equals("check"))) {
            requireMethod(method.equals("POST"), method, "POST");
            try {
                return admin.start(seg.get(1), seg.get(2), seg.get(3), seg.get(4), params);
            } catch (RuntimeException e) {
                throw (RuntimeException) notFound(e, seg.get(1), seg.get(2), seg.get(3));
            }
        }
        throw HttpError.notFound("no such endpoint: " + Values.quote(rawPath) + " (reads are GET /v1/{keyspace}/{table}//{index}/{values...})");
    }

    private static void requireMethod(boolean ok, String method, String allowed) {
        if (!ok) {
            throw new HttpError(405, "method_not_allowed", Values.quote(method) + " is not allowed here; use " + allowed);
        }
    }

    private static final Set<String> READ_PARAMS = Set.of("gt", "ge", "lt", "le", "limit", "next", "consistent", "as_of");

    /** Parses a read's path and parameters (400 for anything malformed); touches nothing. */
    private static IndexReader.Query readQuery(List<String> seg, Map<String, String> params) {
        // v1, keyspace, table, "", index, values...
        if (seg.size() < 5 || !seg.get(3).isEmpty()) {
            throw HttpError.badRequest("bad_path", "reads are GET /v1/{keyspace}/{table}//{index}/{values...} (note the '//')");
        }
        List<String> values = seg.subList(5, seg.size());
        if (!values.isEmpty() && values.get(values.size() - 1).isEmpty()) {
            values = values.subList(0, values.size() - 1); // a trailing slash
        }
        if (seg.get(1).isEmpty() || seg.get(2).isEmpty() || seg.get(4).isEmpty()) {
            throw HttpError.badRequest("bad_path", "keyspace, table and index must not be empty");
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i).isEmpty()) {
                throw HttpError.badRequest("bad_path", "path value " + (i + 1) + " is empty (an index key value cannot be)");
            }
        }
        for (String p : params.keySet()) {
            if (!READ_PARAMS.contains(p)) {
                throw HttpError.badRequest("bad_parameter", "unknown parameter " + Values.quote(p)
                        + " (known: gt, ge, lt, le, limit, next, consistent, as_of)");
            }
        }
        Integer limit = null;
        if (params.containsKey("limit")) {
            String l = params.get("limit");
            if (l.length() > 9 || l.isEmpty() || !l.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw HttpError.badRequest("bad_limit", "limit must be a whole number from 1 to " + IndexReader.MAX_LIMIT + ", not "
                        + Values.quote(l));
            }
            limit = Integer.parseInt(l);
        }
        boolean consistent = bool(params, "consistent");
        return new IndexReader.Query(seg.get(1), seg.get(2), seg.get(4), List.copyOf(values), params.get("gt"),
                params.get("ge"), params.get("lt"), params.get("le"), limit, params.get("next"), consistent, params.get("as_of"));
    }

    private static Map<String, Object> readBody(IndexReader.Page page) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", page.items());
        body.put("next", page.next());
        if (page.asOf() != null) {
            body.put("as_of", page.asOf().toString()); // the moment the answer is as of (DESIGN.md section 4)
        }
        return body;
    }

    private static boolean bool(Map<String, String> params, String name) {
        String v = params.get(name);
        if (v == null) {
            return false;
        }
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw HttpError.badRequest("bad_parameter", name + " must be true or false, not " + Values.quote(v));
        };
    }

    private static void sendError(HttpServerExchange exchange, int status, String error, String detail) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("detail", detail);
        try {
            send(exchange, status, "application/json", JSON.writeValueAsBytes(body));
        } catch (Exception e) {
            // the response had started, or the connection is gone: nothing more can be said
            try {
                exchange.endExchange();
            } catch (RuntimeException ignored) {
                // closed already
            }
        }
    }

    private static final HttpString CACHE_CONTROL = new HttpString("Cache-Control");
    private static final HttpString NOSNIFF = new HttpString("X-Content-Type-Options");

    private static void send(HttpServerExchange exchange, int status, String type, byte[] body) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, type);
        exchange.getResponseHeaders().put(CACHE_CONTROL, "no-store");
        exchange.getResponseHeaders().put(NOSNIFF, "nosniff");
        exchange.getResponseSender().send(ByteBuffer.wrap(body));
    }

    /**
     * Stops within about twice {@link Timeouts#shutdown()}: new requests get 503 at once, requests in
     * flight get that long to finish, then Undertow's threads get that long to stop before they are
     * forced (connections still open are closed).
     */
    @Override
    public void close() {
        graceful.shutdown();
        try {
            if (!graceful.awaitShutdown(timeouts.shutdown().toMillis())) {
                LOG.warn("HTTP API: requests still in flight after {} ms; closing their connections", timeouts.shutdown().toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        server.stop();
    }
}
