package io.cassandragsi.repair.read;

/**
 * A read that cannot be answered, with the read contract's code for it (DESIGN.md section 4): 400
 * for a bad parameter or value, 404 for an unknown keyspace, table or index, 503 when Cassandra is
 * unavailable; no other. {@code error} is a short machine-readable code, {@code detail} names what
 * is wrong. Only reads throw it: the HTTP layer's own refusals and the jobs' failures are other
 * types, and {@code http.ErrorMapper} turns all of them into answers.
 */
public class ReadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String error;

    public ReadException(int status, String error, String detail) {
        this(status, error, detail, null);
    }

    public ReadException(int status, String error, String detail, Throwable cause) {
        super(detail, cause);
        if (status != 400 && status != 404 && status != 503) {
            throw new IllegalArgumentException("a read fails with 400, 404 or 503, not " + status);
        }
        this.status = status;
        this.error = error;
    }

    public static ReadException badRequest(String error, String detail) {
        return new ReadException(400, error, detail);
    }

    public static ReadException notFound(String detail) {
        return new ReadException(404, "not_found", detail);
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
