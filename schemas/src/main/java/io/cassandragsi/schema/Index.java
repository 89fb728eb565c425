package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One secondary index of a table, resolved against the table's attributes, with the layout of its
 * index table (docs/design.md section 3.1).
 *
 * <p>Key of the index table: the hash attributes (or, when there are none, the constant column
 * {@value #CONSTANT_COLUMN} holding the index name), then the range attributes in their declared
 * order, then the remaining base primary-key attributes. The tid is left out of that remainder, so
 * one entry stands for a base row across its versions and carries {@value #TID_COLUMN} (latest
 * matching version) and {@value #DELETED_COLUMN} (version at which it stopped matching). An index
 * whose hash or range attributes contain the tid has one entry per version instead, and no such
 * columns: its entries never go stale.
 */
public final class Index {
    public static final String TID_COLUMN = "_tid";
    public static final String DELETED_COLUMN = "_deleted";
    public static final String CONSTANT_COLUMN = "_index";

    private final String name;
    private final String tableName;
    private final List<Column> hash;
    private final List<Column> range;
    private final List<Column> proj;
    private final List<Column> partitionColumns;
    private final List<Column> clusteringColumns;
    private final boolean perVersion;
    /** The period of the index's bucket table (docs/design.md section 3.7), or null: none. */
    private final BucketPeriod bucket;
    private final String bucketTableName;

    Index(TableDef table, String name, List<Column> hash, List<Column> range, List<Column> proj, BucketPeriod bucket) {
        this.name = name;
        this.bucket = bucket;
        this.bucketTableName = bucket == null ? null : bucket.tableName(table.table(), name);
        this.tableName = tableName(table.table(), name);
        this.hash = List.copyOf(hash);
        this.range = List.copyOf(range);
        this.proj = List.copyOf(proj);
        Column tid = table.tid();
        this.perVersion = tid != null && (contains(hash, tid.name()) || contains(range, tid.name()));
        this.partitionColumns = hash.isEmpty() ? List.of(Column.of(CONSTANT_COLUMN, AttrType.STRING)) : this.hash;
        List<Column> clustering = new ArrayList<>(range);
        for (Column pk : table.primaryKey()) {
            boolean isTid = tid != null && pk.name().equals(tid.name());
            if (contains(hash, pk.name()) || contains(range, pk.name()) || (isTid && !perVersion)) {
                continue;
            }
            clustering.add(pk);
        }
        this.clusteringColumns = Collections.unmodifiableList(clustering);
    }

    /** The contract name of an index table: {@code idx_<table>_<index>_ever}. */
    public static String tableName(String table, String index) {
        return "idx_" + table + "_" + index + "_ever";
    }

    private static boolean contains(List<Column> columns, String name) {
        for (Column c : columns) {
            if (c.name().equals(name)) {
                return true;
            }
        }
        return false;
    }

    public String name() {
        return name;
    }

    /** The period of the index's bucket table, or null when the index declares no bucket. */
    public BucketPeriod bucket() {
        return bucket;
    }

    /** The name of the bucket table ({@code idx_<table>_<index>_<period>}), or null when the index declares no bucket. */
    public String bucketTableName() {
        return bucketTableName;
    }

    /** Name of the index table in the base keyspace. */
    public String tableName() {
        return tableName;
    }

    public List<Column> hash() {
        return hash;
    }

    public List<Column> range() {
        return range;
    }

    public List<Column> proj() {
        return proj;
    }

    /** Partition key of the index table. */
    public List<Column> partitionColumns() {
        return partitionColumns;
    }

    public boolean hasConstantPartition() {
        return hash.isEmpty();
    }

    /** Clustering columns of the index table: range attributes, then the implicit base key rest. */
    public List<Column> clusteringColumns() {
        return clusteringColumns;
    }

    /** Partition then clustering columns. */
    public List<Column> keyColumns() {
        List<Column> all = new ArrayList<>(partitionColumns);
        all.addAll(clusteringColumns);
        return all;
    }

    /** Key columns that come from base attributes (the constant column excluded). */
    public List<Column> attributeKeyColumns() {
        List<Column> all = new ArrayList<>(hash);
        all.addAll(clusteringColumns);
        return all;
    }

    /**
     * True when the index key contains the tid: one entry per version, no {@code _tid} and
     * {@code _deleted} columns, nothing to repair.
     */
    public boolean perVersion() {
        return perVersion;
    }

    @Override
    public String toString() {
        return name + " -> " + tableName;
    }
}
