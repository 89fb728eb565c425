package io.cassandragsi.repair.jobs;

/** A job of the same kind and target is already running or starting in this process (HTTP 409). */
public class JobConflictException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JobConflictException(String message) {
        super(message);
    }
}
