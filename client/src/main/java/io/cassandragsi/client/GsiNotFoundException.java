package io.cassandragsi.client;

/** No such keyspace, indexed table or index (HTTP 404); the message names which, and the indexes there are. */
public final class GsiNotFoundException extends GsiException {
    private static final long serialVersionUID = 1L;

    GsiNotFoundException(String message, Throwable cause) {
        super("not_found", message, cause);
    }
}
