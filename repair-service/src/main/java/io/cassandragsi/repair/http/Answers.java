package io.cassandragsi.repair.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * How {@link HttpApi} answers: a route's body as JSON or Prometheus text, and a failure in the one
 * JSON error shape with the status {@link ErrorMapper} gives it, logged (rate-limited, {@link
 * RejectLog}) and counted. Every answer says {@code Cache-Control: no-store} and {@code nosniff}.
 */
final class Answers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_DETAIL_CHARS = 1000;

    private final RejectLog log;
    /** {@link HttpApi#rejected}: requests refused with a 4xx. */
    private final LongAdder rejected;
    /** {@link HttpApi#failed}: requests that failed with a 5xx. */
    private final LongAdder failed;

    Answers(RejectLog log, LongAdder rejected, LongAdder failed) {
        this.log = log;
        this.rejected = rejected;
        this.failed = failed;
    }

    /** An HTML page (the status page): sent with a policy that allows no script and no outside asset. */
    record Html(String page) {}

    private static final HttpString CSP = new HttpString("Content-Security-Policy");

    /** Sends a route's answer: JSON, Prometheus text for a String, or an {@link Html} page. */
    void respond(HttpServerExchange exchange, Object body) {
        try {
            if (body instanceof Html html) {
                exchange.getResponseHeaders().put(CSP, "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'");
                send(exchange, 200, "text/html; charset=utf-8", html.page().getBytes(StandardCharsets.UTF_8));
            } else if (body instanceof String text) {
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
    void fail(HttpServerExchange exchange, Throwable failure) {
        String line = line(exchange);
        ErrorMapper.Answer a = ErrorMapper.map(failure);
        int status = a.status();
        String error = a.error();
        String detail;
        if (a.known() && a.detailForCaller()) {
            detail = a.detail();
            (status < 500 ? rejected : failed).increment();
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
        Long retryAfter = ErrorMapper.retryAfter(failure);
        if (retryAfter != null) {
            exchange.getResponseHeaders().put(Headers.RETRY_AFTER, retryAfter.toString());
        }
        sendError(exchange, status, error, detail.length() > MAX_DETAIL_CHARS ? detail.substring(0, MAX_DETAIL_CHARS) + "..." : detail);
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
}
