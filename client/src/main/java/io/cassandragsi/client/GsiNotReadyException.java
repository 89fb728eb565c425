package io.cassandragsi.client;

import java.time.Duration;
import java.util.Optional;

/**
 * A read at the safe time, or a fresh read, that cannot be answered yet (HTTP 503): the repair
 * service does not know the safe time ({@code safe_time_unknown}), or a fresh read waited past its
 * bound ({@code fresh_timeout}). The message names what holds the safe time back.
 */
public final class GsiNotReadyException extends GsiException {
    private static final long serialVersionUID = 1L;

    private final Long retryAfterSeconds;

    GsiNotReadyException(String error, String message, Long retryAfterSeconds, Throwable cause) {
        super(error, message, cause);
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** When to try again ({@code Retry-After} of the HTTP API), when it is known. */
    public Optional<Duration> retryAfter() {
        return retryAfterSeconds == null ? Optional.empty() : Optional.of(Duration.ofSeconds(retryAfterSeconds));
    }
}
