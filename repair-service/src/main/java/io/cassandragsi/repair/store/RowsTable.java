package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.maintain.PartitionRecords;
import io.cassandragsi.maintain.RowRecord;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import io.cassandragsi.tables.CollectionBytes;
import io.cassandragsi.tables.RowsTableCql;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;

/**
 * The rows table of a base table on the driver: the statements of {@link RowsTableCql} (which
 * owns the table's CQL and decoding, docs/design.md section 3), prepared once, and the writes of
 * maintenance ({@link RowsWrite}) as statements.
 */
public final class RowsTable {
    private final CqlSession session;
    private final RowsTableCql cql;
    private final TableDef def;
    private final PreparedStatement row;
    private final PreparedStatement partition;
    private final PreparedStatement scan;
    /** The records of many rows at once, where a row is a whole partition (null otherwise). */
    private final PreparedStatement rowsIn;
    private final PreparedStatement addKeys;
    private final PreparedStatement removeKeys;
    private final PreparedStatement setWritten;
    /** Adds and removes elements of {@value RowsLayout#VERSION_KEYS} (null: the definition has no per-version index). */
    private final PreparedStatement addVersionKeys;
    private final PreparedStatement removeVersionKeys;

    public RowsTable(CqlSession session, TableDef def) {
        this.session = session;
        this.def = def;
        this.cql = new RowsTableCql(def);
        this.row = session.prepare(cql.row());
        this.partition = session.prepare(cql.partition());
        this.scan = session.prepare(cql.scan());
        this.rowsIn = cql.rowsIn() == null ? null : session.prepare(cql.rowsIn());
        this.addKeys = session.prepare(cql.changeSet(RowsLayout.KEYS, true));
        this.removeKeys = session.prepare(cql.changeSet(RowsLayout.KEYS, false));
        this.setWritten = session.prepare(cql.setWritten());
        boolean versionKeys = RowsLayout.hasVersionKeys(def);
        this.addVersionKeys = versionKeys ? session.prepare(cql.changeSet(RowsLayout.VERSION_KEYS, true)) : null;
        this.removeVersionKeys = versionKeys ? session.prepare(cql.changeSet(RowsLayout.VERSION_KEYS, false)) : null;
    }

    private static BoundStatementBuilder bindKey(PreparedStatement ps, List<ByteBuffer> key, ConsistencyLevel cl) {
        BoundStatementBuilder b = ps.boundStatementBuilder();
        for (int i = 0; i < key.size(); i++) {
            b.setBytesUnsafe(i, key.get(i).duplicate());
        }
        return b.setConsistencyLevel(cl).setPageSize(1000).setIdempotence(true);
    }

    /** The record of one row with its per-version keys, or null when nothing recorded it. */
    public RowRecord record(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        Row r = session.execute(bindKey(row, rowKey, cl).build()).one();
        return r == null ? null : cql.row(r::getBytesUnsafe);
    }

    /** As {@link #record}, asynchronously. */
    public CompletionStage<RowRecord> recordAsync(List<ByteBuffer> rowKey, ConsistencyLevel cl) {
        checkRowKey(rowKey);
        return session.executeAsync(bindKey(row, rowKey, cl).build()).thenApply(rs -> {
            Row r = rs.one();
            return r == null ? null : cql.row(r::getBytesUnsafe);
        });
    }

    /**
     * The records of up to 50 rows whose row key is one partition-key column, with one query
     * (rows nothing recorded are left out), by that key.
     */
    public CompletionStage<Map<ByteBuffer, RowRecord>> recordsAsync(List<ByteBuffer> keys, ConsistencyLevel cl) {
        if (rowsIn == null) {
            throw new IllegalStateException(def.qualifiedName() + ": its rows table cannot read many rows in one query");
        }
        var stmt = rowsIn.boundStatementBuilder().setBytesUnsafe(0, CollectionBytes.of(keys)).setInt(1, keys.size())
                .setPageSize(keys.size() + 1).setConsistencyLevel(cl).setIdempotence(true).build();
        return session.executeAsync(stmt).thenApply(rs -> {
            Map<ByteBuffer, RowRecord> out = new HashMap<>();
            for (Row r : rs.currentPage()) {
                RowRecord record = cql.record(r::getBytesUnsafe);
                if (record != null) {
                    out.put(record.rowKey().get(0), record);
                }
            }
            return out;
        });
    }

    /** The records of every row of a partition, with their per-version keys. */
    public PartitionRecords records(List<ByteBuffer> partitionKey, ConsistencyLevel cl) {
        List<io.cassandragsi.tables.Selected> rows = new ArrayList<>();
        for (Row r : session.execute(bindKey(partition, partitionKey, cl).build())) {
            rows.add(r::getBytesUnsafe);
        }
        return cql.partition(rows);
    }

