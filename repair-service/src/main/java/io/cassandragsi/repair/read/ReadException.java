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
        UNAVAILABLE,
        /** The service cannot answer yet, for a reason of its own that the detail names (the safe time not known). */
        NOT_READY
    }

    private final Kind kind;
    private final String error;
    /** For a 503: when to try again, in seconds ({@code Retry-After}); null: not said. */
    private final Long retryAfterSeconds;
    /** For {@link Kind#NOT_READY}: whether waiting can change the answer (false: the service's settings rule it out). */
    private final boolean passes;

    public ReadException(Kind kind, String error, String detail, Throwable cause) {
        this(kind, error, detail, cause, null, true);
    }

    private ReadException(Kind kind, String error, String detail, Throwable cause, Long retryAfterSeconds, boolean passes) {
        super(detail, cause);
        this.kind = java.util.Objects.requireNonNull(kind, "kind");
        this.error = error;
        this.retryAfterSeconds = retryAfterSeconds;
        this.passes = passes;
    }

    public static ReadException badRequest(String error, String detail) {
        return new ReadException(Kind.BAD_REQUEST, error, detail, null);
    }

    public static ReadException notFound(String detail) {
        return new ReadException(Kind.NOT_FOUND, "not_found", detail, null);
    }

    /** A read at {@code as_of=safe} while the safe time is not known: 503, with what it waits for. */
    public static ReadException safeTimeUnknown(String detail) {
        return new ReadException(Kind.NOT_READY, "safe_time_unknown", detail, null);
    }

    /**
     * 503 {@code safe_time_unknown} that no wait ends: the service's settings keep it from ever
     * knowing the safe time (its queue reads weaker than a quorum). A fresh read fails at once.
     */
    public static ReadException safeTimeNeverKnown(String detail) {
        return new ReadException(Kind.NOT_READY, "safe_time_unknown", detail, null, null, false);
    }

    /** A fresh read whose wait for the safe time passed its bound: 503, with what holds the safe time back and when to try again. */
    public static ReadException freshTimeout(String detail, long retryAfterSeconds) {
        return new ReadException(Kind.NOT_READY, "fresh_timeout", detail, null, retryAfterSeconds, true);
    }

    public static ReadException unavailable(String detail, Throwable cause) {
        return new ReadException(Kind.UNAVAILABLE, "cassandra_unavailable", detail, cause);
    }

    /** When to try again in seconds ({@code Retry-After}), or null. */
    public Long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Whether waiting can change the answer: false for a safe time the service's settings keep unknown. */
    public boolean passes() {
        return passes;
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
