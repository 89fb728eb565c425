package io.cassandragsi.repair.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which {@code Host} and {@code Origin} headers the API answers, against DNS rebinding and
 * cross-site requests. Pure: names are compared, never resolved.
 *
 * <p>A {@code Host} is accepted when it names the bound address; when bound to loopback, also
 * {@code localhost} and loopback addresses; when bound to a wildcard address, any IP address
 * literal (a rebinding attack needs a name the attacker controls) and {@code localhost}; and any
 * configured {@code http.allowed_hosts} entry. The port, when given, must be the listening port
 * (an allowed-host entry without a port accepts any port: the name may sit behind a proxy).
 *
 * <p>An {@code Origin} (sent by browsers on cross-site requests) is accepted when its scheme is
 * http or https and its host and port, the scheme's default port if none, pass the same test
 * with the port required: {@code http://localhost} is another site than {@code
 * http://localhost:8080}. {@code Origin: null} is refused.
 */
public final class HostPolicy {
    private static final int MAX_HOST_CHARS = 255;

    private record Allowed(String host, int port) {}

    private final String bind;
    private final int port;
    private final boolean loopback;
    private final boolean wildcard;
    private final List<Allowed> allowed = new ArrayList<>();

    /** {@code bind} as configured, {@code port} the listening port, {@code allowedHosts} as {@code name[:port]}. */
    public HostPolicy(String bind, int port, List<String> allowedHosts) {
        String b = bind.trim().toLowerCase(Locale.ROOT);
        this.bind = b.indexOf(':') >= 0 && !b.startsWith("[") ? "[" + b + "]" : b;
        this.port = port;
        this.wildcard = this.bind.equals("0.0.0.0") || this.bind.equals("[::]") || this.bind.equals("[0:0:0:0:0:0:0:0]");
        this.loopback = isLoopback(this.bind);
        for (String h : allowedHosts) {
            HostPort hp = HostPort.parse(h);
            if (hp == null) {
                throw new IllegalArgumentException("not a host name or address with an optional port: '" + h + "'");
            }
            allowed.add(new Allowed(hp.host(), hp.port()));
        }
    }

    /** A host and a port (-1: none given), lower case, without a trailing dot. */
    record HostPort(String host, int port) {
        static HostPort parse(String authority) {
            if (authority == null || authority.isEmpty() || authority.length() > MAX_HOST_CHARS) {
                return null;
            }
            String a = authority.toLowerCase(Locale.ROOT);
            String host;
            String rest;
            if (a.startsWith("[")) {
                int close = a.indexOf(']');
                if (close < 0) {
                    return null;
                }
                host = a.substring(0, close + 1);
                rest = a.substring(close + 1);
            } else {
                int colon = a.indexOf(':');
                host = colon < 0 ? a : a.substring(0, colon);
                rest = colon < 0 ? "" : a.substring(colon);
            }
            int port = -1;
            if (!rest.isEmpty()) {
                if (rest.charAt(0) != ':' || rest.length() < 2 || rest.length() > 6 || !digits(rest.substring(1))) {
                    return null;
                }
                port = Integer.parseInt(rest.substring(1));
                if (port > 65535) {
                    return null;
                }
            }
            if (host.endsWith(".")) {
                host = host.substring(0, host.length() - 1);
            }
            return validHost(host) ? new HostPort(host, port) : null;
        }
    }

    /** The {@code Host} header: the port may be left out. */
    public boolean hostAllowed(String hostHeader) {
        HostPort hp = HostPort.parse(hostHeader == null ? null : hostHeader.trim());
        return hp != null && allowed(hp.host(), hp.port(), true);
    }

    /** The {@code Origin} header: {@code scheme://host[:port]}, the port defaulting to the scheme's. */
    public boolean originAllowed(String origin) {
        if (origin == null) {
            return false;
        }
        String o = origin.trim().toLowerCase(Locale.ROOT);
        int defaultPort;
        String authority;
        if (o.startsWith("http://")) {
            defaultPort = 80;
            authority = o.substring(7);
        } else if (o.startsWith("https://")) {
            defaultPort = 443;
            authority = o.substring(8);
        } else {
            return false; // "null", file:, other schemes
        }
        HostPort hp = HostPort.parse(authority);
        return hp != null && allowed(hp.host(), hp.port() < 0 ? defaultPort : hp.port(), false);
    }

    private boolean allowed(String host, int requestPort, boolean portOptional) {
        for (Allowed a : allowed) {
            if (a.host().equals(host) && (a.port() < 0 || a.port() == requestPort || (requestPort < 0 && portOptional))) {
                return true;
            }
        }
        if (requestPort != port && !(requestPort < 0 && portOptional)) {
            return false;
        }
        if (host.equals(bind)) {
            return true;
        }
        if ((loopback || wildcard) && isLoopback(host)) {
            return true;
        }
        return wildcard && (isIpv4(host) || host.startsWith("["));
    }

    /** {@code localhost}, 127.x.y.z or [::1]. */
    static boolean isLoopback(String host) {
        return host.equals("localhost") || host.equals("[::1]") || (isIpv4(host) && host.startsWith("127."));
    }

    static boolean isIpv4(String host) {
        String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return false;
        }
        for (String p : parts) {
            if (p.isEmpty() || p.length() > 3 || !digits(p) || Integer.parseInt(p) > 255) {
                return false;
            }
        }
        return true;
    }

    /** A DNS name (letters, digits, '-', '_', dots), an IPv4 address or a bracketed IPv6 address. */
    private static boolean validHost(String host) {
        if (host.isEmpty()) {
            return false;
        }
        if (host.startsWith("[")) {
            for (int i = 1; i < host.length() - 1; i++) {
                char c = host.charAt(i);
                if (Character.digit(c, 16) < 0 && c != ':' && c != '.') {
                    return false;
                }
            }
            return host.length() > 2 && host.endsWith("]");
        }
        for (int i = 0; i < host.length(); i++) {
            char c = host.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || (c == '.' && i > 0 && host.charAt(i - 1) != '.');
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    private static boolean digits(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return !s.isEmpty();
    }
}
