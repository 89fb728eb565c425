package io.cassandragsi.repair.jobs;

/** A job could not finish: Cassandra kept failing a request, or the table changed under it. */
public class JobFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JobFailedException(String message, Throwable cause) {
        super(message, cause);
    }

    public JobFailedException(String message) {
        super(message);
    }
}
