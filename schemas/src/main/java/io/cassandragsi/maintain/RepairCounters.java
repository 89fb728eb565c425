package io.cassandragsi.maintain;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.QueueLayout;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What maintenance did, counted the same way on the node and in the service (surfaced in the
 * node's JMX and in the service's {@code /admin/status} and {@code /metrics}).
 */
public final class RepairCounters {
    /** Repairs done: sibling diffs, recomputes and reconciles. */
    public final LongAdder diffs = new LongAdder();
    public final LongAdder markedDeleted = new LongAdder();
    public final LongAdder upserts = new LongAdder();
    /** Markers of tables no definition indexes now (or not yet). */
    public final LongAdder unknownTables = new LongAdder();
    /** Markers the trigger flagged, by flag: partial updates, conditional writes, deletes. */
    public final LongAdder partialRows = new LongAdder();
    public final LongAdder casWrites = new LongAdder();
    public final LongAdder deletes = new LongAdder();
    /** Diff markers recomputed instead: a version rewritten (with another key, or whole at once), or written below a recompute's cells. */
    public final LongAdder rewrites = new LongAdder();
    /** Rows the trigger left (partly) unindexed for Cassandra's size limits. */
    public final LongAdder tooLarge = new LongAdder();
    /** Entry keys the rows tables of unversioned tables forgot ({@code RowReconcile.settled}). */
    public final LongAdder forgotten = new LongAdder();
    /** Diff markers whose rows were read in batches. */
    public final LongAdder prefetched = new LongAdder();
    /** Per index ("keyspace.table/index"): entries marked deleted [0] and upserted [1]. */
    public final Map<String, LongAdder[]> perIndex = new ConcurrentHashMap<>();

    /** Counts what a group of markers was for, once its repair is finished. */
    public void counted(MarkerGroup g) {
        int f = g.flags();
        if ((f & QueueLayout.FLAG_PARTIAL) != 0) {
            partialRows.increment();
        }
        if ((f & QueueLayout.FLAG_CAS) != 0) {
            casWrites.increment();
        }
        if ((f & QueueLayout.FLAG_DELETE) != 0) {
            deletes.increment();
        }
        if ((f & QueueLayout.FLAG_TOO_LARGE) != 0) {
            tooLarge.increment();
        }
    }

    /** Counts index writes of one table ("keyspace.table"). */
    public void written(String table, List<TablePlan.IndexWrite> writes) {
        for (TablePlan.IndexWrite w : writes) {
            LongAdder[] counters = perIndex.computeIfAbsent(table + "/" + w.index().index().name(),
                    k -> new LongAdder[] {new LongAdder(), new LongAdder()});
            if (w instanceof TablePlan.MarkDeleted || w instanceof TablePlan.Removed) {
                markedDeleted.increment();
                counters[0].increment();
            } else {
                upserts.increment();
                counters[1].increment();
            }
        }
    }
}
