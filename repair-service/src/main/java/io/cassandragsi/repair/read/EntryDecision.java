package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import java.util.UUID;

/**
 * What a read does with one index entry at query time q (docs/design.md section 8.2, read rules), decided
 * from the entry alone: pure, unit-tested without a node.
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
     * An entry of an index that keeps one entry per base row across versions (or of an unversioned
     * table), with its {@code _tid} and {@code _deleted} (either may be null).
     *
     * <ul>
     *   <li>Versioned: an entry whose {@code _tid} is after q, or whose mark is after q (a read in
     *       the past: the mark may name a later non-matching version than the exact one), is checked
     *       against the base version current at q; so is every entry of a consistent read.
     *   <li>Unversioned: the base keeps no history. An entry without {@code _tid} has expired. An
     *       eventual read as of q answers from {@code _tid}/{@code _deleted} alone: a match when
     *       {@code _tid <= q} (an entry rewritten after q with the same key is not returned for q).
     *       A consistent read (as of now only) checks every candidate against the current row.
     * </ul>
     */
    static EntryDecision ofEntry(boolean versioned, boolean consistent, UUID tid, UUID deleted, UUID q) {
        if (deletedAt(tid, deleted, q)) {
            return SKIP;
        }
        boolean marked = deleted != null && tid != null && Tids.compare(deleted, tid) > 0;
        if (!versioned) {
            if (tid == null) {
                return SKIP;
            }
            if (consistent) {
                return CHECK;
            }
            return Tids.compare(tid, q) <= 0 ? MATCH : SKIP;
        }
        boolean claims = tid != null && Tids.compare(tid, q) <= 0 && !marked;
        if (claims) {
            return consistent ? CHECK : MATCH;
        }
        return CHECK_UNCLAIMED;
    }

    /**
     * An entry of an index that keeps one entry per base row (or of an unversioned table) in a
     * window read: did its row match at some moment from the version current at {@code from} to
     * {@code upTo} (docs/design.md section 8.2)? The entry keeps the latest interval in which its
     * row had its key, {@code [_tid, _deleted)}.
     *
     * <ul>
     *   <li>Deleted at {@code from}: that interval ended before the window, and every earlier one
     *       too: not a match.
     *   <li>Versioned: an entry that is not marked and starts before the window's end claims a
     *       match, as in a read of one moment. One whose {@code _tid} is after the window (an
     *       earlier interval may lie in it), that has none, or that is marked is checked against the
     *       versions of the window: a mark may name a later version than the exact one (section
     *       4.2), and a version that was deleted after its entry was marked leaves the entry's
     *       interval in place. So is every entry of a consistent read.
     *   <li>Unversioned (eventual only): a match when its interval meets the window; an entry whose
     *       {@code _tid} is after the window is not one, since the index keeps no earlier interval.
     * </ul>
     */
    static EntryDecision inWindow(boolean versioned, boolean consistent, UUID tid, UUID deleted, UUID from, UUID upTo) {
        if (deletedAt(tid, deleted, from)) {
            return SKIP;
        }
        boolean marked = deleted != null && tid != null && Tids.compare(deleted, tid) > 0;
        boolean startsInTime = tid != null && Tids.compare(tid, upTo) <= 0;
        if (!versioned) {
            return startsInTime ? MATCH : SKIP;
        }
        if (startsInTime && !marked) {
            return consistent ? CHECK : MATCH;
        }
        return CHECK_UNCLAIMED;
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
