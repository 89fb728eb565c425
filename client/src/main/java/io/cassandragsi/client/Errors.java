package io.cassandragsi.client;

import io.cassandragsi.repair.read.ReadException;
import java.util.concurrent.CompletionException;

/** The reader's failures as this library's exceptions: one place, as the HTTP API has one error mapper. */
final class Errors {
    private Errors() {}

    /** {@code e} as a {@link GsiException} when it is a read's refusal; anything else (a bug, an interrupt) unchanged. */
    static Throwable map(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (!(t instanceof ReadException r)) {
            return t;
        }
        return switch (r.kind()) {
            case BAD_REQUEST -> new GsiBadRequestException(r.error(), r.detail(), r);
            case NOT_FOUND -> new GsiNotFoundException(r.detail(), r);
            case UNAVAILABLE -> new GsiUnavailableException(r.detail(), r.getCause() != null ? r.getCause() : r);
            case NOT_READY -> new GsiNotReadyException(r.error(), r.detail(), r.retryAfterSeconds(), r);
        };
    }

    /** {@link #map} for a caller that waits: unchecked exceptions are thrown as they are, others wrapped. */
    static RuntimeException unchecked(Throwable e) {
        Throwable t = map(e);
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new CompletionException(t);
    }
}
