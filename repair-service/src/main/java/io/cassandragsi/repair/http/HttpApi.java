package io.cassandragsi.repair.http;

import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.config.ServerTls;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.status.StatusHtml;
import io.cassandragsi.repair.status.StatusReport;
import io.cassandragsi.repair.read.Values;
import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.server.handlers.GracefulShutdownHandler;
import io.undertow.util.Headers;
import io.undertow.util.SameThreadExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * The HTTP API (docs/design.md section 8) on Undertow: a thin adapter over the index reads and the
 * service's status, metrics and jobs. HTTP/1.1 and HTTP/2 (cleartext by upgrade or prior knowledge;
 * over TLS by ALPN when {@code http.tls} is set), so that a client may multiplex its reads over one
 * connection (docs/design.md section 8.8). Paths are parsed from the raw request URI (Undertow's URL
 * decoding is off), so the {@code //} of the read path, encoded slashes and invalid UTF-8 are
 * handled here, with the one JSON error shape. {@link ErrorMapper} maps failures to status codes
 * (docs/design.md section 1); 4xx are logged at WARN, 5xx at ERROR, each with the request line, rate-limited.
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

    /** Requests refused with a 4xx. */
    public final LongAdder rejected = new LongAdder();
    /** Requests that failed with a 5xx. */
    public final LongAdder failed = new LongAdder();
    private final Answers answers = new Answers(new RejectLog(LOG, RejectLog.DEFAULT_LINES_PER_MINUTE, System::nanoTime), rejected,
            failed);

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
        Undertow.Builder builder = Undertow.builder();
        if (config.tls() == null) {
            builder.addHttpListener(config.port(), config.bind());
        } else {
            builder.addHttpsListener(config.port(), config.bind(), ServerTls.context(config.tls()));
        }
        this.server = builder
                .setServerOption(UndertowOptions.ENABLE_HTTP2, true)
                .setServerOption(UndertowOptions.HTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, RequestLimits.MAX_HEAD_BYTES)
                .setServerOption(UndertowOptions.HTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, RequestLimits.MAX_STREAMS)
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
        LOG.info("HTTP API on {}://{}:{}/ (HTTP/1.1 and HTTP/2; {})", config.scheme(), config.bind(), this.port,
                token == null ? "no token" : "bearer token required");
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
     * sent without leaving the I/O thread; its answer is written back on that I/O thread ({@link
     * #read}). Everything else (status, metrics, jobs) may block, so it is dispatched to a
     * worker.
     */
    private void handle(HttpServerExchange exchange) {
        try {
            RequestLimits.checkTarget(exchange.getRequestURI(), exchange.getQueryString());
            RequestLimits.checkHeaders(exchange.getRequestHeaders());
            RequestLimits.checkNoBody(exchange.getRequestContentLength(), exchange.getRequestHeaders().contains(Headers.TRANSFER_ENCODING));
            AccessChecks.checkHost(exchange, hosts);
            AccessChecks.checkToken(exchange, token);
            String method = exchange.getRequestMethod().toString();
            if (!method.equals("GET")) {
                AccessChecks.checkOrigin(exchange, hosts);
            }
            List<String> seg = PathCodec.segments(exchange.getRequestURI());
            Map<String, String> params = PathCodec.query(exchange.getQueryString());
            if (seg.size() >= 1 && seg.get(0).equals("v1")) {
                requireMethod(method.equals("GET"), method, "GET");
                IndexReader.Query query = ReadCodec.query(seg, params);
                exchange.dispatch(SameThreadExecutor.INSTANCE, () -> read(exchange, query));
                return;
            }
            exchange.dispatch(() -> {
                try {
                    answers.respond(exchange, route(method, exchange.getRequestURI(), seg, params));
                } catch (RuntimeException e) {
                    answers.fail(exchange, e);
                }
            });
        } catch (RuntimeException e) {
            answers.fail(exchange, e);
        }
    }

    /**
     * Sends the read and answers on the connection's I/O thread when the page completes: the JSON
     * is written there, not on the driver's event loop, which completes every read of its
     * connection to Cassandra and would write every answer alone. At saturation this did 0.42 to
     * 0.47 of the view's reads/s against 0.35 to 0.43 written from the driver's thread, and less
     * CPU per read (docs/performance.md).
     */
    private void read(HttpServerExchange exchange, IndexReader.Query query) {
        CompletableFuture<IndexReader.Page> page;
        try {
            page = reads.read(query);
        } catch (RuntimeException e) {
            page = CompletableFuture.failedFuture(e);
        }
        withDeadline(exchange, page).whenCompleteAsync((p, failure) -> {
            if (failure == null) {
                answers.respond(exchange, ReadCodec.body(p));
            } else {
                Throwable f = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
                if (f instanceof TimeoutException) {
                    f = new HttpError(503, "timeout", "no answer within " + timeouts.answer().toSeconds() + " s", f);
                }
                answers.fail(exchange, notFound(f, query.keyspace(), query.table(), query.index()));
            }
        }, exchange.getIoThread());
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
        if (seg.equals(List.of(""))) { // GET /: the status page
            requireMethod(get, method, "GET");
            return new Answers.Html(StatusHtml.render(StatusReport.of(status.get()), java.time.Instant.now().toString()));
        }
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
