package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The judgement both kinds share (docs/design.md section 9.2): existence, projections, {@code
 * _tid}, {@code _deleted} as the read rule sees it, and orphans. What differs is the kind's: which
 * {@code _tid} an entry may carry, and whether a {@code _deleted} that differs is a legitimate one.
 */
abstract class Judged<H extends RowHistory> {
    protected final TablePlan plan;

    Judged(TablePlan plan) {
        this.plan = plan;
    }

    public TablePlan plan() {
        return plan;
    }

    /** Whether the entry's {@code _tid} is the one its row says. */
    abstract boolean tidAsExpected(Expected expected, Observed observed);

    /** Whether {@code observed}, not {@code exact}, is a {@code _deleted} the TS rule may legitimately leave (section 4.2). */
    abstract boolean laterNonMatching(IndexPlan index, List<ByteBuffer> key, UUID exact, UUID observed, H row);

    /** The newest TS the row shows: of its newest version, or of its newest cell; Long.MIN_VALUE when it has none. */
    abstract long newestTimestamp(H row);

    public Set<Finding> judge(IndexPlan index, List<ByteBuffer> key, Expected expected, Observed observed, H row) {
        Set<Finding> out = EnumSet.noneOf(Finding.class);
        if (expected == null) {
            if (observed != null && observed.claimsMatch(index.perVersion())) {
                out.add(Finding.ORPHAN);
            }
            return out;
        }
        if (observed == null) {
            out.add(Finding.MISSING);
            return out;
        }
        if (!expected.proj().equals(observed.proj())) {
            out.add(Finding.WRONG_PROJECTION);
        }
        if (index.perVersion()) {
            return out;
        }
        if (!tidAsExpected(expected, observed)) {
            out.add(Finding.WRONG_TID);
        }
        UUID deleted = observed.effectiveDeleted();
        if (!Objects.equals(expected.deleted(), deleted)) {
            out.add(laterNonMatching(index, key, expected.deleted(), deleted, row) ? Finding.APPROXIMATE_DELETED : Finding.WRONG_DELETED);
        }
        return out;
    }

    public TablePlan.IndexWrite removeOrphan(IndexPlan index, List<ByteBuffer> key, Observed observed, H row, long nowTs) {
        return new TablePlan.Removed(index, key, EntryRule.orphanDeleteTimestamp(newestTimestamp(row), observed.maxWritetime(), nowTs));
    }
}
