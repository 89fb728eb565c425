package io.cassandragsi.tables;

import io.cassandragsi.check.Observed;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.IndexLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * The maintenance reads of one index table (docs/design.md section 6) and the decoding of what they
 * select, for the driver and for Cassandra's internals alike (docs/design.md section 1). Its column order is
 * {@link io.cassandragsi.schema.IndexLayout}'s.
 */
public final class IndexTableCql {
    private final IndexPlan plan;
    private final String table;
    private final String whereKey;
    private final int projSize;
    private final IndexLayout layout;
    /** The jobs' select: the key columns, then each regular column ({@link IndexLayout} order), then their write times. */
    private final String selectObserved;

    public IndexTableCql(TableDef def, IndexPlan plan) {
        this.plan = plan;
        Index index = plan.index();
        this.table = Cql.qualified(def.keyspace(), index.tableName());
        this.whereKey = " WHERE " + index.keyColumns().stream().map(c -> c.cqlName() + " = ?").collect(Collectors.joining(" AND "));
        this.projSize = index.proj().size();
        this.layout = IndexLayout.of(index);
        List<String> selected = new ArrayList<>(layout.keyColumns().stream().map(Column::cqlName).toList());
        List<String> regular = layout.regularColumns().stream().map(Column::cqlName).toList();
        selected.addAll(regular);
        regular.forEach(c -> selected.add("WRITETIME(" + c + ")"));
        this.selectObserved = "SELECT " + String.join(", ", selected) + " FROM " + table;
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
     * _tid}, {@code _deleted}, their write times, then each projection and its write time, then the
     * seconds {@code _tid} has left (null: it does not expire); binds the entry key. Null for a per-version index.
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
        state.add("TTL(" + Cql.quote(Index.TID_COLUMN) + ")");
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
        int ttl = 4 + 2 * projSize;
        return new RowReconcile.EntryState(r.column(0), r.column(1), proj, ts, r.isNull(2) ? Long.MIN_VALUE : r.bigint(2),
                r.isNull(3) ? Long.MIN_VALUE : r.bigint(3), r.isNull(ttl) ? 0 : r.integer(ttl));
    }

    /**
     * An entry with its key and its cells' write times, as the jobs judge it (docs/design.md section
     * 9); binds the entry key. The key columns come first, so that a table without regular columns
     * (an index on the tid without projections) still returns a row.
     */
    public String observed() {
        return selectObserved + whereKey;
    }

    /** Every entry whose index partition token lies in (start, end], as {@link #observed} selects it; binds start, end. */
    public String observedScan() {
        String token = "token(" + plan.index().partitionColumns().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        return selectObserved + " WHERE " + token + " > ? AND " + token + " <= ?";
    }

    /** The entry key of a row selected by {@link #observed} or {@link #observedScan}. */
    public List<ByteBuffer> key(Selected r) {
        ByteBuffer[] key = new ByteBuffer[layout.keySize()];
        for (int i = 0; i < key.length; i++) {
            key[i] = r.column(i);
        }
        return Arrays.asList(key);
    }

    /** The entry of a row selected by {@link #observed} or {@link #observedScan}. */
    public Observed observed(Selected r) {
        int regular = layout.regularColumns().size();
        int at = layout.keySize();
        ByteBuffer[] proj = new ByteBuffer[projSize];
        long[] projTs = new long[projSize];
        for (int i = 0; i < projSize; i++) {
            proj[i] = r.column(at + i);
            projTs[i] = writetime(r, at + regular + i);
        }
        if (plan.perVersion()) {
            return new Observed(null, null, Arrays.asList(proj), Long.MIN_VALUE, Long.MIN_VALUE, projTs);
        }
        int tid = at + projSize;
        return new Observed(uuid(r.column(tid)), uuid(r.column(tid + 1)), Arrays.asList(proj), writetime(r, tid + regular),
                writetime(r, tid + 1 + regular), projTs);
    }

    private static long writetime(Selected r, int i) {
        return r.isNull(i) ? Long.MIN_VALUE : r.bigint(i);
    }

    private static UUID uuid(ByteBuffer b) {
        return b == null ? null : Tids.uuid(b);
    }

    /** {@code DELETE} of an entry row at a chosen timestamp; binds the timestamp, then the entry key. */
    public String remove() {
        return "DELETE FROM " + table + " USING TIMESTAMP ?" + whereKey;
    }

    /** Whether an entry row exists: selects its first key column; binds the entry key. */
    public String exists() {
        return "SELECT " + plan.index().keyColumns().get(0).cqlName() + " FROM " + table + whereKey;
    }
}
