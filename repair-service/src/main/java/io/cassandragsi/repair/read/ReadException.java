package io.cassandragsi.repair.read;

/**
 * A read that cannot be answered (docs/design.md section 8.1): a bad parameter or value, an unknown
 * keyspace, table or index, or Cassandra unavailable; no other. {@code error} is a short
 * machine-readable code, {@code detail} names what is wrong. Only reads throw it: the HTTP
 * layer's own refusals and the jobs' failures are other types, and {@code http.ErrorMapper} is
 * the one place any of them becomes a status code.
 */
public class ReadException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why a read cannot be answered. */
    public enum Kind {
        /** A parameter or a value the request got wrong. */
        BAD_REQUEST,
        /** No such keyspace, indexed table or index. */
        NOT_FOUND,
        /** Cassandra did not answer. */
        UNAVAILABLE
    }

    private final Kind kind;
    private final String error;

    public ReadException(Kind kind, String error, String detail, Throwable cause) {
        super(detail, cause);
        this.kind = java.util.Objects.requireNonNull(kind, "kind");
        this.error = error;
    }

    public static ReadException badRequest(String error, String detail) {
        return new ReadException(Kind.BAD_REQUEST, error, detail, null);
    }

    public static ReadException notFound(String detail) {
        return new ReadException(Kind.NOT_FOUND, "not_found", detail, null);
    }

    /** The error code of a read at {@code as_of=safe} while the safe time is not known (503, its detail shown). */
    public static final String SAFE_TIME_UNKNOWN = "safe_time_unknown";

    /** A read at {@code as_of=safe} while the safe time is not known: 503, with what it waits for. */
    public static ReadException safeTimeUnknown(String detail) {
        return new ReadException(Kind.UNAVAILABLE, SAFE_TIME_UNKNOWN, detail, null);
    }

    public static ReadException unavailable(String detail, Throwable cause) {
        return new ReadException(Kind.UNAVAILABLE, "cassandra_unavailable", detail, cause);
    }

    public Kind kind() {
        return kind;
    }

    public String error() {
        return error;
    }

    public String detail() {
        return getMessage();
    }
}
