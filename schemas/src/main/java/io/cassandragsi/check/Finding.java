package io.cassandragsi.check;

/**
 * One way an index entry differs from what its base row says (docs/design.md section 9.2), on a
 * versioned and an unversioned table alike. {@link #APPROXIMATE_DELETED} is legitimate, not drift.
 */
public enum Finding {
    /** The base row yields this entry; the index has no row for it. */
    MISSING,
    /** {@code _tid} is not the version the base row says (none where it should have one). */
    WRONG_TID,
    /** {@code _deleted} is null where a later version stopped matching, set where none did, or not a version that explains it. */
    WRONG_DELETED,
    /** Projected values differ from the base row's. */
    WRONG_PROJECTION,
    /**
     * {@code _deleted} is a later non-matching version than the exact one: what late versions
     * legitimately leave (docs/design.md section 4.2); not drift.
     */
    APPROXIMATE_DELETED,
    /** An index row that claims a match and that its base row does not explain. */
    ORPHAN;

    public boolean drift() {
        return this != APPROXIMATE_DELETED;
    }

    /** A finding that makes the entry present but wrong. */
    public boolean stale() {
        return this == WRONG_TID || this == WRONG_DELETED || this == WRONG_PROJECTION;
    }
}
