package io.cassandragsi.client;

/** Cassandra did not answer the read (HTTP 503 {@code cassandra_unavailable}); the cause is the driver's exception. */
public final class GsiUnavailableException extends GsiException {
    private static final long serialVersionUID = 1L;

    GsiUnavailableException(String message, Throwable cause) {
        super("cassandra_unavailable", message, cause);
    }
}
