package io.cassandragsi.repair.config;

/**
 * {@code http}: the repair service's HTTP API. Without a token the API only listens on a loopback
 * address, unless {@code allow_unauthenticated_remote} says otherwise.
 */
public record HttpConfig(String bind, int port, String token, boolean allowUnauthenticatedRemote) {

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
                + ", allowUnauthenticatedRemote=" + allowUnauthenticatedRemote + "]";
    }
}
