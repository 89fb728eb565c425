package io.cassandragsi.maintain;

import java.time.Duration;

/**
 * What the repair service does with a group of markers after a repair (docs/design.md section
 * 7.5), as a pure function of the repair's outcome (null: it failed), the age of the group's oldest
 * marker and the attempts so far: another attempt of {@code group} after a delay (a retry, a
 * second pass, a recompute), or finished, counted as done, given up, a conditional write not
 * applied, or a table no index is known of. The in-node maintainer's counterpart is {@link
 * NextTurn}. Both live beside the repair core so that the test twins run these very rules on a
 * manual clock (RandomHistoryTest), with no copy of their constants.
 */
public record NextStep(Kind kind, MarkerGroup group, long delayMillis) {
    /**
     * A CAS write not visible to a SERIAL read this long after its marker never applied (a Paxos
     * proposal accepted by too few replicas can be completed by a later round on its partition,
     * usually within seconds): counted as {@code cas_not_applied}.
     */
    public static final Duration CAS_SETTLE = Duration.ofMinutes(2);
    /**
     * A conditional write's repairs read at the read level until its marker is this old, then at
     * SERIAL (docs/design.md section 7.5): a write its client's Paxos round committed is visible
     * at the read level, and the round has ended by then (Cassandra's default contention timeout
     * is 1 s, its write timeout 2 s), so the SERIAL reads that decide the rest no longer contend
     * with it.
     */
    public static final Duration CAS_SERIAL_AFTER = Duration.ofSeconds(5);
    /**
     * A versioned row's version not visible this long after its marker went away (deleted before the
     * service read it, or written under a delete with a higher timestamp): its group is recomputed
     * instead. A batch lands in milliseconds; one whose coordinator failed half-way is replayed from
     * the batchlog once it is older than twice the write timeout, at the next 10-s replay round.
     */
    public static final Duration INVISIBLE_FOR = Duration.ofSeconds(20);
    /** A plain write not visible this long after its marker was deleted or lost; check finds the rest. */
    public static final Duration GIVE_UP = Duration.ofMinutes(10);
    /** An unversioned row reconciled while one of its writes may still be in flight is reconciled again this much later. */
    public static final Duration AGAIN_AFTER = Duration.ofSeconds(1);

    public enum Kind {
        AGAIN, DONE, GAVE_UP, CAS_NOT_APPLIED, UNKNOWN_TABLE;

        public boolean finished() {
            return this != AGAIN;
        }
    }

    public static NextStep after(MarkerGroup g, Outcome outcome, int attempts, long ageMillis) {
        g = serialOnceDue(g, ageMillis);
        if (outcome == null) { // nothing was learnt about the version: retried with backoff, never given up
            return again(g, jittered(g, Math.min(30_000L, 200L << Math.min(attempts, 7))));
        }
        return switch (outcome) {
            case DONE, HANDOFF -> finished(g, Kind.DONE);
            // reconciled with what was visible; once more a little later (a conditional write until a SERIAL read
            // must have seen it, anything else once), taking what is still unseen for gone
            case AGAIN -> (g.cas() ? ageMillis <= CAS_SETTLE.toMillis() : !g.unseenGone())
                    ? again(g.withUnseenGone(), Math.min(4_000L, AGAIN_AFTER.toMillis() << Math.min(attempts, 2)))
                    : finished(g, Kind.DONE);
            // no index table of its table is known: not yet (a schema change on its way to this driver), or no longer
            case DROPPED -> ageMillis <= GIVE_UP.toMillis()
                    ? again(g, Math.min(30_000L, 500L << Math.min(attempts, 6)))
                    : finished(g, Kind.UNKNOWN_TABLE);
            case RETRY -> retry(g, attempts, ageMillis);
        };
    }

    /** A version not visible: recomputed once invisible for long (the rows table lists what it wrote), else waited for. */
    private static NextStep retry(MarkerGroup g, int attempts, long ageMillis) {
        if (!g.cas() && !g.recompute() && ageMillis > INVISIBLE_FOR.toMillis()) {
            return again(g.asRecompute(), 0); // its own delete marker may have come first
        }
        if (ageMillis <= (g.cas() ? CAS_SETTLE : GIVE_UP).toMillis()) {
            return again(g, Math.min(30_000L, 100L << Math.min(attempts, 8)));
        }
        return finished(g, g.cas() ? Kind.CAS_NOT_APPLIED : Kind.GAVE_UP);
    }

    /**
     * A conditional write's group reads at SERIAL once {@link #CAS_SERIAL_AFTER} old: by
     * then the client's Paxos round has ended, and a SERIAL read no longer contends with it (it
     * completes a proposal that round left accepted but not committed).
     */
    private static MarkerGroup serialOnceDue(MarkerGroup g, long ageMillis) {
        return g.cas() && !g.serial() && ageMillis >= CAS_SERIAL_AFTER.toMillis() ? g.withSerial() : g;
    }

    /**
     * A failed attempt's delay spread over 0.75 to 1.25 times, by the group's row: groups that
     * failed together (contended SERIAL reads of one partition, a node that went away) do not come
     * back together. Pure: the spread is the row's, not a random draw.
     */
    public static long jittered(MarkerGroup g, long delayMillis) {
        int h = java.util.Objects.hash(g.keyspace(), g.table(), g.pk(), g.ck());
        h ^= h >>> 16; // the finalizer of MurmurHash3: rows whose hashes differ a little land far apart
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        h &= 0xFFFF;
        return delayMillis * (3 * 0x10000 + 2 * h) / (4 * 0x10000);
    }

    private static NextStep again(MarkerGroup g, long delayMillis) {
        return new NextStep(Kind.AGAIN, g, delayMillis);
    }

    private static NextStep finished(MarkerGroup g, Kind kind) {
        return new NextStep(kind, g, 0);
    }
}
