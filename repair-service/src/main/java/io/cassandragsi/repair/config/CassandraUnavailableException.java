package io.cassandragsi.repair.config;

/** No session could be opened: the cluster is down, unreachable, or refuses the credentials. */
public class CassandraUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CassandraUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
