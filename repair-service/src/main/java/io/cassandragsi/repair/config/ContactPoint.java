package io.cassandragsi.repair.config;

/** A CQL contact point: host name or IP address and native-transport port. */
public record ContactPoint(String host, int port) {
    public static final int DEFAULT_PORT = 9042;

    /**
     * Parses {@code host:port}, {@code host} (port 9042), {@code [ipv6]:port} or {@code [ipv6]}.
     *
     * @throws IllegalArgumentException with a message fit for the user
     */
    public static ContactPoint parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a contact point must be host:port, got an empty value");
        }
        String s = text.trim();
        String host;
        String port = null;
        if (s.startsWith("[")) {
            int close = s.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("'" + text + "' is not host:port (missing ']')");
            }
            host = s.substring(1, close);
            String rest = s.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw new IllegalArgumentException("'" + text + "' is not [address]:port");
                }
                port = rest.substring(1);
            }
        } else {
            int colon = s.lastIndexOf(':');
            if (colon >= 0 && s.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "': write IPv6 addresses as [address]:port");
            }
            host = colon < 0 ? s : s.substring(0, colon);
            port = colon < 0 ? null : s.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' has no host");
        }
        int p = DEFAULT_PORT;
        if (port != null) {
            try {
                p = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + text + "': port '" + port + "' is not a number");
            }
            if (p < 1 || p > 65535) {
                throw new IllegalArgumentException("'" + text + "': port " + p + " is outside 1-65535");
            }
        }
        return new ContactPoint(host, p);
    }

    /** The form the driver's {@code basic.contact-points} option takes. */
    @Override
    public String toString() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
