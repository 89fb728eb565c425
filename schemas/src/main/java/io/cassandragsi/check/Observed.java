package io.cassandragsi.check;

import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.Tids;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * What an index row holds: {@code _tid} and {@code _deleted} (null when unset, and always for a
 * per-version index), the projected values, and the write timestamp of each of these cells
 * ({@link Long#MIN_VALUE} for a null cell).
 */
public record Observed(UUID tid, UUID deleted, List<ByteBuffer> proj, long tidTimestamp, long deletedTimestamp, long[] projTimestamps) {
    public Observed {
        proj = Collections.unmodifiableList(new ArrayList<>(proj));
        projTimestamps = projTimestamps.clone();
    }

    /** An entry whose cells' write timestamps are not known. */
    public static Observed of(UUID tid, UUID deleted, List<ByteBuffer> proj) {
        long[] none = new long[proj.size()];
        Arrays.fill(none, Long.MIN_VALUE);
        return new Observed(tid, deleted, proj, Long.MIN_VALUE, Long.MIN_VALUE, none);
    }

    /** {@code _deleted} as the read rule sees it: null unless later than {@code _tid} (docs/design.md section 3.1). */
    public UUID effectiveDeleted() {
        return deleted == null || (tid != null && Tids.compare(deleted, tid) <= 0) ? null : deleted;
    }

    /**
     * Whether a read takes this entry for a match (docs/design.md section 3.1): an entry of a
     * per-version index by being there; any other by a {@code _tid} without a later {@code _deleted}.
     */
    public boolean claimsMatch(boolean perVersion) {
        return perVersion || (tid != null && effectiveDeleted() == null);
    }

    /** The greatest write timestamp among its cells, or {@link Long#MIN_VALUE} when none could be read. */
    public long maxWritetime() {
        long max = Math.max(tidTimestamp, deletedTimestamp);
        for (long t : projTimestamps) {
            max = Math.max(max, t);
        }
        return max;
    }

    /** The entry as the repair core reads it ({@link RowReconcile.EntryState}). */
    public RowReconcile.EntryState state() {
        return new RowReconcile.EntryState(tid == null ? null : Tids.bytes(tid), deleted == null ? null : Tids.bytes(deleted),
                proj.toArray(new ByteBuffer[0]), projTimestamps.clone(), tidTimestamp, deletedTimestamp);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Observed x && Objects.equals(tid, x.tid) && Objects.equals(deleted, x.deleted)
                && proj.equals(x.proj) && tidTimestamp == x.tidTimestamp && deletedTimestamp == x.deletedTimestamp
                && Arrays.equals(projTimestamps, x.projTimestamps);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tid, deleted, proj, tidTimestamp, deletedTimestamp) * 31 + Arrays.hashCode(projTimestamps);
    }
}
