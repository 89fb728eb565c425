package io.cassandragsi.index;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The repair service's work for one row of an unversioned table, as a pure function (docs/design.md
 * section 1): from the row's current cells in the base (values, write timestamps, remaining TTLs),
 * the entry keys the row has had (the rows table) and those entries as the index holds them, the
 * index writes that make the index equal Cassandra's own last-write-wins result for the row.
 *
 * <p>The timestamp rule for unversioned tables (README, beside TS): a base cell written at {@code
 * w} microseconds is version {@code tid(w)}, a timeuuid of 100-ns tick {@code 10·w}, and every
 * index cell derived from it is written at {@code TS = 10·w} with the cell's TTL. An entry's
 * {@code _tid} is the newest of its key cells and expires with the first of them to expire. An
 * entry that stopped matching gets {@code _deleted = m} at {@code TS(m)}, with {@code m} after its
 * {@code _tid}; an entry that matches again while marked gets {@code _tid = m + 1 tick} at that TS.
 * Every value here is a {@link Tids#minAtTicks} timeuuid, so equal ticks are equal values. All
 * writes are idempotent; when several race, a later reconcile of the row converges them.
 */
public final class RowReconcile {
    private RowReconcile() {}

    /**
     * One base cell as read: {@code value} null when there is no live cell (never written, null,
     * deleted or expired); {@code writetime} in microseconds (ignored for primary-key attributes
     * and dead cells); {@code ttl} the remaining seconds, 0 when the cell does not expire.
     */
    public record BaseCell(ByteBuffer value, long writetime, int ttl) {
        public static BaseCell key(ByteBuffer value) {
            return new BaseCell(value, Long.MIN_VALUE, 0);
        }

        public static final BaseCell DEAD = new BaseCell(null, Long.MIN_VALUE, 0);
    }

    /** A row's cells by attribute position, as a {@link VersionRow} (dead cells read as null). */
    public record BaseRow(BaseCell[] cells) implements VersionRow {
        @Override
        public boolean has(int attribute) {
            return true;
        }

        @Override
        public ByteBuffer get(int attribute) {
            return cells[attribute].value();
        }
    }

    /**
     * An entry as the index holds it: {@code tid} null when it has none (expired, or never
     * written), {@code deleted} null when never marked; per projection the value and its write
     * timestamp (TS), or null and {@link Long#MIN_VALUE}; likewise the write timestamps of {@code _tid}
     * and {@code _deleted}; {@code tidTtl} the seconds {@code _tid} has left, 0 when it does not expire.
     */
    public record EntryState(ByteBuffer tid, ByteBuffer deleted, ByteBuffer[] proj, long[] projTimestamp, long tidTimestamp,
            long deletedTimestamp, int tidTtl) {
        /** An entry whose {@code _tid} and {@code _deleted} write timestamps are not known (not needed). */
        public EntryState(ByteBuffer tid, ByteBuffer deleted, ByteBuffer[] proj, long[] projTimestamp) {
            this(tid, deleted, proj, projTimestamp, Long.MIN_VALUE, Long.MIN_VALUE);
        }

        /** An entry whose {@code _tid} does not expire (or whose TTL is not known: not needed). */
        public EntryState(ByteBuffer tid, ByteBuffer deleted, ByteBuffer[] proj, long[] projTimestamp, long tidTimestamp, long deletedTimestamp) {
            this(tid, deleted, proj, projTimestamp, tidTimestamp, deletedTimestamp, 0);
        }

        public boolean matches() {
            return tid != null && (deleted == null || Tids.compare(Tids.uuid(deleted), Tids.uuid(tid)) <= 0);
        }
    }

    /** Ticks (100 ns) of the version of a write timestamp in microseconds. */
    public static long ticksOfMicros(long micros) {
        return Math.multiplyExact(micros, 10L);
    }

    /** {@code tid(w)}: the version of a write at {@code micros}. */
    public static ByteBuffer tidOfMicros(long micros) {
        return Tids.bytes(Tids.minAtTicks(ticksOfMicros(micros)));
    }

    static long ticks(ByteBuffer tid) {
        return WriteTimestamps.ofSerialized(tid);
    }

    /**
     * The index writes for one row and one index. {@code candidates} are the entry keys the row has
     * had ({@code k*}, the key it has now, need not be among them); {@code entries} what the index
     * holds for them (absent: no row); {@code stopHint} the newest write timestamp of the writes
     * being reconciled, in microseconds (or {@link Long#MIN_VALUE}): when the row has no key cell
     * that explains why an entry stopped matching (it was deleted or expired), the mark says it
     * stopped then.
     *
     * <p>{@code shownUpTo} is the newest write of the row that the rows table shows
     * (microseconds), read before the entries. The trigger's write to the rows table joins the base
     * write's own mutation, its entries do not: an entry whose {@code _tid} is after {@code
     * shownUpTo} was written by a write whose base cells may not be visible yet, and a mark would
     * hide it once they are. Such an entry is left to that write's own marker, which the service
     * reconciles only once the rows table shows the write ({@link Long#MAX_VALUE}: no such entry).
     * Likewise a projection written after {@code shownUpTo} is not deleted when the base has no live
     * cell for it: its base cell may be landing.
     */
    public static List<TablePlan.IndexWrite> reconcile(TablePlan plan, IndexPlan index, BaseRow row, Collection<List<ByteBuffer>> candidates,
            Map<List<ByteBuffer>, EntryState> entries, long stopHint, long shownUpTo) {
        return reconcile(plan, index, row, candidates, entries, stopHint, shownUpTo, Long.MAX_VALUE);
    }

    /**
     * As above, and no projection written at or after {@code landingFrom} (microseconds) is deleted:
     * the first pass over a write older than the row's newest ({@code shownUpTo} then says nothing
     * about it) passes its timestamp, since its entry may have landed before its base cells; the
     * pass a second later, when they have landed, deletes what the base still lacks (docs/design.md
     * section 4.3).
     */
    public static List<TablePlan.IndexWrite> reconcile(TablePlan plan, IndexPlan index, BaseRow row, Collection<List<ByteBuffer>> candidates,
            Map<List<ByteBuffer>, EntryState> entries, long stopHint, long shownUpTo, long landingFrom) {
        List<TablePlan.IndexWrite> out = new ArrayList<>();
        List<ByteBuffer> current = plan.entryKey(index, row);
        int[] keyAttrs = index.keyAttributes();
        long newest = Long.MIN_VALUE;
        int ttl = 0;
        for (int a : keyAttrs) {
            if (a < 0 || row.cells()[a].writetime() == Long.MIN_VALUE) {
                continue; // constant or primary-key attribute
            }
            BaseCell c = row.cells()[a];
            newest = Math.max(newest, c.writetime());
            if (c.ttl() > 0) {
                // TTL() gives whole seconds left: one more keeps the entry no shorter-lived than the cell
                ttl = ttl == 0 ? c.ttl() + 1 : Math.min(ttl, c.ttl() + 1);
            }
        }
        if (current != null) {
            EntryState e = entries.get(current);
            long tidTicks = ticksOfMicros(newest);
            if (e != null && e.deleted() != null && ticks(e.deleted()) >= tidTicks) {
                tidTicks = ticks(e.deleted()) + 1; // matches again while marked: a _tid after the mark
            }
            long at = tidAt(e, tidTicks, ttl, candidates.contains(current));
            int[] projAttrs = index.projAttributes();
            TablePlan.ProjCell[] proj = new TablePlan.ProjCell[projAttrs.length];
            for (int i = 0; i < projAttrs.length; i++) {
                BaseCell c = row.cells()[projAttrs[i]];
                if (c.value() != null) {
                    proj[i] = new TablePlan.ProjCell(c.value(), ticksOfMicros(c.writetime()), c.ttl() > 0 ? c.ttl() + 1 : 0);
                } else if (e != null && e.proj()[i] != null && mayDelete(Math.floorDiv(e.projTimestamp()[i], 10L), shownUpTo, landingFrom)) {
                    // the base has no live cell: delete the entry's at exactly its timestamp (a tombstone wins the tie).
                    // Not one written after every write the rows table shows, nor one of a write that may still be landing:
                    // its base cell may be on its way, and that tombstone would shadow the cell for good (docs/design.md section 4.3)
                    proj[i] = new TablePlan.ProjCell(null, e.projTimestamp()[i], 0);
                }
            }
            out.add(new TablePlan.Reconciled(index, current, Tids.bytes(Tids.minAtTicks(tidTicks)), at, ttl, proj));
        }
        for (List<ByteBuffer> key : candidates) {
            if (key.equals(current)) {
                continue;
            }
            EntryState e = entries.get(key);
            if (e == null || !e.matches()) {
                continue;
            }
            if (shownUpTo != Long.MAX_VALUE && Math.floorDiv(ticks(e.tid()), 10L) > shownUpTo) {
                continue; // its write is still landing
            }
            long stop = stopOf(index, row, key, stopHint);
            long mark = Math.max(ticks(e.tid()) + 1, stop == Long.MIN_VALUE ? Long.MIN_VALUE : ticksOfMicros(stop) + 1);
            out.add(new TablePlan.MarkDeleted(index, key, Tids.bytes(Tids.minAtTicks(mark)), mark));
        }
        return out;
    }

    /** Whether a projection written at {@code written} (microseconds) is surely not of a write still landing. */
    private static boolean mayDelete(long written, long shownUpTo, long landingFrom) {
        return written < landingFrom && (shownUpTo == Long.MAX_VALUE || written <= shownUpTo);
    }

    /**
     * The timestamp to write the current key's {@code _tid} at (docs/design.md section 4.3): its own
     * TS, {@code tidTicks}, unless the entry holds a {@code _tid} at that TS or a tick above it
     * whose expiry would win Cassandra's tie against this write's. An entry's key cells can change
     * their TTLs without its newest key cell changing (a key cell written again at an older client
     * timestamp), and of two cells at one timestamp Cassandra keeps the expiring one (of two
     * expiring ones, the later expiry): so a {@code _tid} that must stop expiring, or expire sooner,
     * is written one tick above the one it replaces. A {@code _tid} of a key the rows table records
     * ({@code recorded}) that reads as absent may have expired at its TS and still shadow it: one
     * that must not expire goes a tick above.
     */
    static long tidAt(EntryState e, long tidTicks, int ttl, boolean recorded) {
        if (e == null || e.tid() == null) {
            return ttl == 0 && recorded ? tidTicks + 1 : tidTicks;
        }
        long held = e.tidTimestamp();
        if (held < tidTicks || held > tidTicks + 8) {
            return tidTicks; // another TS: last-write-wins decides by timestamp alone
        }
        if (ttl == 0) {
            return e.tidTtl() > 0 ? held + 1 : tidTicks;
        }
        if (e.tidTtl() == 0) {
            return held; // an expiring cell wins the tie
        }
        return e.tidTtl() > ttl ? held + 1 : held;
    }

    /**
     * How much older than the row's newest write (microseconds) a recorded key must be before the
     * rows table may forget it: a write still in flight (its rows-table element visible, its base
     * cells or entry not yet) is never that old, the window the repair service already assumes
     * (README, Limits).
     */
    public static final long SETTLE_MICROS = 1_000_000L;

    /**
     * How much older than the row's newest write a recorded key whose entry shows nothing after the
     * recording (absent, or marked before it) must be before it is forgotten: the reconcile that
     * recorded it may still be writing that entry (two reconciles of a row at once: the node's and
     * the service's in node mode), and a step never takes that long.
     */
    public static final long UNSEEN_SETTLE_MICROS = 60_000_000L;

    /**
     * The entry keys of one index that the rows table can forget (docs/design.md section 6.7):
     * recorded, not the key the row has now, written at least {@link #SETTLE_MICROS} before the
     * row's newest write ({@code newestWrite}, the rows table's {@code _w}), and whose entry, as read
     * before this reconcile, does not match and was marked after the key was recorded; or, when
     * the entry is absent or its mark older than the recording, recorded {@link
     * #UNSEEN_SETTLE_MICROS} before. Nothing looks for such a key again: a later write that gives
     * the row the key records it again, and the repair service records the key a row has (above
     * every forgotten key's write time) before it writes that entry.
     *
     * @param recorded the recorded keys with their write times (microseconds)
     */
    public static List<List<ByteBuffer>> settled(TablePlan plan, IndexPlan index, BaseRow row, Map<List<ByteBuffer>, Long> recorded,
            Map<List<ByteBuffer>, EntryState> entries, long newestWrite) {
        List<ByteBuffer> current = plan.entryKey(index, row);
        List<List<ByteBuffer>> out = new ArrayList<>();
        if (newestWrite == Long.MIN_VALUE) {
            return out;
        }
        for (Map.Entry<List<ByteBuffer>, Long> k : recorded.entrySet()) {
            EntryState e = entries.get(k.getKey());
            long at = k.getValue();
            if (k.getKey().equals(current) || at >= newestWrite - SETTLE_MICROS || (e != null && e.matches())) {
                continue;
            }
            boolean markedSince = e != null && e.deleted() != null && ticks(e.deleted()) > ticksOfMicros(at);
            if (markedSince || at < newestWrite - UNSEEN_SETTLE_MICROS) {
                out.add(k.getKey());
            }
        }
        return out;
    }

    /**
     * When an entry with {@code key} stopped matching, as far as the row tells: the newest write
     * timestamp of a live key cell whose value differs from the key's; else (the cells are dead)
     * the hint.
     */
    private static long stopOf(IndexPlan index, BaseRow row, List<ByteBuffer> key, long stopHint) {
        int[] keyAttrs = index.keyAttributes();
        long stop = Long.MIN_VALUE;
        boolean dead = false;
        for (int i = 0; i < keyAttrs.length; i++) {
            int a = keyAttrs[i];
            if (a < 0) {
                continue;
            }
            BaseCell c = row.cells()[a];
            if (c.value() == null) {
                dead = true;
            } else if (c.writetime() != Long.MIN_VALUE && !c.value().equals(key.get(i))) {
                stop = Math.max(stop, c.writetime());
            }
        }
        return stop == Long.MIN_VALUE || dead ? Math.max(stop, stopHint) : stop;
    }
}
