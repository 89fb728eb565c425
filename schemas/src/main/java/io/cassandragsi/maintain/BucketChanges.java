package io.cassandragsi.maintain;

import io.cassandragsi.index.BucketRule;
import java.time.Instant;

/**
 * Where a repair records a change to the history of ended buckets before it is done (docs/design.md
 * section 9.4), so that no read takes a seal made before the change. Only the repair service
 * records changes: the in-node maintainer hands such groups to it.
 */
public interface BucketChanges {
    /** The moment that decides which buckets have ended. */
    Instant now();

    /** Records {@code change} for every bucketed index of the table; acknowledged on return. */
    void record(BucketRule.Change change);

    /** Changes recorded by {@code recorder}, judged by the system clock. */
    static BucketChanges of(java.util.function.Consumer<BucketRule.Change> recorder) {
        return new BucketChanges() {
            @Override
            public Instant now() {
                return Instant.now();
            }

            @Override
            public void record(BucketRule.Change change) {
                recorder.accept(change);
            }
        };
    }
}
