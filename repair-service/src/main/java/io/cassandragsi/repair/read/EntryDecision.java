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
    /** Not a match at q. */
    SKIP,
    /** A match at q, from the index alone (eventual reads). */
    MATCH,
    /** Checked against the base row current at q; {@link #claimed} says whether the index claims a match (read repair if not). */
    CHECK_CURRENT,
    /** As {@link #CHECK_CURRENT}, for an entry that does not claim a match at q (the base decides). */
    CHECK_CURRENT_UNCLAIMED;

    boolean claimed() {
        return this == CHECK_CURRENT;
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
                return CHECK_CURRENT;
            }
            return Tids.compare(tid, q) <= 0 ? MATCH : SKIP;
        }
        boolean claims = tid != null && Tids.compare(tid, q) <= 0 && !marked;
        if (claims) {
            return consistent ? CHECK_CURRENT : MATCH;
        }
        return CHECK_CURRENT_UNCLAIMED;
    }

    /** An entry of an index whose key holds the tid (one entry per version, never stale): {@code tid} from its key. */
    static EntryDecision ofVersionEntry(boolean consistent, UUID tid, UUID q) {
        if (Tids.compare(tid, q) > 0) {
            return SKIP;
        }
        return consistent ? CHECK_CURRENT : MATCH;
    }
}
