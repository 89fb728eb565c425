package io.cassandragsi.maintain;

import io.cassandragsi.index.TablePlan;
import java.util.List;
import java.util.Map;

/**
 * The kind of an indexed table, decided once when its definition is loaded (docs/design.md section 1), and
 * what differs between kinds: how a row's history is read and which entries a row should have.
 * Everything above it (the service's queue consumer, the in-node maintainer, the jobs) asks the
 * kind and never branches on it. docs/design.md section 6 has the algorithms.
 */
public sealed interface TableKind permits VersionedTable, UnversionedTable {

    /** The kind of the table {@code plan} indexes, reading and writing through {@code stores}. */
    static TableKind of(TablePlan plan, Stores stores, RepairCounters counters) {
        return plan.versioned()
                ? new VersionedTable(plan, stores.versions(), stores.records(), stores.entries(), stores.now(), stores.recomputes(), counters,
                        plan.hasBuckets() ? stores.buckets() : null)
                : new UnversionedTable(plan, stores.current(), stores.records(), stores.entries(), stores.now(), stores.recomputes(), counters);
    }

    TablePlan plan();

    /**
     * What one batch read found for a marker group's row: its versions' neighbourhood (null when
     * the batch did not show it whole: the repair reads it alone) and its rows-table record (null:
     * nothing recorded).
     */
    record Prefetched(List<Version> versions, RowRecord record) {}

    /**
     * Reads together what the plain groups among {@code groups} need (many rows per request),
     * where the table's layout allows; the others, and any whose read failed, read alone.
     */
    Map<MarkerGroup, Prefetched> prefetch(List<MarkerGroup> groups);

    /**
     * Repairs one group with what {@link #prefetch} read for it ({@code pre}, null: reads alone):
     * reads, decides with the pure core ({@code io.cassandragsi.index}), and hands the writes to
     * {@code sink}; the group is repaired once they are acknowledged.
     */
    Outcome repair(MarkerGroup g, Prefetched pre, Writes.Sink sink);
}
