package io.cassandragsi.repair.jobs;

/**
 * A job cannot start as asked: its options, its job id or the cluster do not allow it (HTTP 400).
 * An unknown keyspace, table or index is an {@link UnknownTargetException} instead.
 */
public class InvalidJobException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public InvalidJobException(String message, Throwable cause) {
        super(message, cause);
    }
}
