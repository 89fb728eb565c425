package io.cassandragsi.repair.cli;

/** A command could not do its job for a reason its message fully explains (printed without a stack trace). */
public class CommandFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CommandFailedException(String message) {
        super(message);
    }

    public CommandFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
