package io.cassandragsi.client;

/**
 * A parameter or a value the query got wrong (HTTP 400): a value that does not parse as its
 * attribute's type, a bound, limit, moment or window out of range, read kinds that do not combine,
 * a page token of another query. {@link #error()} names the case ({@code bad_value}, {@code
 * bad_limit}, {@code bad_as_of}, {@code bad_window}, {@code bad_fresh}, {@code bad_next}, ...).
 */
public final class GsiBadRequestException extends GsiException {
    private static final long serialVersionUID = 1L;

    GsiBadRequestException(String error, String message, Throwable cause) {
        super(error, message, cause);
    }
}
