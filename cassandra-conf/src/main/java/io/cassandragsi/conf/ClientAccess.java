package io.cassandragsi.conf;

import java.nio.file.Path;

/**
 * How the launcher's own CQL sessions (readiness and cluster-view checks) reach nodes started with
 * client TLS and password authentication: a truststore that holds the CA of the nodes'
 * certificates, and a role to log in with. Null fields: no TLS, no authentication.
 *
 * @param truststore PKCS12 truststore, or null for plain-text connections
 * @param truststorePassword its password
 * @param username role to log in with, or null without authentication
 * @param password its password
 */
public record ClientAccess(Path truststore, String truststorePassword, String username, String password) {

    /** Plain-text connections without authentication (the default). */
    public static ClientAccess plain() {
        return new ClientAccess(null, null, null, null);
    }

    /** The same TLS settings, logging in as another role. */
    public ClientAccess withCredentials(String user, String pass) {
        if (user == null || user.isBlank() || pass == null || pass.isEmpty()) {
            throw new IllegalArgumentException("a role name and a password are both needed");
        }
        return new ClientAccess(truststore, truststorePassword, user, pass);
    }

    /** Never prints the passwords. */
    @Override
    public String toString() {
        return "ClientAccess[truststore=" + truststore + ", username=" + username + "]";
    }
}
