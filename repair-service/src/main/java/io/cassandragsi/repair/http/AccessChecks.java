package io.cassandragsi.repair.http;

import io.cassandragsi.repair.read.Values;
import io.undertow.server.HttpServerExchange;
import io.undertow.util.HeaderValues;
import io.undertow.util.Headers;
import io.undertow.util.Protocols;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may ask: a request must name this service in {@code Host}, give the bearer token when one is
 * set, and, when it changes state, not come from a foreign {@code Origin} ({@link HostPolicy}
 * decides which names and origins are this service's). Each check throws the {@link HttpError}
 * to answer with.
 */
final class AccessChecks {
    private AccessChecks() {}

    /** 400 without a Host on HTTP/1.1 or with several; 421 when it names another host (DNS rebinding). */
    static void checkHost(HttpServerExchange exchange, HostPolicy hosts) {
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
    static void checkToken(HttpServerExchange exchange, byte[] token) {
        if (token != null) {
            String auth = exchange.getRequestHeaders().getFirst(Headers.AUTHORIZATION);
            if (auth == null || !MessageDigest.isEqual(auth.getBytes(StandardCharsets.UTF_8), token)) {
                throw new HttpError(401, "unauthorized", "this API needs 'Authorization: Bearer <token>' (http.token in the config)");
            }
        }
    }

    /** 403 for a state-changing request from a browser on another site. */
    static void checkOrigin(HttpServerExchange exchange, HostPolicy hosts) {
        HeaderValues origin = exchange.getRequestHeaders().get(Headers.ORIGIN);
        if (origin != null && !origin.isEmpty() && (origin.size() > 1 || !hosts.originAllowed(origin.getFirst()))) {
            throw new HttpError(403, "forbidden_origin", "requests from the origin " + Values.quote(origin.getFirst())
                    + " may not change anything here");
        }
    }
}
