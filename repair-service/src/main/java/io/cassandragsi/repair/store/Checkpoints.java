package io.cassandragsi.repair.store;

import java.time.Instant;

/**
 * Per-shard checkpoints: where a worker that takes a shard (after a restart, or from another
 * instance) resumes reading, and how far its work is done (the shard's part of the safe time,
 * docs/design.md section 7.10). {@link CheckpointsTable} in Cassandra; an in-memory twin in the tests.
 */
public interface Checkpoints {
    /** Where shard {@code shard} resumes; null when it never had a checkpoint. */
    Instant checkpoint(int shard);

    /** Records where shard {@code shard} resumes (a plain write: last write wins). */
    void checkpoint(int shard, Instant resumeFrom, String owner);

    /** Records that every marker of shard {@code shard} with an id before {@code doneBefore} that was visible is done. */
    void done(int shard, Instant doneBefore, String owner);

    /** What every shard last recorded with {@link #done}, by shard (shards that never did are left out). */
    java.util.Map<Integer, Instant> done();
}
