package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.check.BucketEntries;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.BucketLayout;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.IndexLayout;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The bucket table of one index, {@code idx_<table>_<index>_<period>} (docs/design.md section 3.7;
 * docs/design.md section 1): the seal's writes, every cell of seal g at the TS of g, so a later seal
 * overwrites an earlier one's entries whatever the order (section 4.7); the select that reads page
 * through ({@link MergedSelect}, one bucket or several), which returns the index table's columns
 * in their order, then {@code _first}, {@code _seal} and the label; and the check's scan of every
 * entry (section 9.2).
 */
public final class BucketTable {
    private final CqlSession session;
    private final IndexPlan plan;
    private final BucketLayout layout;
    private final String table;
    private final PreparedStatement upsert;
    /** The check's read of every entry of a token range of the bucket partitions (docs/design.md section 9.2). */
    private final PreparedStatement scan;
    private final List<String> columns;
    private final MergedSelect merged;

    public BucketTable(CqlSession session, TableDef def, IndexPlan plan) {
        this.session = session;
        this.plan = plan;
        this.layout = BucketLayout.of(plan.index());
        this.table = Cql.qualified(def.keyspace(), layout.tableName());
        this.columns = layout.columns().stream().map(Column::cqlName).toList();
        this.upsert = session.prepare("INSERT INTO " + table + " (" + Cql.quote(BucketLayout.LABEL_COLUMN) + ", " + String.join(", ", columns)
                + ") VALUES (?, " + columns.stream().map(c -> "?").collect(Collectors.joining(", ")) + ") USING TIMESTAMP ?");
        String token = "token(" + layout.partitionColumns().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")";
        this.scan = session.prepare("SELECT " + Cql.quote(BucketLayout.LABEL_COLUMN) + ", " + String.join(", ", columns) + " FROM " + table
                + " WHERE " + token + " > ? AND " + token + " <= ?");
        this.merged = new MergedSelect(session, plan, table, columns);
    }

    /** The select of reads through buckets, one or several (docs/design.md section 8.2). */
    public MergedSelect merged() {
        return merged;
    }

    public BucketLayout layout() {
        return layout;
    }

    /** Seal {@code g}'s writes of one row's entries, by label then entry key: one statement per bucket partition. */
    public List<Statement<?>> statements(Map<String, Map<List<ByteBuffer>, BucketEntries.Entry>> entries, UUID g, ConsistencyLevel cl) {
        long ts = WriteTimestamps.of(g);
        ByteBuffer seal = Tids.bytes(g);
        int ps = plan.partitionSize();
        Map<List<ByteBuffer>, List<BatchableStatement<?>>> byPartition = new LinkedHashMap<>();
        entries.forEach((label, byKey) -> byKey.forEach((key, e) -> {
            ByteBuffer l = StandardCharsets.UTF_8.encode(label);
            BoundStatementBuilder b = upsert.boundStatementBuilder().setBytesUnsafe(0, l);
            int i = 1;
            for (ByteBuffer k : key) {
                b.setBytesUnsafe(i++, k.duplicate());
            }
            for (ByteBuffer p : e.proj()) {
                b.setBytesUnsafe(i++, p == null ? null : p.duplicate());
            }
            b.setBytesUnsafe(i++, Tids.bytes(e.tid()));
            b.setBytesUnsafe(i++, e.deleted() == null ? null : Tids.bytes(e.deleted()));
            b.setBytesUnsafe(i++, Tids.bytes(e.first()));
            b.setBytesUnsafe(i++, seal.duplicate());
            b.setLong(i, ts);
            List<ByteBuffer> partition = new ArrayList<>();
            partition.add(l);
            partition.addAll(key.subList(0, ps));
            byPartition.computeIfAbsent(partition, x -> new ArrayList<>()).add(b.setConsistencyLevel(cl).setIdempotence(true).build());
        }));
        return IndexTable.perPartition(byPartition.values(), cl);
    }

    /**
     * Streams every entry whose bucket partition token lies in (start, end], of every label and
     * every seal, as the seal wrote it; false when {@code stop} said so first.
     */
    public boolean scan(long start, long end, int pageSize, ConsistencyLevel cl, BucketStores.EntryConsumer consumer, BooleanSupplier stop)
            throws InterruptedException {
        IndexLayout index = IndexLayout.of(plan.index());
        int keySize = index.keySize();
        int projSize = index.projSize();
        for (Row r : session.execute(scan.bind(start, end).setConsistencyLevel(cl).setPageSize(pageSize).setIdempotent(true))) {
            if (stop.getAsBoolean()) {
                return false;
            }
            List<ByteBuffer> key = new ArrayList<>(keySize);
            for (int i = 0; i < keySize; i++) {
                key.add(r.getBytesUnsafe(1 + i));
            }
            List<ByteBuffer> proj = new ArrayList<>(projSize);
            for (int i = 0; i < projSize; i++) {
                proj.add(r.getBytesUnsafe(1 + index.projColumn(i)));
            }
            BucketEntries.Entry e = new BucketEntries.Entry(r.getUuid(1 + index.tidColumn()), r.getUuid(1 + layout.firstColumn()),
                    r.getUuid(1 + index.deletedColumn()), java.util.Collections.unmodifiableList(proj));
            consumer.accept(r.getString(0), key, e, r.getUuid(1 + layout.sealColumn()));
        }
        return true;
    }
}
