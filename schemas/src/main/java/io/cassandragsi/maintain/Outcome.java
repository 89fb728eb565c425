package io.cassandragsi.maintain;

/** What became of one repair of a marker group. */
public enum Outcome {
    DONE,
    /** Not visible yet: retry later. */
    RETRY,
    /** Nothing to do, and nothing to count (a marker of a table that is no longer indexed). */
    DROPPED,
    /**
     * Done with what is visible, but a write of the row may still be in flight (a later write of
     * the row was seen, a range or partition delete, a conditional write, a recompute): repair the
     * row once more a little later, taking what is still unseen for gone.
     */
    AGAIN,
    /**
     * Not a plain repair, and the storage this repair ran on does not do the others ({@link
     * Stores#recomputes}: the in-node maintainer): hand the group to the repair service.
     */
    HANDOFF
}
