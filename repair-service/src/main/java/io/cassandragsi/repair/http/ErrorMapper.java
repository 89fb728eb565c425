package io.cassandragsi.repair.http;

import io.cassandragsi.repair.jobs.InvalidJobException;
import io.cassandragsi.repair.jobs.JobConflictException;
import io.cassandragsi.repair.jobs.UnknownTargetException;
import io.cassandragsi.repair.read.ReadException;

/**
 * The one place exception types become HTTP status codes and the {@code {"error", "detail"}} body
 * (docs/design.md section 1). Reads fail with {@link ReadException} (400, 404 or 503 by its kind,
 * docs/design.md section 8.1), jobs with {@link UnknownTargetException} (404), {@link InvalidJobException} (400) and
 * {@link JobConflictException} (409), HTTP itself with {@link HttpError}; anything else is a 500.
 * {@link HttpApi} logs and sends what this returns. Pure.
 */
public final class ErrorMapper {
    private ErrorMapper() {}

    /**
     * A failure as an answer. {@code known}: a failure some layer raised on purpose; otherwise an
     * unexpected error, answered with a 500. {@code detailForCaller}: whether its detail goes in the body.
     */
    public record Answer(int status, String error, String detail, boolean known, boolean detailForCaller) {
        /** {@code detailForCaller}: a known failure's detail goes to the caller when it is a 4xx. */
        public Answer(int status, String error, String detail, boolean known) {
            this(status, error, detail, known, known && status < 500);
        }
    }

    public static Answer map(Throwable failure) {
        if (failure instanceof HttpError e) {
            return new Answer(e.status(), e.error(), e.detail(), true);
        }
        if (failure instanceof ReadException e) {
            // Cassandra's own words (node addresses, CQL) stay in the log; every other read failure names what is wrong
            return new Answer(status(e.kind()), e.error(), e.detail(), true, e.kind() != ReadException.Kind.UNAVAILABLE);
        }
        if (failure instanceof UnknownTargetException e) {
            return new Answer(404, "not_found", e.getMessage(), true);
        }
        if (failure instanceof InvalidJobException e) {
            return new Answer(400, "bad_job", e.getMessage(), true);
        }
        if (failure instanceof JobConflictException e) {
            return new Answer(409, "job_running", e.getMessage(), true);
        }
        return new Answer(500, "internal_error", String.valueOf(failure), false);
    }

    /** The read contract's code for each way a read fails (docs/design.md section 8.1). */
    static int status(ReadException.Kind kind) {
        return switch (kind) {
            case BAD_REQUEST -> 400;
            case NOT_FOUND -> 404;
            case UNAVAILABLE, NOT_READY -> 503;
        };
    }

    /** When the caller may try again, in seconds ({@code Retry-After} of a 503: a fresh read that waited too long), or null. */
    public static Long retryAfter(Throwable failure) {
        return failure instanceof ReadException e ? e.retryAfterSeconds() : null;
    }

    /** The status {@link #map} gives. */
    public static int status(Throwable failure) {
        return map(failure).status();
    }
}
