package io.cassandragsi.repair.queue;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.NodeProgressTable.Epoch;
import io.cassandragsi.schema.CdcLosses;
import io.cassandragsi.schema.CdcLosses.Behind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which CDC losses the repair service must repair, and what its acknowledgment records
 * (docs/design.md section 7.11): pure, over the progress records as read. An epoch's record names,
 * per epoch that was behind a segment its node lost, that epoch's done_before then and the
 * segment's last change ({@code cdc_lost_behind}); judged against that epoch's record now ({@link
 * CdcLosses#judge}), an entry is harmless, open or harmful. A harmful entry the record's {@code
 * cdc_repaired} does not cover asks for the targeted repair of the losing node's ranges, and holds
 * the safe time of tables in node mode at that epoch's done_before until it is acknowledged.
 */
public final class CdcRepairs {
    private CdcRepairs() {}

    /**
     * One losing epoch's record that needs the targeted repair: its node, the harmful entries not
     * covered yet, and the safe time's hold (ms; the least done_before of their epochs).
     */
    public record Need(int shard, String node, Map<Integer, Behind> harmful, long holdMillis) {
        /** The acknowledgment once the repair is done: what {@code e} had covered, with these entries. */
        public String acknowledgment(Epoch e) {
            Map<Integer, Behind> covered = new TreeMap<>(CdcLosses.parse(e.cdcRepaired()));
            for (Behind b : harmful.values()) {
                covered = CdcLosses.merge(covered, b);
            }
            return CdcLosses.format(covered);
        }
    }

    /** How the records' losses stand: records whose losses all cleared themselves, wait on a running epoch, need a repair, were repaired. */
    public record Counts(int harmless, int open, int pending, int repaired) {}

    /** Every record in {@code epochs} that needs the targeted repair as of {@code nowMillis} (the service's clock). */
    public static List<Need> needs(List<Epoch> epochs, long nowMillis) {
        Map<Integer, CdcLosses.EpochNow> now = states(epochs, nowMillis);
        List<Need> out = new ArrayList<>();
        for (Epoch e : epochs) {
            Map<Integer, Behind> harmful = new TreeMap<>();
            Map<Integer, Behind> repaired = CdcLosses.parse(e.cdcRepaired());
            long hold = Long.MAX_VALUE;
            for (Behind b : CdcLosses.parse(e.cdcLostBehind()).values()) {
                CdcLosses.EpochNow x = now.get(b.shard());
                if (CdcLosses.judge(b, x) == CdcLosses.Verdict.HARMFUL && !CdcLosses.covered(b, repaired)) {
                    harmful.put(b.shard(), b);
                    // the writes that epoch had not indexed have ids at or after its done_before (its last, once stopped)
                    hold = Math.min(hold, x == null ? b.doneBeforeMillis() : Math.max(b.doneBeforeMillis(), x.doneBeforeMillis()));
                }
            }
            if (!harmful.isEmpty()) {
                out.add(new Need(e.shard(), e.node(), harmful, hold));
            }
        }
        return out;
    }

    /** How one record's losses stand: the worst of its entries. */
    public enum Standing {
        /** No loss recorded. */
        NONE,
        /** Every epoch behind a lost segment passed it or retired. */
        HARMLESS,
        /** An epoch behind a lost segment runs and has not passed it yet. */
        WAITING,
        /** An epoch behind a lost segment stopped first, and no repair covers it yet. */
        PENDING,
        /** Harmful losses, every one covered by the targeted repair's acknowledgment. */
        REPAIRED
    }

    /** How the losses {@code e} records stand, given every record as read at {@code nowMillis}. */
    public static Standing standing(Epoch e, List<Epoch> epochs, long nowMillis) {
        return standing(e, states(epochs, nowMillis));
    }

    private static Standing standing(Epoch e, Map<Integer, CdcLosses.EpochNow> now) {
        Map<Integer, Behind> lost = CdcLosses.parse(e.cdcLostBehind());
        if (lost.isEmpty()) {
            return Standing.NONE;
        }
        Map<Integer, Behind> covered = CdcLosses.parse(e.cdcRepaired());
        Standing worst = Standing.HARMLESS;
        for (Behind b : lost.values()) {
            CdcLosses.Verdict v = CdcLosses.judge(b, now.get(b.shard()));
            Standing s = v == CdcLosses.Verdict.OPEN ? Standing.WAITING
                    : v == CdcLosses.Verdict.HARMLESS ? Standing.HARMLESS : CdcLosses.covered(b, covered) ? Standing.REPAIRED : Standing.PENDING;
            worst = rank(s) > rank(worst) ? s : worst;
        }
        return worst;
    }

    /** Pending above waiting above repaired above harmless. */
    private static int rank(Standing s) {
        return switch (s) {
            case NONE -> 0;
            case HARMLESS -> 1;
            case REPAIRED -> 2;
            case WAITING -> 3;
            case PENDING -> 4;
        };
    }

    /** The records with losses, by how they stand. */
    public static Counts counts(List<Epoch> epochs, long nowMillis) {
        Map<Integer, CdcLosses.EpochNow> now = states(epochs, nowMillis);
        int[] n = new int[Standing.values().length];
        for (Epoch e : epochs) {
            n[standing(e, now).ordinal()]++;
        }
        return new Counts(n[Standing.HARMLESS.ordinal()], n[Standing.WAITING.ordinal()], n[Standing.PENDING.ordinal()], n[Standing.REPAIRED.ordinal()]);
    }

    /** Each epoch's standing as {@link CdcLosses#judge} needs it; stopped by the sweep's rule ({@link NodeSweeps#stopped}). */
    private static Map<Integer, CdcLosses.EpochNow> states(List<Epoch> epochs, long nowMillis) {
        Map<Integer, CdcLosses.EpochNow> out = new HashMap<>();
        for (Epoch e : epochs) {
            out.put(e.shard(), new CdcLosses.EpochNow(e.retired(), NodeSweeps.stopped(e, nowMillis), Tids.instant(e.doneBefore()).toEpochMilli()));
        }
        return out;
    }
}
