package io.cassandragsi.repair.http;

/**
 * A refusal that belongs to HTTP itself, not to the reads or the jobs: sizes (413, 414, 431), the
 * token (401), the origin (403), the host (400, 421), the method (405), an unknown route (404),
 * malformed paths and parameters (400), an answer that came too late (503). Domain failures stay
 * domain types; {@link ErrorMapper} maps both to the status and the JSON error body.
 */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String error;

    public HttpError(int status, String error, String detail) {
        super(detail);
        this.status = status;
        this.error = error;
    }

    public HttpError(int status, String error, String detail, Throwable cause) {
        super(detail, cause);
        this.status = status;
        this.error = error;
    }

    public static HttpError badRequest(String error, String detail) {
        return new HttpError(400, error, detail);
    }

    public static HttpError notFound(String detail) {
        return new HttpError(404, "not_found", detail);
    }

    public int status() {
        return status;
    }

    public String error() {
        return error;
    }

    public String detail() {
        return getMessage();
    }
}
