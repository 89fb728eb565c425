package io.cassandragsi.repair.store;

import java.time.Instant;

/**
 * Per-shard checkpoints: where a worker that takes a shard (after a restart, or from another
 * instance) resumes reading. {@link CheckpointsTable} in Cassandra; an in-memory twin in the tests.
 */
public interface Checkpoints {
    /** Where shard {@code shard} resumes; null when it never had a checkpoint. */
    Instant checkpoint(int shard);

    /** Records where shard {@code shard} resumes (a plain write: last write wins). */
    void checkpoint(int shard, Instant resumeFrom, String owner);
}
