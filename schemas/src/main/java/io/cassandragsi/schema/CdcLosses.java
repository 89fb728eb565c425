package io.cassandragsi.schema;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a node records of the CDC segments Cassandra dropped before its backstop could, and how
 * the repair service judges it (docs/design.md section 7.11). Pure; shared by the trigger, which
 * writes {@link NodeProgressLayout#C_CDC_LOST_BEHIND}, and the repair service, which reads it and
 * writes {@link NodeProgressLayout#C_CDC_REPAIRED} in the same form.
 *
 * <p>A lost segment loses index entries only if an epoch that had not indexed every write of it
 * (its {@code done_before} not past the segment's last change by the skew) stops without retiring:
 * its writes were then to be replayed from the segment, which is gone. So the record keeps, per
 * epoch that was behind a lost segment, its {@code done_before} then (the least over its lost
 * segments) and the segment's last change (the greatest): the epoch passing that last change, or
 * retiring (which hands every unfinished write to the service), makes the loss harmless; the
 * epoch stopping first makes it harmful, and the service repairs it.
 */
public final class CdcLosses {
    /** How far the nodes' clocks may be apart (the backstop's allowance, docs/design.md section 7.11). */
    public static final long SKEW_MS = 1_000;

    private CdcLosses() {}

    /** One epoch behind one or more lost segments: its done_before then (least) and their last change (greatest), epoch ms. */
    public record Behind(int shard, long doneBeforeMillis, long lastChangeMillis) {
        /** This entry together with {@code other} of the same epoch. */
        Behind merge(Behind other) {
            return new Behind(shard, Math.min(doneBeforeMillis, other.doneBeforeMillis), Math.max(lastChangeMillis, other.lastChangeMillis));
        }
    }

    /** How an epoch behind a lost segment stands now. */
    public enum Verdict {
        /** It passed every lost segment it was behind, or retired: nothing it took is missing. */
        HARMLESS,
        /** Running and not past yet: it may still pass (and it holds the safe time back itself). */
        OPEN,
        /** It stopped without retiring before passing (or its record is gone): its writes in the lost segments need a repair. */
        HARMFUL
    }

    /** What the service knows of an epoch now: null for one whose record is gone. */
    public record EpochNow(boolean retired, boolean stopped, long doneBeforeMillis) {}

    /** The verdict on {@code b} given its epoch as it stands now ({@code now} null: no record). */
    public static Verdict judge(Behind b, EpochNow now) {
        if (now == null) {
            return Verdict.HARMFUL;
        }
        if (now.retired() || now.doneBeforeMillis() > b.lastChangeMillis() + SKEW_MS) {
            return Verdict.HARMLESS;
        }
        return now.stopped() ? Verdict.HARMFUL : Verdict.OPEN;
    }

    /** {@code entries} with {@code added} merged in (per epoch: least done_before, greatest last change). */
    public static Map<Integer, Behind> merge(Map<Integer, Behind> entries, Behind added) {
        Map<Integer, Behind> out = new TreeMap<>(entries);
        out.merge(added.shard(), added, Behind::merge);
        return out;
    }

    /** Whether {@code repaired} (an acknowledgment) covers {@code b}: a repair of the same epoch, as late a segment or later. */
    public static boolean covered(Behind b, Map<Integer, Behind> repaired) {
        Behind r = repaired.get(b.shard());
        return r != null && r.lastChangeMillis() >= b.lastChangeMillis();
    }

    /** The text form: {@code shard:done_before:last_change} per epoch, {@code ;} between, in shard order (empty: none). */
    public static String format(Map<Integer, Behind> entries) {
        StringBuilder sb = new StringBuilder();
        for (Behind b : new TreeMap<>(entries).values()) {
            if (sb.length() > 0) {
                sb.append(';');
            }
            sb.append(b.shard()).append(':').append(b.doneBeforeMillis()).append(':').append(b.lastChangeMillis());
        }
        return sb.toString();
    }

    /** The entries of a text form (null or empty: none); an entry that does not parse fails, naming it. */
    public static Map<Integer, Behind> parse(String text) {
        if (text == null || text.isBlank()) {
            return Collections.emptyMap();
        }
        Map<Integer, Behind> out = new TreeMap<>();
        for (String part : text.split(";")) {
            String[] f = part.trim().split(":");
            if (f.length != 3) {
                throw new IllegalArgumentException("not a CDC loss entry (shard:done_before:last_change): " + part);
            }
            try {
                Behind b = new Behind(Integer.parseInt(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]));
                out.merge(b.shard(), b, Behind::merge);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a CDC loss entry (shard:done_before:last_change): " + part, e);
            }
        }
        return out;
    }
}
