package io.cassandragsi.trigger;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.cassandra.db.Mutation;

/**
 * What the in-node maintainer consumes (docs/design.md section 7): a version of a row to maintain,
 * or, in eventual indexing, a whole write to index after it. The trigger is one feed; nothing in
 * the maintainer depends on where writes come from.
 */
interface NodeFeed extends RowFeed {
    /** The queue shard the markers of accepted writes go to (the maintainer's epoch). */
    int shard();

    /**
     * Eventual indexing (docs/design.md section 7.11): opens a write of partition {@code pk} whose
     * entries the maintainer will send after the write, holding the maintainer's progress back until
     * it is finished; null when the maintainer refuses (then the write is indexed atomically).
     */
    Eventual eventual(String keyspace, String table, ByteBuffer pk);

    /**
     * One write in eventual indexing. Its {@link #offer}s always take the plain rows (their diffs run
     * once the write's mutations are sent); exactly one of {@link #commit} and {@link #abandon} ends it.
     */
    interface Eventual extends RowFeed {
        /**
         * Hands the write's mutations (entries, rows-table record, the service's markers) to the
         * maintainer, which sends them and then diffs the rows offered; false when it refuses now
         * (full, retiring): nothing was taken, and the caller puts everything in the write's batch.
         */
        boolean commit(List<Mutation> mutations);

        /** Nothing of the write is taken (the trigger failed): the maintainer's progress is no longer held. */
        void abandon();
    }
}
