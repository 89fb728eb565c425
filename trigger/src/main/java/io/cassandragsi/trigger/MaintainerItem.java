package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * One write the in-node maintainer has taken: its marker, and how its turns went so far. In eventual
 * indexing (docs/design.md section 7.11) a write is first an item that sends its mutations (its
 * marker names its whole partition, for a hand-off), then one item per plain row it offered.
 */
final class MaintainerItem implements Delayed {
    final Marker marker;
    final long takenNanos;
    /** True when no queue holds this write's marker (eventual indexing): a retirement hands it off. */
    final boolean unqueued;
    /** Eventual indexing: the write's mutations to send, then {@link #after} to maintain; null for a row to maintain. */
    List<org.apache.cassandra.db.Mutation> mutations;
    List<MaintainerItem> after = List.of();
    int attempts;
    /** The next turn takes versions the base does not show for gone (a reconcile's second pass). */
    boolean unseenGone;
    /** The next turn hands the write to the repair service. */
    boolean handOff;
    private long dueNanos;

    MaintainerItem(Marker marker, long takenNanos) {
        this(marker, takenNanos, false);
    }

    MaintainerItem(Marker marker, long takenNanos, boolean unqueued) {
        this.marker = marker;
        this.takenNanos = takenNanos;
        this.dueNanos = takenNanos;
        this.unqueued = unqueued;
    }

    long ageMillis(long nowNanos) {
        return TimeUnit.NANOSECONDS.toMillis(nowNanos - takenNanos);
    }

    /** Makes the item due again after {@code delayMillis}. */
    MaintainerItem again(long nowNanos, long delayMillis) {
        attempts++;
        dueNanos = nowNanos + TimeUnit.MILLISECONDS.toNanos(delayMillis);
        return this;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(dueNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    @Override
    public int compareTo(Delayed o) {
        return Long.compare(dueNanos, ((MaintainerItem) o).dueNanos);
    }
}
