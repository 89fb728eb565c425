package io.cassandragsi.index;

import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One index compiled against its table: attribute positions for every column of the index table,
 * so that deriving an entry is array work, no lookups by name.
 */
public final class IndexPlan {
    private final Index index;
    private final int[] keyAttributes;
    private final int[] projAttributes;
    private final int partitionSize;
    private final ByteBuffer constantPartition;

    IndexPlan(TableDef table, Index index) {
        this.index = index;
        List<String> names = new ArrayList<>(table.attributes().keySet());
        List<Column> key = index.keyColumns();
        this.keyAttributes = new int[key.size()];
        for (int i = 0; i < key.size(); i++) {
            keyAttributes[i] = index.hasConstantPartition() && i == 0 ? -1 : names.indexOf(key.get(i).name());
        }
        this.projAttributes = index.proj().stream().mapToInt(c -> names.indexOf(c.name())).toArray();
        this.partitionSize = index.partitionColumns().size();
        this.constantPartition = index.hasConstantPartition()
                ? ByteBuffer.wrap(index.name().getBytes(StandardCharsets.UTF_8)) // see constantPartition()
                : null;
    }

    public Index index() {
        return index;
    }

    public String tableName() {
        return index.tableName();
    }

    public boolean perVersion() {
        return index.perVersion();
    }

    /** Attribute position of each index-table key column; -1 for the constant partition column. */
    public int[] keyAttributes() {
        return keyAttributes;
    }

    public int[] projAttributes() {
        return projAttributes;
    }

    /** How many leading key values form the index table's partition key. */
    public int partitionSize() {
        return partitionSize;
    }

    /**
     * The value of the constant partition column (the index name), or null. Never a read-only
     * buffer: the trigger hands it to Cassandra as a partition key (docs/design.md section 7.8).
     */
    public ByteBuffer constantPartition() {
        return constantPartition == null ? null : constantPartition.duplicate();
    }
}
