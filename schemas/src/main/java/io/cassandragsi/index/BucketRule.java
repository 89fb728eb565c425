package io.cassandragsi.index;

import io.cassandragsi.schema.BucketPeriod;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * When a bucket may be sealed, when a change to a row's history reaches a sealed bucket, and when
 * a seal is still valid (docs/design.md section 9.4). Pure.
 *
 * <p>A seal of bucket L starts {@link #MARGIN} or more after L's end, reads the base and writes L's
 * entries under its own id. A repair whose group may change what was current in an
 * ended bucket (a version whose tid lies before the current bucket, a delete, an expiry) records
 * the change before it is done; a seal is valid only if it started {@link #MARGIN} after every
 * change recorded for its bucket, so it read the base after the change was there.
 */
public final class BucketRule {
    /**
     * How far apart the clocks of the nodes, the service instances and the seal may be, how long
     * after its end a bucket is sealed at the earliest, and how long after a change a seal of its
     * buckets is valid: 1 minute (system property {@code gsi.buckets.margin_ms}; the integration
     * tests shorten it in the service, the nodes keep theirs, which is safe: a node that takes more
     * groups for changes hands more to the service).
     */
    public static final Duration MARGIN = Duration.ofMillis(Long.getLong("gsi.buckets.margin_ms", 60_000));

    private BucketRule() {}

    /** A change to a row's history from version {@code from} on; null {@code from}: from its first version (a delete of the row, or of a range). */
    public record Change(UUID from) {}

    /**
     * The change a repair group of a versioned table makes to the history of ended buckets, or
     * null when it makes none: a group whose tids (from {@code tidMin}; null: the whole partition
     * or row) start before the bucket current at {@code now} plus {@link #MARGIN}, for any of the
     * table's bucketed indexes; or a recompute (a delete or an expiry from {@code tidMin} on).
     */
    public static Change change(TablePlan plan, UUID tidMin, Instant now) {
        if (!plan.hasBuckets()) {
            return null;
        }
        if (tidMin == null) {
            return new Change(null);
        }
        Instant latest = now.plus(MARGIN);
        for (IndexPlan p : plan.indexes()) {
            BucketPeriod period = p.index().bucket();
            if (period != null && Tids.instant(tidMin).isBefore(period.start(period.label(latest)))) {
                return new Change(tidMin);
            }
        }
        return null;
    }

    /**
     * Whether the seal {@code seal} (null: none) of a bucket is valid, given the latest change
     * recorded for it ({@code changedMicros}, microseconds since the epoch; null: none).
     */
    public static boolean valid(UUID seal, Long changedMicros) {
        if (seal == null) {
            return false;
        }
        return changedMicros == null || micros(Tids.instant(seal)) > changedMicros + MARGIN.toNanos() / 1000;
    }

    /** The change a seal {@code seal} records before it writes, so that the seal before it is no longer valid and it is. */
    public static long ownChangeMicros(UUID seal) {
        return micros(Tids.instant(seal)) - MARGIN.toNanos() / 1000 - 1;
    }

    public static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }
}
