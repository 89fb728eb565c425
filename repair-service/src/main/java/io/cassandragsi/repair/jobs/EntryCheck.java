package io.cassandragsi.repair.jobs;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * The pure core of {@code check} (STYLE.md item 1): what the entries of one index should hold
 * given the complete versions of one base row, and how observed entries differ. No driver types.
 *
 * <p>The expected state is the oracle's (docs/design.md section 9.2): for an entry key, {@code _tid} is
 * the latest version whose entry has that key, {@code _deleted} the version right after it when
 * that one has another key (or none), else null; the projections are those of the {@code _tid}
 * version. An index that contains the tid has one entry per version and only existence and
 * projections to compare.
 *
 * <p>One legitimate difference is not drift: an observed {@code _deleted} that is a <em>later</em>
 * version of the same row which does not match the entry either. The TS rule makes such a value
 * win when a diff ran before an older version arrived (see {@code Oracle.judgeDeleted}); the entry
 * still answers every query correctly from that version on, and only a cross-checked read between
 * the exact and the observed version can tell. It is reported as {@link Finding#APPROXIMATE_DELETED}.
 */
public final class EntryCheck {

    /** One way an index entry differs from what the base versions say. */
    public enum Finding {
        /** The base versions yield this entry; the index has no row for it. */
        MISSING,
        /** {@code _tid} is not the latest version that matches. */
        WRONG_TID,
        /** {@code _deleted} is null where a later version stopped matching, set where none did, or not a version that explains it. */
        WRONG_DELETED,
        /** Projected values differ from the {@code _tid} version's. */
        WRONG_PROJECTION,
        /** {@code _deleted} is a later non-matching version than the exact one: what late versions legitimately leave; not drift. */
        APPROXIMATE_DELETED,
        /** An index row that no version of its base row explains. */
        ORPHAN;

        public boolean drift() {
            return this != APPROXIMATE_DELETED;
        }

        /** A finding that makes the entry present but wrong. */
        public boolean stale() {
            return this == WRONG_TID || this == WRONG_DELETED || this == WRONG_PROJECTION;
        }
    }

    /**
     * What an entry should hold. {@code deleted} is null for per-version indexes and for entries
     * the latest version still matches; {@code proj} are the projected values of the {@code tid}
     * version, in the index's projection order (nulls allowed).
     */
    public record Expected(UUID tid, UUID deleted, List<ByteBuffer> proj) {
        public Expected {
            proj = Collections.unmodifiableList(new ArrayList<>(proj));
        }
    }

    /**
     * What an index row holds. {@code tid} and {@code deleted} are null for per-version indexes;
     * {@code maxWritetime} is the greatest write timestamp among its cells, or {@link Long#MIN_VALUE}
     * when none could be read (every regular cell null).
     */
    public record Actual(UUID tid, UUID deleted, List<ByteBuffer> proj, long maxWritetime) {
        /** {@code _deleted} as the read rule sees it: null unless later than {@code _tid} (docs/design.md section 3.1). */
        public UUID effectiveDeleted() {
            return deleted == null || (tid != null && io.cassandragsi.index.Tids.compare(deleted, tid) <= 0) ? null : deleted;
        }

        public Actual {
            proj = Collections.unmodifiableList(new ArrayList<>(proj));
        }
    }

    private final TablePlan plan;
    private final IndexPlan index;

    public EntryCheck(TablePlan plan, IndexPlan index) {
        this.plan = plan;
        this.index = index;
    }

    public IndexPlan index() {
        return index;
    }

    private UUID tid(VersionRow v) {
        return Tids.uuid(v.get(plan.tidAttribute()));
    }

    private List<? extends VersionRow> ascending(List<? extends VersionRow> versions) {
        List<VersionRow> sorted = new ArrayList<>(versions);
        sorted.sort((a, b) -> Tids.compare(tid(a), tid(b)));
        return sorted;
    }

    /** Projected values of a version, in the index's projection order. */
    public List<ByteBuffer> projections(VersionRow v) {
        int[] attrs = index.projAttributes();
        ByteBuffer[] out = new ByteBuffer[attrs.length];
        for (int i = 0; i < attrs.length; i++) {
            out[i] = v.get(attrs[i]);
        }
        return Arrays.asList(out);
    }

    /** The entries one base row should have in this index, from its complete versions (any order). */
    public Map<List<ByteBuffer>, Expected> expected(List<? extends VersionRow> versions) {
        List<? extends VersionRow> asc = ascending(versions);
        Map<List<ByteBuffer>, Expected> out = new LinkedHashMap<>();
        List<ByteBuffer> next = asc.isEmpty() ? null : plan.entryKey(index, asc.get(0));
        for (int i = 0; i < asc.size(); i++) {
            List<ByteBuffer> key = next;
            next = i + 1 < asc.size() ? plan.entryKey(index, asc.get(i + 1)) : null;
            if (key == null) {
                continue;
            }
            VersionRow v = asc.get(i);
            UUID deleted = null;
            if (!index.perVersion() && i + 1 < asc.size() && !key.equals(next)) {
                deleted = tid(asc.get(i + 1));
            }
            out.put(key, new Expected(tid(v), deleted, projections(v))); // ascending: the latest match wins
        }
        return out;
    }

    /**
     * How one entry differs. {@code expected} null means no version explains the key, {@code
     * actual} null that the index has no row for it; {@code versions} are the row's complete
     * versions (to tell an approximate {@code _deleted} from a wrong one). Empty when they agree.
     */
    public Set<Finding> judge(List<ByteBuffer> key, Expected expected, Actual actual, List<? extends VersionRow> versions) {
        Set<Finding> out = EnumSet.noneOf(Finding.class);
        if (expected == null && actual == null) {
            return out;
        }
        if (expected == null) {
            out.add(Finding.ORPHAN);
            return out;
        }
        if (actual == null) {
            out.add(Finding.MISSING);
            return out;
        }
        if (!expected.proj().equals(actual.proj())) {
            out.add(Finding.WRONG_PROJECTION);
        }
        if (index.perVersion()) {
            return out;
        }
        if (!Objects.equals(expected.tid(), actual.tid())) {
            out.add(Finding.WRONG_TID);
        }
        if (!Objects.equals(expected.deleted(), actual.effectiveDeleted())) {
            out.add(laterNonMatching(key, expected.deleted(), actual.effectiveDeleted(), versions)
                    ? Finding.APPROXIMATE_DELETED : Finding.WRONG_DELETED);
        }
        return out;
    }

    /** True when {@code observed} is a version after {@code exact} whose entry does not have {@code key}. */
    private boolean laterNonMatching(List<ByteBuffer> key, UUID exact, UUID observed, List<? extends VersionRow> versions) {
        if (exact == null || observed == null || Tids.compare(observed, exact) <= 0) {
            return false;
        }
        for (VersionRow v : versions) {
            if (tid(v).equals(observed)) {
                return !key.equals(plan.entryKey(index, v));
            }
        }
        return false;
    }

    /**
     * Both sides of one base row judged: every expected key and every observed key. Keys without
     * findings are left out; iteration follows expected keys, then orphans.
     */
    public Map<List<ByteBuffer>, Set<Finding>> compare(Map<List<ByteBuffer>, Expected> expected, Map<List<ByteBuffer>, Actual> actual,
            List<? extends VersionRow> versions) {
        Map<List<ByteBuffer>, Set<Finding>> out = new LinkedHashMap<>();
        for (Map.Entry<List<ByteBuffer>, Expected> e : expected.entrySet()) {
            Set<Finding> f = judge(e.getKey(), e.getValue(), actual.get(e.getKey()), versions);
            if (!f.isEmpty()) {
                out.put(e.getKey(), f);
            }
        }
        Map<List<ByteBuffer>, Actual> rest = new HashMap<>(actual);
        rest.keySet().removeAll(expected.keySet());
        for (List<ByteBuffer> key : rest.keySet()) {
            out.put(key, EnumSet.of(Finding.ORPHAN));
        }
        return out;
    }

    /**
     * The write timestamp that removes an orphan for good from every writer that follows the TS
     * rule: above the TS of every version of its base row (none explains the entry, so only a
     * later version could) and above every cell it was seen with. Without either, {@code nowTs}.
     */
    public static long orphanDeleteTimestamp(long newestVersionTs, long maxWritetime, long nowTs) {
        long ts = newestVersionTs == Long.MIN_VALUE ? nowTs : newestVersionTs + 1;
        if (maxWritetime == Long.MIN_VALUE) {
            return Math.max(ts, nowTs);
        }
        return Math.max(ts, maxWritetime + 1);
    }
}