    /** The records of every row whose partition token lies in (start, end]. */
    public List<RowRecord> scan(long start, long end, int pageSize, ConsistencyLevel cl) {
        List<RowRecord> out = new ArrayList<>();
        for (Row r : session.execute(scan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            RowRecord record = cql.record(r::getBytesUnsafe);
            if (record != null) {
                out.add(record);
            }
        }
        return out;
    }

    /**
     * The statements of one rows-table write (docs/design.md section 3), each at the timestamp the
     * write names; empty when it records nothing.
     */
    public List<Statement<?>> statements(RowsWrite w, ConsistencyLevel cl) {
        if (w instanceof RowsWrite.AddKeys a) {
            return added(addKeys, a.rowKey(), a.keys(), a.at(), cl);
        }
        if (w instanceof RowsWrite.ForgetKeys f) {
            return removals(removeKeys, f.rowKey(), f.keys(), cl);
        }
        if (w instanceof RowsWrite.AddVersionKeys a) {
            return added(addVersionKeys, a.rowKey(), a.keys(), a.at(), cl);
        }
        if (w instanceof RowsWrite.ForgetVersionKeys f) {
            return removals(removeVersionKeys, f.rowKey(), f.keys(), cl);
        }
        RowsWrite.RecordRecompute r = (RowsWrite.RecordRecompute) w;
        checkRowKey(r.rowKey());
        BoundStatementBuilder b = setWritten.boundStatementBuilder().setLong(0, r.ts()).setLong(1, r.ts());
        for (int i = 0; i < r.rowKey().size(); i++) {
            b.setBytesUnsafe(2 + i, r.rowKey().get(i).duplicate());
        }
        return List.of(b.setConsistencyLevel(cl).setIdempotence(true).build());
    }

    /**
     * The statements that record the keys of the per-version entries among {@code writes} (as a
     * rebuild or a fix writes them, at their versions' TS), as the trigger does: one per TS.
     */
    public List<Statement<?>> versionKeysOf(List<ByteBuffer> rowKey, List<io.cassandragsi.index.TablePlan.IndexWrite> writes, ConsistencyLevel cl) {
        List<Statement<?>> out = new ArrayList<>();
        if (addVersionKeys == null) {
            return out;
        }
        Map<Long, Set<ByteBuffer>> byTime = new TreeMap<>();
        for (io.cassandragsi.index.TablePlan.IndexWrite w : writes) {
            if (w instanceof io.cassandragsi.index.TablePlan.Upsert && w.index().perVersion()) {
                byTime.computeIfAbsent(w.timestamp(), t -> new LinkedHashSet<>()).add(RowsLayout.element(w.index().index().name(), w.key()));
            }
        }
        byTime.forEach((t, elements) -> out.add(bindElements(addVersionKeys, t, elements, rowKey).setConsistencyLevel(cl).build()));
        return out;
    }

    private List<Statement<?>> added(PreparedStatement ps, List<ByteBuffer> rowKey, Map<String, ? extends Collection<List<ByteBuffer>>> keys,
            long at, ConsistencyLevel cl) {
        Set<ByteBuffer> elements = new LinkedHashSet<>();
        keys.forEach((index, list) -> list.forEach(key -> elements.add(RowsLayout.element(index, key))));
        if (elements.isEmpty() || ps == null) {
            return List.of();
        }
        return List.of(bindElements(ps, at, elements, rowKey).setConsistencyLevel(cl).build());
    }

    /** Removals of elements, each at the write time it was read with, so that it shadows only the write that recorded it then. */
    private List<Statement<?>> removals(PreparedStatement ps, List<ByteBuffer> rowKey, Map<String, Map<List<ByteBuffer>, Long>> keys,
            ConsistencyLevel cl) {
        if (ps == null) {
            return List.of();
        }
        Map<Long, Set<ByteBuffer>> byTime = new TreeMap<>();
        keys.forEach((index, times) -> times.forEach((key, t) -> byTime.computeIfAbsent(t, x -> new LinkedHashSet<>()).add(RowsLayout.element(index, key))));
        List<Statement<?>> out = new ArrayList<>(byTime.size());
        byTime.forEach((t, elements) -> out.add(bindElements(ps, t, elements, rowKey).setConsistencyLevel(cl).build()));
        return out;
    }

    private BoundStatementBuilder bindElements(PreparedStatement ps, long timestamp, Set<ByteBuffer> elements, List<ByteBuffer> rowKey) {
        checkRowKey(rowKey);
        BoundStatementBuilder b = ps.boundStatementBuilder().setLong(0, timestamp).setSet(1, elements, ByteBuffer.class).setIdempotence(true);
        for (int i = 0; i < rowKey.size(); i++) {
            b.setBytesUnsafe(2 + i, rowKey.get(i).duplicate());
        }
        return b;
    }

    private void checkRowKey(List<ByteBuffer> rowKey) {
        if (rowKey.size() != cql.rowKeySize()) {
            throw new IllegalArgumentException("row key has " + rowKey.size() + " values, " + def.qualifiedName() + " needs " + cql.rowKeySize());
        }
    }
}
