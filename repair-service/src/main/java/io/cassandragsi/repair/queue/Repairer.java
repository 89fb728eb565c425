package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.RepairCounters;
import io.cassandragsi.maintain.TableKind;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.Levels;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The service's side of the repair core (docs/design.md section 6): finds a marker group's table
 * in the catalog and hands the group to the table's {@link TableKind}, which reads through the
 * driver ({@code store.DriverStores}), decides with the pure core and returns its writes as
 * statements to a sink. The in-node maintainer runs the same kinds on Cassandra's internals.
 */
public final class Repairer {
    private final Catalog catalog;
    private final Levels levels;
    public final RepairCounters counters = new RepairCounters();
    /** Each loaded table's kind (a schema change loads new tables: the old ones are dropped with them). */
    private final Map<Catalog.Indexed, TableKind> kinds = Collections.synchronizedMap(new WeakHashMap<>());

    public Repairer(Catalog catalog, Levels levels) {
        this.catalog = catalog;
        this.levels = levels;
    }

    /** Where a repair's index and rows-table writes go, as statements (each covers one index partition or one rows-table row). */
    @FunctionalInterface
    public interface Sink {
        void write(List<Statement<?>> statements);
    }

    private TableKind kind(Catalog.Indexed table) {
        return kinds.computeIfAbsent(table, t -> TableKind.of(t.plan, t.stores(levels), counters));
    }

    /**
     * Reads together, table by table, what the plain groups among {@code groups} need ({@link
     * TableKind#prefetch}); failures leave the groups to their own reads.
     */
    public Map<MarkerGroup, TableKind.Prefetched> prefetch(List<MarkerGroup> groups) {
        Map<Catalog.Indexed, List<MarkerGroup>> byTable = new IdentityHashMap<>();
        for (MarkerGroup g : groups) {
            Catalog.Indexed table = catalog.table(g.keyspace(), g.table());
            if (table != null) {
                byTable.computeIfAbsent(table, t -> new ArrayList<>()).add(g);
            }
        }
        Map<MarkerGroup, TableKind.Prefetched> out = new IdentityHashMap<>();
        byTable.forEach((table, list) -> out.putAll(kind(table).prefetch(list)));
        return out;
    }

    /**
     * Repairs a group with what {@link #prefetch} read for it (null: it reads alone); its writes
     * go to {@code sink}: the group is repaired only once they are written. {@link Outcome#DROPPED}
     * when no index table of the group's table is known (not yet, or no longer): the caller retries.
     */
    public Outcome repair(MarkerGroup g, TableKind.Prefetched pre, Sink sink) {
        Catalog.Indexed table = catalog.table(g.keyspace(), g.table());
        if (table == null) {
            return Outcome.DROPPED;
        }
        return kind(table).repair(g, pre, (index, rows) -> {
            List<Statement<?>> statements = new ArrayList<>(table.statements(index, levels.write()));
            statements.addAll(table.rowsStatements(rows, levels.write()));
            sink.write(statements);
        });
    }

    /** Counts what a group of markers was for, once its repair is finished. */
    public void counted(MarkerGroup g) {
        counters.counted(g);
    }
}
