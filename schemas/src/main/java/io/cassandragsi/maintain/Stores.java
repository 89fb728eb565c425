package io.cassandragsi.maintain;

/**
 * The storage one indexed table's maintenance reaches (docs/design.md section 6): one adapter on
 * the driver (the repair service), one on Cassandra's internals (the in-node maintainer), one in
 * memory (tests). {@link TableKind#of} asks only for what the table's kind reads.
 */
public interface Stores {
    /** The base table's versions (a versioned table). */
    VersionReads versions();

    /** The base table's current rows (an unversioned table). */
    CurrentReads current();

    RecordReads records();

    EntryReads entries();

    /** Rows-table writes sent at once. */
    Writes.Now now();

    /** Where changes to the history of ended buckets are recorded (a versioned table with a bucketed index). */
    BucketChanges buckets();

    /**
     * Whether repairs on this storage recompute rows and reconcile whole partitions and conditional
     * writes (the repair service), or only do plain diffs and reconciles and hand the rest off
     * ({@link Outcome#HANDOFF}: the in-node maintainer, whose reads are bounded).
     */
    default boolean recomputes() {
        return true;
    }
}
