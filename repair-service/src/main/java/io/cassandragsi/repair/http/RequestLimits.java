package io.cassandragsi.repair.http;

import io.cassandragsi.repair.read.Values;
import io.undertow.util.HeaderMap;
import io.undertow.util.HeaderValues;

/**
 * The size limits of a request, in two layers. Undertow enforces hard ceilings while it parses
 * ({@link #MAX_HEAD_BYTES}, {@link #MAX_HEADERS_HARD}, {@link #MAX_PARAMETERS_HARD},
 * {@link #MAX_BODY_BYTES}): past them it answers a bare 400 and closes the connection. Below
 * them, the checks here answer the JSON error shape naming the limit: 414 for the request target,
 * 431 for headers, 413 for a body, 400 for path segments and parameters ({@link PathCodec}).
 * Values inside the limits are bounded again by type in {@code read.Values}. Pure.
 */
public final class RequestLimits {
    /** Request line and headers together, enforced by Undertow while it reads them. */
    /** Requests in flight on one HTTP/2 connection: more are refused by the protocol (the client waits). */
    public static final int MAX_STREAMS = 256;
    public static final int MAX_HEAD_BYTES = 128 * 1024;
    /** Header lines, enforced by Undertow. */
    public static final int MAX_HEADERS_HARD = 128;
    /** Query parameters, enforced by Undertow. */
    public static final int MAX_PARAMETERS_HARD = 64;
    /** Request bodies: no endpoint takes one; Undertow closes a connection that sends more. */
    public static final long MAX_BODY_BYTES = 16 * 1024;

    /** The raw path (percent-escapes included). */
    public static final int MAX_PATH_BYTES = 16 * 1024;
    /** The raw query string. */
    public static final int MAX_QUERY_BYTES = 8 * 1024;
    /** Path segments ({@code /v1/ks/table//index} is five). */
    public static final int MAX_SEGMENTS = 32;
    /** Query parameters. */
    public static final int MAX_PARAMETERS = 32;
    /** Header lines. */
    public static final int MAX_HEADERS = 64;
    /** One header's value. */
    public static final int MAX_HEADER_BYTES = 8 * 1024;
    /** All headers' names and values. */
    public static final int MAX_HEADERS_BYTES = 32 * 1024;

    private RequestLimits() {}

    /** 414 when the raw path or query string is longer than its limit. */
    public static void checkTarget(String rawPath, String rawQuery) {
        if (rawPath.length() > MAX_PATH_BYTES) {
            throw new HttpError(414, "uri_too_long", "the path has " + rawPath.length() + " bytes; at most " + MAX_PATH_BYTES);
        }
        if (rawQuery != null && rawQuery.length() > MAX_QUERY_BYTES) {
            throw new HttpError(414, "uri_too_long", "the query string has " + rawQuery.length() + " bytes; at most " + MAX_QUERY_BYTES);
        }
    }

    /** 431 when there are too many headers, one is too long, or all together are. */
    public static void checkHeaders(HeaderMap headers) {
        int lines = 0;
        long total = 0;
        for (HeaderValues values : headers) {
            int name = values.getHeaderName().length();
            for (String v : values) {
                lines++;
                if (v.length() > MAX_HEADER_BYTES) {
                    throw tooLarge("the header " + Values.quote(values.getHeaderName().toString()) + " has " + v.length() + " bytes; at most " + MAX_HEADER_BYTES);
                }
                total += name + v.length();
            }
        }
        if (lines > MAX_HEADERS) {
            throw tooLarge("the request has " + lines + " header lines; at most " + MAX_HEADERS);
        }
        if (total > MAX_HEADERS_BYTES) {
            throw tooLarge("the headers have " + total + " bytes; at most " + MAX_HEADERS_BYTES);
        }
    }

    /** 413 when a request announces a body: no endpoint takes one. */
    public static void checkNoBody(long contentLength, boolean chunked) {
        if (contentLength > 0 || chunked) {
            throw new HttpError(413, "body_not_allowed", "no endpoint takes a request body");
        }
    }

    private static HttpError tooLarge(String detail) {
        return new HttpError(431, "headers_too_large", detail);
    }
}
