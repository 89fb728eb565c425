package io.cassandragsi.trigger;

import java.util.Collection;
import java.util.Set;

/**
 * When the CDC backstop may delete a commit log segment it keeps, and which maintainer epochs it
 * must replay (docs/design.md section 7.11): pure, over the epochs' progress records as read.
 */
final class CdcRetention {
    /** A maintainer silent this long has stopped: the repair service's rule (docs/design.md section 7.9). */
    static final long STOPPED_AFTER_MS = io.cassandragsi.schema.NodeProgressLayout.STOPPED_AFTER_MILLIS;
    /** How far the nodes' clocks may be apart: a segment is kept this much past the progress that covers it. */
    static final long SKEW_MS = io.cassandragsi.schema.CdcLosses.SKEW_MS;

    private CdcRetention() {}

    /** One epoch's progress record: its shard, whether it retired, its heartbeat and done_before as epoch milliseconds. */
    record Epoch(int shard, boolean retired, long heartbeatMillis, long doneBeforeMillis) {
        boolean stopped(long nowMillis) {
            return !retired && nowMillis - heartbeatMillis > STOPPED_AFTER_MS;
        }
    }

    /** An epoch silent this long may have stopped: its writes may have to be replayed, so the safe time waits for it. */
    static final long SUSPECT_AFTER_MS = 2_000;

    /**
     * How far this node's own progress may claim to be while other epochs may need a replay here
     * (docs/design.md section 7.11): at most the done_before of every epoch silent for {@link
     * #SUSPECT_AFTER_MS} that did not retire and that this node has not replayed; {@code
     * Long.MAX_VALUE} when none. The repair service's sweep moves a stopped epoch's share of the safe
     * time on after 10 s of silence; this holds it back until the writes that epoch had not indexed are
     * indexed again here.
     */
    static long holdBefore(Collection<Epoch> epochs, int ownShard, Set<Integer> replayed, long nowMillis) {
        long hold = Long.MAX_VALUE;
        for (Epoch e : epochs) {
            if (e.shard() != ownShard && !e.retired() && nowMillis - e.heartbeatMillis() > SUSPECT_AFTER_MS && !replayed.contains(e.shard())) {
                hold = Math.min(hold, e.doneBeforeMillis());
            }
        }
        return hold;
    }

    /**
     * An epoch this node must replay its kept segments for: stopped without retiring (kill -9, a
     * frozen node; a retiring maintainer hands its writes off itself), not replayed yet, and silent
     * for a commit log sync period more, so that the writes it had taken are readable here.
     */
    static boolean toReplay(Epoch e, Set<Integer> replayed, long nowMillis, long syncPeriodMillis) {
        return e.stopped(nowMillis - syncPeriodMillis - SKEW_MS) && !replayed.contains(e.shard());
    }

    /**
     * A segment whose last mutation was seen at {@code lastChangeMillis} (on this node's clock) may
     * go once every running epoch's progress has passed it (every write an epoch took before its
     * done_before is indexed, and a write was taken before it was applied here) and every stopped
     * one has been replayed here.
     */
    static boolean deletable(long lastChangeMillis, Collection<Epoch> epochs, Set<Integer> replayed, long nowMillis) {
        for (Epoch e : epochs) {
            if (e.retired()) {
                continue;
            }
            if (e.stopped(nowMillis)) {
                if (!replayed.contains(e.shard())) {
                    return false;
                }
            } else if (e.doneBeforeMillis() <= lastChangeMillis + SKEW_MS) {
                return false;
            }
        }
        return true;
    }

    /**
     * The epochs a segment that vanished unasked was kept for (the reverse of {@link #deletable}),
     * with their done_before then and the segment's last change (docs/design.md section 7.11): a
     * running one not past it by the skew, a stopped one not replayed here. Only these can have a
     * write in it that no one indexed; the repair service judges each later ({@link
     * io.cassandragsi.schema.CdcLosses#judge}).
     */
    static java.util.List<io.cassandragsi.schema.CdcLosses.Behind> behind(long lastChangeMillis, Collection<Epoch> epochs, Set<Integer> replayed,
            long nowMillis) {
        java.util.List<io.cassandragsi.schema.CdcLosses.Behind> out = new java.util.ArrayList<>();
        for (Epoch e : epochs) {
            if (e.retired()) {
                continue;
            }
            boolean kept = e.stopped(nowMillis) ? !replayed.contains(e.shard()) : e.doneBeforeMillis() <= lastChangeMillis + SKEW_MS;
            if (kept) {
                out.add(new io.cassandragsi.schema.CdcLosses.Behind(e.shard(), e.doneBeforeMillis(), lastChangeMillis));
            }
        }
        return out;
    }
}
