package io.cassandragsi.repair.config;

import java.util.List;

/**
 * {@code http}: the repair service's HTTP API. Without a token the API only listens on a loopback
 * address, unless {@code allow_unauthenticated_remote} says otherwise. {@code allowedHosts} are the
 * names (optionally {@code name:port}) that clients may use in the {@code Host} header besides the
 * bound address (and, when bound to loopback, {@code localhost} and loopback addresses): requests
 * naming another host are refused, which defeats DNS rebinding. {@code freshTimeout}: how long a
 * fresh read waits for the safe time at most (docs/design.md section 8.7). {@code tls}: the API's own
 * certificate, when it serves HTTPS (HTTP/2 through ALPN); null: plain HTTP, HTTP/2 in cleartext
 * (docs/design.md section 8.8).
 */
public record HttpConfig(String bind, int port, String token, boolean allowUnauthenticatedRemote, List<String> allowedHosts,
        java.time.Duration freshTimeout, Tls tls) {

    /** {@code http.tls}: a key store (PKCS12 or JKS) holding the API's private key and certificate chain. */
    public record Tls(java.nio.file.Path keystore, String password) {
        /** Never prints the password. */
        @Override
        public String toString() {
            return "Tls[keystore=" + keystore + "]";
        }
    }

    /** An {@code allowed_hosts} entry: a host name, an IPv4 address or a bracketed IPv6 address, optionally with :port. */
    public static final java.util.regex.Pattern ALLOWED_HOST =
            java.util.regex.Pattern.compile("(?i)(?:[a-z0-9_-]+(?:\\.[a-z0-9_-]+)*\\.?|\\[[0-9a-f:.]+\\])(?::[0-9]{1,5})?");

    public HttpConfig {
        allowedHosts = allowedHosts == null ? List.of() : List.copyOf(allowedHosts);
        freshTimeout = freshTimeout == null ? io.cassandragsi.repair.read.IndexReader.FRESH_TIMEOUT : freshTimeout;
    }

    /** Plain HTTP. */
    public HttpConfig(String bind, int port, String token, boolean allowUnauthenticatedRemote, List<String> allowedHosts,
            java.time.Duration freshTimeout) {
        this(bind, port, token, allowUnauthenticatedRemote, allowedHosts, freshTimeout, null);
    }

    /** The default {@code fresh_timeout}. */
    public HttpConfig(String bind, int port, String token, boolean allowUnauthenticatedRemote, List<String> allowedHosts) {
        this(bind, port, token, allowUnauthenticatedRemote, allowedHosts, null);
    }

    /** {@code https} with {@link #tls}, else {@code http}. */
    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** No extra allowed host names. */
    public HttpConfig(String bind, int port, String token, boolean allowUnauthenticatedRemote) {
        this(bind, port, token, allowUnauthenticatedRemote, List.of());
    }

    public static HttpConfig defaults() {
        return new HttpConfig("127.0.0.1", 8080, null, false);
    }

    /** True for loopback literals and {@code localhost}; host names are not resolved. */
    public static boolean isLoopback(String bind) {
        String b = bind.trim().toLowerCase(java.util.Locale.ROOT);
        return b.equals("localhost") || b.startsWith("127.") || b.equals("::1") || b.equals("[::1]");
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "HttpConfig[bind=" + bind + ", port=" + port + ", token=" + (token == null ? "none" : "***")
                + ", allowUnauthenticatedRemote=" + allowUnauthenticatedRemote + ", allowedHosts=" + allowedHosts + ", freshTimeout="
                + freshTimeout + ", tls=" + tls + "]";
    }
}
