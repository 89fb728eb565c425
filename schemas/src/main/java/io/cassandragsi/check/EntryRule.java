package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.RowRecord;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the whole-index jobs ask of a table's kind (docs/design.md section 9), decided once per
 * table ({@link #of}, docs/design.md section 1): how its rows are read, which entries a row should have,
 * how an observed entry is judged against them, and what a rebuild or a fix writes. Every
 * decision is pure; one check and one rebuild ({@code repair.jobs}) ask it and never branch on
 * the kind.
 *
 * <p>The expected entries are derived from the base row alone, by the rules of docs/design.md
 * sections 3 and 4, never by a dry run of the repair core: a bug of the repairer shows as drift.
 * The writes of a fix are the repair core's (a recompute, a reconcile), judged again afterwards.
 */
public sealed interface EntryRule<H extends RowHistory> permits VersionedEntries, UnversionedEntries {

    /** The rule of the table {@code plan} indexes. */
    static EntryRule<?> of(TablePlan plan) {
        return plan.versioned() ? new VersionedEntries(plan) : new UnversionedEntries(plan);
    }

    TablePlan plan();

    /** How this kind's rows are read: the base reads of {@code stores} it needs. */
    RowScans<H> rows(ScanStores stores);

    /** The entries one base row should have in {@code index}, by entry key (none for a row that is gone). */
    Map<List<ByteBuffer>, Expected> expected(IndexPlan index, H row);

    /** How many of the row's versions (or the row) have an entry key too large to store: no entry, by design, not drift. */
    int tooLarge(IndexPlan index, H row);

    /**
     * How one entry differs from what its row says: {@code expected} null means the row does not
     * explain the key ({@link Finding#ORPHAN} when the entry still claims a match), {@code observed}
     * null that the index has no row for it. Empty when they agree.
     */
    Set<Finding> judge(IndexPlan index, List<ByteBuffer> key, Expected expected, Observed observed, H row);

    /** Whether {@link #rebuild} needs the entries of the row's expected keys as they are. */
    boolean rebuildReadsEntries();

    /**
     * What a rebuild writes for one row: the entries its base row explains, at the timestamps of
     * the TS rule (docs/design.md section 4), and their keys recorded in the rows table. Entries the
     * row does not explain are left to {@code check --fix}.
     *
     * @param record the row's rows-table record (null: none)
     * @param entries per index, the entries of the expected keys as read (only when {@link #rebuildReadsEntries})
     */
    Rewrite rebuild(H row, RowRecord record, Collection<IndexPlan> indexes, Map<IndexPlan, Map<List<ByteBuffer>, Observed>> entries);

    /**
     * What a fix writes for the expected {@code keys} of one index that drifted: {@code entries}
     * are those entries as read (absent: no row), {@code nowTs} the TS of now.
     */
    Rewrite fix(IndexPlan index, H row, RowRecord record, Map<List<ByteBuffer>, Observed> entries, Set<List<ByteBuffer>> keys, long nowTs);

    /**
     * The removal of an orphan: a row tombstone above every version of its row and every cell it
     * was seen with ({@link #orphanDeleteTimestamp}).
     */
    TablePlan.IndexWrite removeOrphan(IndexPlan index, List<ByteBuffer> key, Observed observed, H row, long nowTs);

    /**
     * The write timestamp that removes an orphan for good from every writer that follows the TS
     * rule: above the newest TS its base row shows ({@code newestTs}; none explains the entry, so
     * only a later version could) and above every cell it was seen with. Without either, {@code
     * nowTs}.
     */
    static long orphanDeleteTimestamp(long newestTs, long maxWritetime, long nowTs) {
        long ts = newestTs == Long.MIN_VALUE ? nowTs : newestTs + 1;
        if (maxWritetime == Long.MIN_VALUE) {
            return Math.max(ts, nowTs);
        }
        return Math.max(ts, maxWritetime + 1);
    }
}
