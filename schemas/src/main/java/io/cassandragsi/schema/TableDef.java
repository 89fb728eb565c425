package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One base table and its secondary indexes, as read from a definition file and validated by
 * {@link Definitions}. Immutable.
 */
public final class TableDef {
    private final String keyspace;
    private final String table;
    private final Map<String, AttrType> attributes;
    private final List<Column> partitionKey;
    private final List<Column> clustering;
    private final Map<String, Index> indexes = new LinkedHashMap<>();
    /** The definition's {@code "versioned"}: null when left out (versioned iff the key ends in a timeuuid). */
    private final Boolean versionedFlag;
    /** The definition's {@code "maintenance"} (default: the repair service; node when indexing is eventual). */
    private final Maintenance maintenance;
    /** The definition's {@code "indexing"} (default: atomic). */
    private final Indexing indexing;

    TableDef(
            String keyspace,
            String table,
            Map<String, AttrType> attributes,
            List<Column> partitionKey,
            List<Column> clustering,
            Boolean versionedFlag,
            Maintenance maintenance,
            Indexing indexing) {
        this.versionedFlag = versionedFlag;
        this.maintenance = maintenance;
        this.indexing = indexing;
        this.keyspace = keyspace;
        this.table = table;
        this.attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        this.partitionKey = List.copyOf(partitionKey);
        this.clustering = List.copyOf(clustering);
    }

    void addIndex(String name, List<Column> hash, List<Column> range, List<Column> proj, BucketPeriod bucket) {
        indexes.put(name, new Index(this, name, hash, range, proj, bucket));
    }

    public String keyspace() {
        return keyspace;
    }

    public String table() {
        return table;
    }

    public String qualifiedName() {
        return keyspace + "." + table;
    }

    /** Attribute names to types, in definition order. */
    public Map<String, AttrType> attributes() {
        return attributes;
    }

    public AttrType type(String attribute) {
        return attributes.get(attribute);
    }

    public List<Column> partitionKey() {
        return partitionKey;
    }

    public List<Column> clustering() {
        return clustering;
    }

    /** Partition key then clustering columns. */
    public List<Column> primaryKey() {
        List<Column> all = new ArrayList<>(partitionKey);
        all.addAll(clustering);
        return all;
    }

    /**
     * The version id (tid) of a versioned table: its last clustering attribute when that is a
     * timeuuid, unless the definition says {@code "versioned": false}; null for an unversioned table.
     */
    public Column tid() {
        if (Boolean.FALSE.equals(versionedFlag)) {
            return null;
        }
        return endsInTimeuuid() ? clustering.get(clustering.size() - 1) : null;
    }

    /** True when the last primary-key attribute is a timeuuid clustering attribute. */
    public boolean endsInTimeuuid() {
        return !clustering.isEmpty() && clustering.get(clustering.size() - 1).type() == AttrType.TIMEUUID;
    }

    /**
     * How the table is classified (docs/design.md section 2): versioned (every write of a row is a new
     * version, named by the tid) or unversioned (rows are overwritten in place; the version of a
     * write is its write timestamp).
     */
    public boolean versioned() {
        return tid() != null;
    }

    /** Who runs the table's sibling diffs: the repair service (default) or the node that ran the trigger. */
    public Maintenance maintenance() {
        return maintenance;
    }

    /**
     * Whether the index entries ride in the write's logged batch (atomic, the default) or follow it,
     * written by the in-node maintainer (eventual; docs/design.md section 7.11).
     */
    public Indexing indexing() {
        return indexing;
    }

    /** The definition's {@code "versioned"} as written: null when left out. */
    public Boolean versionedFlag() {
        return versionedFlag;
    }

    /** Clustering columns that come before the tid: with the partition key they name a row. */
    public List<Column> clusteringPrefix() {
        return versioned() ? clustering.subList(0, clustering.size() - 1) : clustering;
    }

    /** Attributes that are not part of the primary key. */
    public List<Column> regularColumns() {
        List<Column> regular = new ArrayList<>();
        for (Map.Entry<String, AttrType> e : attributes.entrySet()) {
            if (!isPrimaryKey(e.getKey())) {
                regular.add(Column.of(e.getKey(), e.getValue()));
            }
        }
        return regular;
    }

    public boolean isPrimaryKey(String attribute) {
        for (Column c : primaryKey()) {
            if (c.name().equals(attribute)) {
                return true;
            }
        }
        return false;
    }

    /** Secondary indexes by name, in definition order. */
    public Map<String, Index> indexes() {
        return Collections.unmodifiableMap(indexes);
    }

    public Index index(String name) {
        return indexes.get(name);
    }
}
