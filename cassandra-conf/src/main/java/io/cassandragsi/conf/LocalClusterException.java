package io.cassandragsi.conf;

/** A local Cassandra node could not be started, stopped or reached. */
public class LocalClusterException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LocalClusterException(String message) {
        super(message);
    }

    public LocalClusterException(String message, Throwable cause) {
        super(message, cause);
    }
}
