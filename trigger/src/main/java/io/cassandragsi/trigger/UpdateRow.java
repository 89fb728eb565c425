package io.cassandragsi.trigger;

import io.cassandragsi.index.VersionRow;
import java.nio.ByteBuffer;
import org.apache.cassandra.db.Clustering;
import org.apache.cassandra.db.LivenessInfo;
import org.apache.cassandra.db.rows.Cell;
import org.apache.cassandra.db.rows.Row;
import org.apache.cassandra.schema.ColumnMetadata;

/** The values of one row of a base update, as the pure plan sees them ({@link VersionRow}), with the cells they came from. */
final class UpdateRow implements VersionRow {
    private final CompiledTable table;
    final ByteBuffer[] values;
    final boolean[] present;
    /** The cell of each regular attribute the update carries (null for key attributes and absent cells). */
    final Cell<?>[] cells;
    boolean expiring;
    /** The newest timestamp in the row: cells, row marker, row deletion (the version of an unversioned write). */
    long newest = Long.MIN_VALUE;
    final LivenessInfo liveness;

    UpdateRow(CompiledTable table, ByteBuffer[] partitionValues, Row row) {
        this.table = table;
        int n = table.sources.length;
        this.values = new ByteBuffer[n];
        this.present = new boolean[n];
        this.cells = new Cell<?>[n];
        Clustering<?> clustering = row.clustering();
        for (int i = 0; i < n; i++) {
            switch (table.sources[i]) {
                case PARTITION -> {
                    values[i] = partitionValues[table.positions[i]];
                    present[i] = true;
                }
                case CLUSTERING -> {
                    values[i] = clustering.bufferAt(table.positions[i]);
                    present[i] = true;
                }
                default -> {
                    Cell<?> cell = row.getCell(table.regular[i]);
                    if (cell != null) {
                        present[i] = true;
                        cells[i] = cell;
                        values[i] = cell.isTombstone() ? null : cell.buffer();
                        expiring |= cell.isExpiring();
                    }
                }
            }
        }
        expiring |= row.primaryKeyLivenessInfo().isExpiring();
        liveness = row.primaryKeyLivenessInfo();
        for (Cell<?> c : row.cells()) {
            newest = Math.max(newest, c.timestamp());
        }
        if (!row.primaryKeyLivenessInfo().isEmpty()) {
            newest = Math.max(newest, row.primaryKeyLivenessInfo().timestamp());
        }
        if (!row.deletion().isLive()) {
            newest = Math.max(newest, row.deletion().time().markedForDeleteAt());
        }
    }

    /** True when the update carries a cell of some attribute an index keys on or projects. */
    boolean touchesIndexes() {
        for (int i = 0; i < cells.length; i++) {
            if (cells[i] != null && table.indexed[i]) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean has(int attribute) {
        return present[attribute];
    }

    @Override
    public ByteBuffer get(int attribute) {
        return values[attribute];
    }

    ByteBuffer tid() {
        return values[table.plan.tidAttribute()];
    }

    /** The moments (seconds) at which parts of this version expire: the earliest and the latest, or none. */
    long[] expiries() {
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        for (Cell<?> c : cells) {
            if (c != null && c.isExpiring()) {
                first = Math.min(first, c.localDeletionTime());
                last = Math.max(last, c.localDeletionTime());
            }
        }
        if (liveness.isExpiring()) {
            first = Math.min(first, liveness.localExpirationTime());
            last = Math.max(last, liveness.localExpirationTime());
        }
        return first == Long.MAX_VALUE ? new long[0] : first == last ? new long[] {first} : new long[] {first, last};
    }

    /** The row's primary key for a log line: {@code name=value} per key attribute, shortened. */
    String describe() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < table.sources.length; i++) {
            if (table.sources[i] == CompiledTable.Source.PARTITION || table.sources[i] == CompiledTable.Source.CLUSTERING) {
                ColumnMetadata c = table.sources[i] == CompiledTable.Source.PARTITION ? table.base.partitionKeyColumns().get(table.positions[i])
                        : table.base.clusteringColumns().get(table.positions[i]);
                out.append(out.length() == 0 ? "" : ", ").append(c.name).append('=').append(values[i] == null ? "?" : c.type.getString(values[i]));
            }
        }
        return CompiledTable.describe(out.toString());
    }
}
