package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.List;

/**
 * The column layout of a bucket table {@code idx_<table>_<index>_<period>} (docs/design.md section
 * 3.7), in one place for its DDL ({@link CqlGenerator#createBucketTable}), the seal's writes and the
 * reads' selects. Its partition key is
 * {@value #LABEL_COLUMN} (the bucket's label) then the index's partition key; its clustering
 * columns are the index's. After the index table's columns ({@link IndexLayout#columns}, key
 * first), in this order: {@value #FIRST_COLUMN} and {@value #SEAL_COLUMN}. So a read selects the
 * index table's columns in their order and these two after them. Pure.
 */
public final class BucketLayout {
    /** The bucket's label, the first partition-key column. */
    public static final String LABEL_COLUMN = "_bucket";
    /** The earliest version with the entry's key that was current at some moment of the bucket. */
    public static final String FIRST_COLUMN = "_first";
    /** The seal that wrote the entry; a read takes only the entries of the bucket's valid seal. */
    public static final String SEAL_COLUMN = "_seal";
    /** The key of a bucket table's comment, which names its table, index and period. */
    public static final String COMMENT_KEY = "gsi_bucket";

    static final Column LABEL = Column.of(LABEL_COLUMN, AttrType.STRING);
    private static final Column FIRST = Column.of(FIRST_COLUMN, AttrType.TIMEUUID);
    private static final Column SEAL = Column.of(SEAL_COLUMN, AttrType.TIMEUUID);

    private final Index index;

    private BucketLayout(Index index) {
        if (index.bucket() == null) {
            throw new IllegalArgumentException("index " + index.name() + " declares no bucket");
        }
        this.index = index;
    }

    public static BucketLayout of(Index index) {
        return new BucketLayout(index);
    }

    /** The bucket table's name. */
    public String tableName() {
        return index.bucketTableName();
    }

    /** The partition key: the label, then the index table's partition key. */
    public List<Column> partitionColumns() {
        List<Column> out = new ArrayList<>();
        out.add(LABEL);
        out.addAll(index.partitionColumns());
        return out;
    }

    public List<Column> clusteringColumns() {
        return index.clusteringColumns();
    }

    /**
     * The columns after the label, in the order writes bind and reads select them: the index
     * table's ({@link IndexLayout#columns}), then {@value #FIRST_COLUMN} and {@value #SEAL_COLUMN}.
     */
    public List<Column> columns() {
        List<Column> out = new ArrayList<>(IndexLayout.of(index).columns());
        out.add(FIRST);
        out.add(SEAL);
        return out;
    }

    /** Position of {@value #FIRST_COLUMN} in {@link #columns}. */
    public int firstColumn() {
        return columns().size() - 2;
    }

    /** Position of {@value #SEAL_COLUMN} in {@link #columns}. */
    public int sealColumn() {
        return columns().size() - 1;
    }
}
