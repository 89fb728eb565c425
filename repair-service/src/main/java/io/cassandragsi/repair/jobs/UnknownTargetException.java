package io.cassandragsi.repair.jobs;

/** The keyspace, table or index a job names is not indexed (HTTP 404). */
public class UnknownTargetException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public UnknownTargetException(String message) {
        super(message);
    }
}
