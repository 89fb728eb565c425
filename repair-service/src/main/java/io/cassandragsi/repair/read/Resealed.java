package io.cassandragsi.repair.read;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A read through buckets met an entry of a seal newer than the valid one it reads by: a seal
 * began after the read looked at the bucket's state, and is overwriting its entries (docs/design.md
 * section 8.2). The entries read are then a mix of two seals, so the read starts again (a first
 * page; the bucket's state is no longer valid, so it reads the index table) or fails with 400
 * {@code bad_next} (a later page).
 */
final class Resealed extends RuntimeException {
    Resealed(String label) {
        super("bucket " + label + " is being sealed again", null, false, false);
    }

    /** How many times a first page that met a seal in progress is read again before it fails with 503. */
    static final int RESEALED_RETRIES = 2;

    /**
     * Runs {@code attempt} (a read's page); when it fails because a bucket it read was being sealed
     * again (a {@link Resealed}), a first page runs again, at most {@value #RESEALED_RETRIES} more
     * times (counted in {@code again}), then fails with 503; a later page fails with 400 {@code
     * bad_next}. Any other outcome is the attempt's.
     */
    static <T> CompletableFuture<T> retryResealed(java.util.function.Supplier<CompletableFuture<T>> attempt, boolean firstPage,
            java.util.concurrent.atomic.LongAdder again) {
        return attempt.get().exceptionallyCompose(e -> retry(e, attempt, firstPage, again, 1));
    }

    private static <T> CompletableFuture<T> retry(Throwable e, java.util.function.Supplier<CompletableFuture<T>> attempt, boolean firstPage,
            java.util.concurrent.atomic.LongAdder again, int tries) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : e;
        if (!(cause instanceof Resealed)) {
            return CompletableFuture.failedFuture(e);
        }
        if (!firstPage) {
            return CompletableFuture.failedFuture(ReadException.badRequest("bad_next", cause.getMessage()
                    + " since the first page of this read (its history changed); read again from the first page"));
        }
        if (tries > RESEALED_RETRIES) {
            return CompletableFuture.failedFuture(ReadException.unavailable(cause.getMessage() + "; read again", cause));
        }
        again.increment();
        try {
            return attempt.get().exceptionallyCompose(f -> retry(f, attempt, firstPage, again, tries + 1));
        } catch (RuntimeException f) {
            return CompletableFuture.failedFuture(f);
        }
    }

    /**
     * Whether an entry of seal {@code entrySeal} counts for a read by {@code validSeal}: an earlier
     * seal's entry (one the valid seal no longer has) does not; a later seal's is {@link Resealed}.
     */
    static boolean counts(String label, UUID validSeal, UUID entrySeal) {
        if (entrySeal == null) {
            return false;
        }
        if (entrySeal.equals(validSeal)) {
            return true;
        }
        if (io.cassandragsi.index.Tids.compare(entrySeal, validSeal) > 0) {
            throw new Resealed(label);
        }
        return false;
    }
}
