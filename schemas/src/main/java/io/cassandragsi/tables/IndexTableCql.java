package io.cassandragsi.tables;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The maintenance reads of one index table (docs/design.md section 6) and the decoding of what they
 * select, for the driver and for Cassandra's internals alike (STYLE.md item 2). Its column order is
 * {@link io.cassandragsi.schema.IndexLayout}'s.
 */
public final class IndexTableCql {
    private final IndexPlan plan;
    private final String table;
    private final String whereKey;
    private final int projSize;

    public IndexTableCql(TableDef def, IndexPlan plan) {
        this.plan = plan;
        Index index = plan.index();
        this.table = Cql.qualified(def.keyspace(), index.tableName());
        this.whereKey = " WHERE " + index.keyColumns().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.projSize = index.proj().size();
    }

    public IndexPlan plan() {
        return plan;
    }

    /** The qualified table name. */
    public String table() {
        return table;
    }

    /** {@code WHERE} every key column {@code = ?}, in entry-key order. */
    public String whereKey() {
        return whereKey;
    }

    /**
     * An entry's state with its cells' write times (an index that keeps one entry per row): {@code
     * _tid}, {@code _deleted}, their write times, then each projection and its write time; binds the
     * entry key. Null for a per-version index.
     */
    public String entryState() {
        if (plan.perVersion()) {
            return null;
        }
        List<String> state = new ArrayList<>(List.of(Cql.quote(Index.TID_COLUMN), Cql.quote(Index.DELETED_COLUMN),
                "WRITETIME(" + Cql.quote(Index.TID_COLUMN) + ")", "WRITETIME(" + Cql.quote(Index.DELETED_COLUMN) + ")"));
        for (Column c : plan.index().proj()) {
            state.add(c.cqlName());
            state.add("WRITETIME(" + c.cqlName() + ")");
        }
        return "SELECT " + String.join(", ", state) + " FROM " + table + whereKey;
    }

    /** The state of a row selected by {@link #entryState}. */
    public RowReconcile.EntryState entryState(Selected r) {
        ByteBuffer[] proj = new ByteBuffer[projSize];
        long[] ts = new long[projSize];
        for (int i = 0; i < projSize; i++) {
            proj[i] = r.column(4 + 2 * i);
            ts[i] = proj[i] == null ? Long.MIN_VALUE : r.bigint(5 + 2 * i);
        }
        return new RowReconcile.EntryState(r.column(0), r.column(1), proj, ts, r.isNull(2) ? Long.MIN_VALUE : r.bigint(2),
                r.isNull(3) ? Long.MIN_VALUE : r.bigint(3));
    }

    /** Whether an entry row exists: selects its first key column; binds the entry key. */
    public String exists() {
        return "SELECT " + plan.index().keyColumns().get(0).cqlName() + " FROM " + table + whereKey;
    }
}
