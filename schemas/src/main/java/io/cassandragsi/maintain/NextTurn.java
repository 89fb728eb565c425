package io.cassandragsi.maintain;

/**
 * What the in-node maintainer does with a write after one turn (docs/design.md section 7.8), as a
 * pure function of the turn's outcome (null: the repair or its writes failed), the write's age and
 * how many turns it had: done, another turn after a delay (a second pass taking what the base does
 * not show for gone, or a retry), or handed to the repair service. The repair service's
 * counterpart is {@link NextStep}.
 */
public record NextTurn(Kind kind, long delayMillis, boolean unseenGone) {
    public enum Kind {
        DONE, AGAIN, HAND_OFF
    }

    public static final NextTurn DONE = new NextTurn(Kind.DONE, 0, false);
    public static final NextTurn HAND_OFF = new NextTurn(Kind.HAND_OFF, 0, false);
    /** The default of {@code gsi.maintainer.handoff_after_ms}: a write not visible this long is handed off. */
    public static final long HAND_OFF_AFTER_MILLIS = 5_000;

    /**
     * @param outcome the repair's outcome; null when it failed (an exception, or its writes failed)
     * @param secondPass whether this turn already took what the base does not show for gone
     * @param ageMillis how long ago the write was taken
     * @param attempts the turns it had before this one
     * @param handOffAfterMillis a write not visible this long is handed off (failing: twice as long)
     */
    public static NextTurn after(Outcome outcome, boolean secondPass, long ageMillis, int attempts, long handOffAfterMillis) {
        if (outcome == null) {
            return ageMillis > 2 * handOffAfterMillis ? HAND_OFF : new NextTurn(Kind.AGAIN, Math.min(2000, 50L << Math.min(attempts, 6)), secondPass);
        }
        return switch (outcome) {
            case DONE -> DONE;
            // reconciled with what was visible: once more a second later, taking what is still unseen for gone
            case AGAIN -> secondPass ? DONE : new NextTurn(Kind.AGAIN, 1000, true);
            // not visible all this time: the repair service waits longer, and recomputes if need be
            case RETRY -> ageMillis > handOffAfterMillis ? HAND_OFF : new NextTurn(Kind.AGAIN, Math.min(1000, 20L << Math.min(attempts, 6)), secondPass);
            case HANDOFF, DROPPED -> HAND_OFF;
        };
    }
}
