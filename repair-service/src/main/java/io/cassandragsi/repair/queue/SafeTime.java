package io.cassandragsi.repair.queue;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import io.cassandragsi.schema.Maintenance;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The safe time (docs/design.md section 7.10), a pure function of what tracks progress: every
 * write acknowledged at LOCAL_QUORUM or stronger before it is fully reflected in the index.
 *
 * <p>A write's marker is in its batch, so once the write is acknowledged its marker is visible to a
 * quorum read; the marker's id was taken (on its coordinator's clock) before that. A source of
 * progress (a queue shard, an in-node maintainer epoch) reports {@code doneBefore}: every marker it
 * holds with an earlier id that was visible when it last looked is finished. A write acknowledged
 * before {@code doneBefore - skew} had its marker visible then, with an id before {@code
 * doneBefore}: it is done. The safe time is the least of the sources, less the skew allowance.
 *
 * <p>Tables in node mode also wait for the in-node maintainers' epochs. A maintainer's hand-offs are
 * markers in service shards, written before its progress record says the write is finished; so a
 * progress record counts only once every service shard has read past the moment it was read (its
 * hand-offs were visible by then): the newest record read at or before the service shards' safe time.
 * A record naming a harmful CDC loss not repaired yet ({@link CdcRepairs}, docs/design.md section
 * 7.11) holds it at the done_before of the epoch whose writes may be missing.
 */
public final class SafeTime {
    /** An unknown bound (a source that has not reported yet). */
    public static final long UNKNOWN = 0;

    private SafeTime() {}

    /**
     * One source of progress: its name for people, {@code doneBefore} (ms on the markers' clock;
     * {@link #UNKNOWN}: not reported yet) and its state ("held here", "held by ...", "no owner", ...).
     */
    public record Source(String name, long doneBefore, String state) {}

    /** The in-node maintainers' progress records as read at {@code readAt} (ms, the service's clock). */
    public record Snapshot(long readAt, List<Epoch> epochs) {}

    /**
     * The safe time of tables in service mode and of tables in node mode (ms; {@link #UNKNOWN} when
     * not known), each with the source that holds it back (null when nothing is known at all).
     */
    public record Reading(long service, Source serviceHeldBy, long node, Source nodeHeldBy, long computedAt) {
        /** The safe time of a table maintained in {@code mode}. */
        public long of(Maintenance mode) {
            return mode == Maintenance.NODE ? node : service;
        }

        /** How far the safe time of a table maintained in {@code mode} is behind when it was computed; null when not known. */
        public Long lagMillis(Maintenance mode) {
            long at = of(mode);
            return at == UNKNOWN ? null : computedAt - at;
        }

        /** What holds the safe time of a table maintained in {@code mode} back. */
        public Source heldBy(Maintenance mode) {
            return mode == Maintenance.NODE ? nodeHeldBy : serviceHeldBy;
        }

        /** Why the safe time of a table maintained in {@code mode} is not known, for an error message. */
        public String unknownBecause(Maintenance mode) {
            Source s = heldBy(mode);
            if (s == null) {
                return "the repair service has not read every queue shard yet";
            }
            return s.name() + " (" + s.state() + ") has not reported its progress yet";
        }
    }

    /**
     * The safe times from the service shards' sources (every shard, in order), the progress records
     * read so far (oldest first), the local sweeps' own progress by epoch shard, and the allowance.
     */
    public static Reading of(List<Source> shards, List<Snapshot> snapshots, Map<Integer, Long> localSweeps, long skewMillis, long nowMillis,
            boolean nodeModeKnown) {
        Source serviceHeld = least(shards);
        long service = serviceHeld == null || serviceHeld.doneBefore() == UNKNOWN ? UNKNOWN : serviceHeld.doneBefore() - skewMillis;
        if (service == UNKNOWN) {
            return new Reading(UNKNOWN, serviceHeld, UNKNOWN, serviceHeld, nowMillis);
        }
        if (!nodeModeKnown) {
            return new Reading(service, serviceHeld, service, serviceHeld, nowMillis);
        }
        Snapshot usable = null;
        for (Snapshot s : snapshots) {
            if (s.readAt() <= service && (usable == null || s.readAt() > usable.readAt())) {
                usable = s;
            }
        }
        if (usable == null) {
            Source waiting = new Source("in-node maintainers' progress", UNKNOWN, "no record read before " + java.time.Instant.ofEpochMilli(service));
            return new Reading(service, serviceHeld, UNKNOWN, waiting, nowMillis);
        }
        List<Source> epochs = new ArrayList<>();
        for (Epoch e : usable.epochs()) {
            Source s = epoch(e, usable.readAt(), localSweeps.get(e.shard()));
            if (s != null) {
                epochs.add(s);
            }
        }
        for (CdcRepairs.Need n : CdcRepairs.needs(usable.epochs(), usable.readAt())) {
            // writes in CDC segments a node lost, of an epoch that stopped before indexing them: missing until the targeted repair
            epochs.add(new Source("CDC segments lost on " + n.node() + " (epoch " + n.shard() + ")", n.holdMillis(),
                    "targeted check --fix of its ranges due"));
        }
        Source epochHeld = least(epochs);
        if (epochHeld != null && (epochHeld.doneBefore() == UNKNOWN || epochHeld.doneBefore() - skewMillis < service)) {
            long node = epochHeld.doneBefore() == UNKNOWN ? UNKNOWN : epochHeld.doneBefore() - skewMillis;
            return new Reading(service, serviceHeld, node, epochHeld, nowMillis);
        }
        return new Reading(service, serviceHeld, service, serviceHeld, nowMillis);
    }

    /**
     * What an epoch's progress record allows, as read at {@code readAt}: nothing once it is swept; a
     * running maintainer's {@code done_before}; a stopped one's sweep, where it got (the local sweep
     * worker's own progress, or the record's {@code swept_to}, else where the maintainer stopped).
     */
    static Source epoch(Epoch e, long readAt, Long localSweep) {
        String name = "maintainer epoch " + e.shard() + " on " + e.node();
        if (NodeSweeps.swept(e)) {
            return null;
        }
        long doneBefore = Tids.instant(e.doneBefore()).toEpochMilli();
        if (!NodeSweeps.stopped(e, readAt)) {
            return new Source(name, doneBefore, "running");
        }
        if (localSweep != null && localSweep != UNKNOWN) {
            return new Source(name, Math.max(doneBefore, localSweep), "stopped; swept here");
        }
        long swept = e.sweptTo() == null ? 0 : Tids.instant(e.sweptTo()).toEpochMilli();
        return new Source(name, Math.max(doneBefore, swept), e.retired() ? "retired; sweep due" : "silent; sweep due");
    }

    /** The source with the least bound, an unknown one first; null when there is none. */
    private static Source least(List<Source> sources) {
        return sources.stream()
                .min(Comparator.comparingLong((Source s) -> s.doneBefore() == UNKNOWN ? Long.MIN_VALUE : s.doneBefore()))
                .orElse(null);
    }
}
