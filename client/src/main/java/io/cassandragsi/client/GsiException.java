package io.cassandragsi.client;

/**
 * A read or a client that cannot be made, for a reason this library names: the subclasses say
 * which, as the HTTP API's status codes do (docs/http-api.md, Errors). {@link #error()} is the same
 * short code the HTTP API sends ({@code bad_value}, {@code not_found}, ...), the message names what
 * is wrong.
 */
public abstract class GsiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String error;

    GsiException(String error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    /** The HTTP API's code for this error ({@code error} in its JSON body). */
    public String error() {
        return error;
    }
}
