package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import java.util.UUID;

/**
 * What a read does with one index entry at query time q (docs/design.md section 8.2, read rules), decided
 * from the entry alone: pure, unit-tested without a node. The rules for an index table's entries
 * differ by kind of table and are the kind's ({@link ReadKind}); those of bucket entries and of
 * per-version indexes are here.
 *
 * <p>An entry is deleted at q iff its {@code _deleted} is set, later than its {@code _tid}, and at
 * or before q (a {@code _deleted} not later than {@code _tid} means the entry matches again, so no
 * write ever has to clear a mark with a tombstone).
 */
enum EntryDecision {
    /** Not a match at q (or in the window). */
    SKIP,
    /** A match at q (or in the window), from the index alone (eventual reads). */
    MATCH,
    /**
     * Checked against the base: the row's version current at q (or the versions of the window);
     * {@link #claimed} says whether the index claims a match (read repair if the base denies it).
     */
    CHECK,
    /** As {@link #CHECK}, for an entry that does not claim a match (the base decides). */
    CHECK_UNCLAIMED;

    boolean claimed() {
        return this == CHECK;
    }

    /** True when {@code deleted} marks the entry deleted at {@code q}. */
    static boolean deletedAt(UUID tid, UUID deleted, UUID q) {
        return deleted != null && (tid == null || Tids.compare(deleted, tid) > 0) && Tids.compare(deleted, q) <= 0;
    }

    /**
     * An entry of a valid seal of a bucket (docs/design.md section 8.2), in the bucket's share of
     * a read's time, from the version current at {@code from} to {@code upTo} (a read of one moment
     * q: from q to q). The seal read from the base its {@code _tid}, the latest version with its key
     * current at a moment of the bucket, {@code _first}, the earliest, and {@code _deleted}, exactly
     * the end of {@code _tid}'s interval (null: none): {@code _tid}'s interval meets the window when
     * it starts at or before {@code upTo} and ends after {@code from}, and {@code _tid} is then the
     * latest version with the key in the window; an entry whose {@code _first} is after the window
     * is not a match; one whose {@code _tid} is after it and {@code _first} in or before it (the row
     * left the key and came back within the bucket) is checked against the window's versions.
     * Eventual reads only.
     */
    static EntryDecision inBucketWindow(UUID tid, UUID first, UUID deleted, UUID from, UUID upTo) {
        if (tid == null || first == null) {
            return SKIP;
        }
        if (Tids.compare(tid, upTo) <= 0) {
            return deleted != null && Tids.compare(deleted, from) <= 0 ? SKIP : MATCH;
        }
        return Tids.compare(first, upTo) > 0 ? SKIP : CHECK_UNCLAIMED;
    }

    /** An entry of an index whose key holds the tid (one entry per version, never stale): {@code tid} from its key. */
    static EntryDecision ofVersionEntry(boolean consistent, UUID tid, UUID q) {
        if (Tids.compare(tid, q) > 0) {
            return SKIP;
        }
        return consistent ? CHECK : MATCH;
    }
}
