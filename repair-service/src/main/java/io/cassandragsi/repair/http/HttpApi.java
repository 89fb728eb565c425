package io.cassandragsi.repair.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.Headers;
import io.undertow.util.HttpString;
import io.undertow.util.SameThreadExecutor;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP API (DESIGN.md section 4) on Undertow: a thin adapter over {@link IndexReader} and the
 * service's status, metrics and jobs. Paths are parsed from the raw request URI (Undertow's URL
 * decoding is off), so the {@code //} of the read path, encoded slashes and invalid UTF-8 are
 * handled here, with the one JSON error shape. One place maps failures to status codes (STYLE.md
 * item 4): 4xx are logged at WARN, 5xx at ERROR, each with the request line.
 */
public final class HttpApi implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Undertow server;
    private final IndexReader reader;
    private final byte[] token;
    private final Supplier<Map<String, Object>> status;
    private final Supplier<String> metrics;
    private final Admin admin;
    private final int port;

    /** Job endpoints, provided by the service (null: answered with 404). */
    public interface Admin {
        Map<String, Object> start(String keyspace, String table, String index, String job, Map<String, String> params);

        Map<String, Object> job(String id);
    }

    public HttpApi(String bind, int port, String bearerToken, IndexReader reader, Supplier<Map<String, Object>> status,
            Supplier<String> metrics, Admin admin) {
        this.reader = reader;
        this.token = bearerToken == null ? null : ("Bearer " + bearerToken).getBytes(StandardCharsets.UTF_8);
        this.status = status;
        this.metrics = metrics;
        this.admin = admin;
        this.server = Undertow.builder()
                .addHttpListener(port, bind)
                .setServerOption(UndertowOptions.DECODE_URL, false)
                .setServerOption(UndertowOptions.ALLOW_ENCODED_SLASH, true)
                .setHandler(this::handle)
                .build();
        this.server.start();
        this.port = ((java.net.InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
        LOG.info("HTTP API on http://{}:{}/ ({})", bind, this.port, token == null ? "no token" : "bearer token required");
    }

    public int port() {
        return port;
    }

    /**
     * Runs on the I/O thread. Reads never leave it until they go to Cassandra: the request is parsed
     * here, the read runs asynchronously and its response is written from the driver thread that
     * completes it, with no hand-off to a worker thread and no thread blocked while Cassandra
     * answers. Everything else (status, metrics, jobs) may block, so it is dispatched to a worker.
     */
    private void handle(HttpServerExchange exchange) {
        String method = exchange.getRequestMethod().toString();
        try {
            if (token != null) {
                String auth = exchange.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
                if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), token)) {
                    throw new ReadException(401, "unauthorized", "this API needs 'Authorization: Bearer <token>' (http.token in the config)");
                }
            }
            List<String> seg = PathCodec.segments(exchange.getRequestURI());
            Map<String, String> params = PathCodec.query(exchange.getQueryString());
            if (seg.size() >= 1 && seg.get(0).equals("v1")) {
                requireMethod(method.equals("GET"), method, "GET");
                IndexReader.Query query = readQuery(seg, params);
                exchange.dispatch(SameThreadExecutor.INSTANCE, () -> reader.readAsync(query).whenComplete((page, failure) -> {
                    if (failure == null) {
                        respond(exchange, readBody(page));
                    } else {
                        fail(exchange, failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure);
                    }
                }));
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

    /** Sends a route's answer: JSON, or Prometheus text for a String. */
    private static void respond(HttpServerExchange exchange, Object body) {
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

    /** The one place failures become status codes: 4xx logged at WARN, 5xx at ERROR, with the request line. */
    private static void fail(HttpServerExchange exchange, Throwable failure) {
        String line = line(exchange);
        if (failure instanceof ReadException e) {
            if (e.status() >= 500) {
                LOG.error("{} -> {} {}: {}", line, e.status(), e.error(), e.detail());
            } else {
                LOG.warn("{} -> {} {}: {}", line, e.status(), e.error(), e.detail());
            }
            sendError(exchange, e.status(), e.error(), e.detail());
        } else {
            LOG.error("{} -> 500: {}", line, failure.toString(), failure);
            sendError(exchange, 500, "internal_error", "unexpected error: " + failure.getClass().getSimpleName());
        }
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
            return admin.start(seg.get(1), seg.get(2), seg.get(3), seg.get(4), params);
        }
        throw ReadException.notFound("no such endpoint: " + rawPath + " (reads are GET /v1/{keyspace}/{table}//{index}/{values...})");
    }

    private static void requireMethod(boolean ok, String method, String allowed) {
        if (!ok) {
            throw new ReadException(405, "method_not_allowed", method + " is not allowed here; use " + allowed);
        }
    }

    private static final java.util.Set<String> READ_PARAMS = java.util.Set.of("gt", "ge", "lt", "le", "limit", "next", "consistent", "as_of");

    /** Parses a read's path and parameters (400 for anything malformed); touches nothing. */
    private static IndexReader.Query readQuery(List<String> seg, Map<String, String> params) {
        // v1, keyspace, table, "", index, values...
        if (seg.size() < 5 || !seg.get(3).isEmpty()) {
            throw ReadException.badRequest("bad_path", "reads are GET /v1/{keyspace}/{table}//{index}/{values...} (note the '//')");
        }
        List<String> values = seg.subList(5, seg.size());
        if (!values.isEmpty() && values.get(values.size() - 1).isEmpty()) {
            values = values.subList(0, values.size() - 1); // a trailing slash
        }
        if (seg.get(1).isEmpty() || seg.get(2).isEmpty() || seg.get(4).isEmpty()) {
            throw ReadException.badRequest("bad_path", "keyspace, table and index must not be empty");
        }
        for (String p : params.keySet()) {
            if (!READ_PARAMS.contains(p)) {
                throw ReadException.badRequest("bad_parameter", "unknown parameter '" + p + "' (known: gt, ge, lt, le, limit, next, consistent, as_of)");
            }
        }
        Integer limit = null;
        if (params.containsKey("limit")) {
            try {
                limit = Integer.parseInt(params.get("limit"));
            } catch (NumberFormatException e) {
                throw ReadException.badRequest("bad_limit", "limit must be a whole number from 1 to " + IndexReader.MAX_LIMIT + ", not '" + params.get("limit") + "'");
            }
        }
        boolean consistent = bool(params, "consistent");
        return new IndexReader.Query(seg.get(1), seg.get(2), seg.get(4), List.copyOf(values), params.get("gt"),
                params.get("ge"), params.get("lt"), params.get("le"), limit, params.get("next"), consistent, params.get("as_of"));
    }

    private static Map<String, Object> readBody(IndexReader.Page page) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", page.items());
        body.put("next", page.next());
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
            default -> throw ReadException.badRequest("bad_parameter", name + " must be true or false, not '" + v + "'");
        };
    }

    private static void sendError(HttpServerExchange exchange, int status, String error, String detail) {
        Map<String, String> body = new LinkedHashMap<>();
        body.put("error", error);
        body.put("detail", detail);
        try {
            send(exchange, status, "application/json", JSON.writeValueAsBytes(body));
        } catch (Exception e) {
            exchange.setStatusCode(status);
            exchange.endExchange();
        }
    }

    private static final HttpString CACHE_CONTROL = new HttpString("Cache-Control");

    private static void send(HttpServerExchange exchange, int status, String type, byte[] body) {
        exchange.setStatusCode(status);
        exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, type);
        exchange.getResponseHeaders().put(CACHE_CONTROL, "no-store");
        exchange.getResponseSender().send(ByteBuffer.wrap(body));
    }

    @Override
    public void close() {
        server.stop();
    }
}
