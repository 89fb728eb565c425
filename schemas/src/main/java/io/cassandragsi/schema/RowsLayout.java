package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The rows table of an indexed base table (docs/design.md section 3.3: "any versions we keep live on our
 * side"): {@code idx_<table>__rows} in the base keyspace, keyed by the base table's row key (its
 * primary key, less the tid of a versioned table). A delete or an expiry leaves nothing to read in
 * the base, so this table keeps what the repair service cannot read from it:
 * <ul>
 *   <li>{@value #KEYS}: every index entry key the row has had (one set element per index and entry
 *       key), so that the service can find the entries of a row that changed, was deleted or
 *       expired, and mark them deleted. On a versioned table the trigger writes each element at
 *       the TS of the version that has the key, so its write time names the newest such version
 *       (a version rewritten with another key shows); elements the service adds are written at 0;
 *   <li>{@value #WRITTEN}: on an unversioned table, the write timestamp of the newest write of the
 *       row the trigger saw (last-write-wins keeps the greatest), so that the service knows when a
 *       write is visible; on a versioned table, the highest TS a recompute of the row wrote at (a
 *       version not above it is recomputed, not diffed);
 *   <li>{@value #WRITE_ID} (an unversioned table): the marker id of the write that set {@value
 *       #WRITTEN}, written with it at its timestamp. Two writes of a row at one timestamp tie: the
 *       greater id stays, so a write whose marker is read while {@value #WRITTEN} equals its
 *       timestamp but names another write may still be landing (docs/design.md section 6.6);
 *   <li>{@value #PARTITION_WRITTEN} (static, when the row key has clustering columns): the same
 *       for range and partition deletes;
 *   <li>{@value #VERSION_KEYS} (a versioned table with an index that keeps an entry per version):
 *       the entry keys of such indexes, one element per version and index, written at the
 *       version's TS, so that a delete of the version (which carries no values) finds its entry.
 *       Apart from {@value #KEYS}, because only a recompute reads it, not every sibling diff. The
 *       service removes an element at its own write time once its entry is deleted.
 *   <li>{@value #NEWEST_HI} and {@value #NEWEST_LO} (a versioned table): every write of a version
 *       that carries all the indexed key attributes writes both at the version's TS, {@value
 *       #NEWEST_HI} = its write timestamp w and {@value #NEWEST_LO} = {@code Long.MAX_VALUE - w}.
 *       The newest version's TS wins; among writes of that version Cassandra's tie rule keeps the
 *       greater value, so the two keep the latest and the earliest w. They differ when the newest
 *       version was written more than once at different timestamps (a rewrite within the second
 *       the trigger takes for a new version's write): its projections tie at the version's TS and
 *       Cassandra kept the greater value, not the later one, or it moved a per-version entry that
 *       no {@value #KEYS} element shows, so the service recomputes the row.
 * </ul>
 * Its partition key is the base table's, so the trigger's write to it joins the base write's own
 * mutation (no extra mutation in the batch). It is written only by this project.
 */
public final class RowsLayout {
    public static final String KEYS = "_keys";
    public static final String WRITTEN = "_w";
    public static final String PARTITION_WRITTEN = "_pw";
    public static final String WRITE_ID = "_wid";
    public static final String VERSION_KEYS = "_vkeys";
    public static final String NEWEST_HI = "_whi";
    public static final String NEWEST_LO = "_wlo";
    public static final String COMMENT_KEY = "gsi_rows";

    private RowsLayout() {}

    /** {@code idx_<table>__rows}: cannot clash with an index table, whose names end in {@code _ever}. */
    public static String tableName(String table) {
        return "idx_" + table + "__rows";
    }

    /**
     * True when a definition needs a rows table: it has an index (one that keeps one entry per row
     * across versions needs {@value #KEYS}, one per version {@value #VERSION_KEYS}).
     */
    public static boolean needed(TableDef def) {
        return !def.indexes().isEmpty();
    }

    /** True when the rows table has {@value #VERSION_KEYS}: the table has an index that keeps an entry per version. */
    public static boolean hasVersionKeys(TableDef def) {
        return def.indexes().values().stream().anyMatch(Index::perVersion);
    }

    /** The statement that adds {@value #VERSION_KEYS} to a rows table made before it existed. */
    public static String addVersionKeys(TableDef def) {
        return "ALTER TABLE " + Cql.qualified(def.keyspace(), tableName(def.table())) + " ADD " + Cql.quote(VERSION_KEYS) + " set<blob>;";
    }

    /** True when the rows table has {@value #NEWEST_HI} and {@value #NEWEST_LO}: the table is versioned. */
    public static boolean hasNewestWrites(TableDef def) {
        return def.versioned();
    }

    /** The statement that adds {@value #NEWEST_HI} and {@value #NEWEST_LO} to a rows table made before they existed. */
    public static String addNewestWrites(TableDef def) {
        return "ALTER TABLE " + Cql.qualified(def.keyspace(), tableName(def.table())) + " ADD (" + Cql.quote(NEWEST_HI) + " bigint, "
                + Cql.quote(NEWEST_LO) + " bigint);";
    }

    /** True when the rows table has {@value #WRITE_ID}: the table is unversioned. */
    public static boolean hasWriteId(TableDef def) {
        return !def.versioned();
    }

    /** The statement that adds {@value #WRITE_ID} to a rows table made before it existed. */
    public static String addWriteId(TableDef def) {
        return "ALTER TABLE " + Cql.qualified(def.keyspace(), tableName(def.table())) + " ADD " + Cql.quote(WRITE_ID) + " timeuuid;";
    }

    /** {@value #NEWEST_LO}'s value for a write at {@code w}: the greater value is the earlier write. */
    public static long newestLo(long w) {
        return Long.MAX_VALUE - w;
    }

    /** The row key: the partition key, then the clustering columns before the tid (all of them when unversioned). */
    public static List<Column> rowKey(TableDef def) {
        List<Column> key = new ArrayList<>(def.partitionKey());
        key.addAll(def.clusteringPrefix());
        return key;
    }

    /** The positions of the row key's columns among the definition's attributes (the values of a base version). */
    public static int[] rowKeyAttributes(TableDef def) {
        List<String> names = new ArrayList<>(def.attributes().keySet());
        return rowKey(def).stream().mapToInt(c -> names.indexOf(c.name())).toArray();
    }

    public static String createTable(TableDef def) {
        List<String> lines = new ArrayList<>();
        for (Column c : rowKey(def)) {
            lines.add("  " + c.cqlName() + " " + c.type().cql());
        }
        List<Column> clustering = def.clusteringPrefix();
        lines.add("  " + Cql.quote(KEYS) + " set<blob>");
        lines.add("  " + Cql.quote(WRITTEN) + " bigint");
        if (!clustering.isEmpty()) {
            lines.add("  " + Cql.quote(PARTITION_WRITTEN) + " bigint static");
        }
        if (hasVersionKeys(def)) {
            lines.add("  " + Cql.quote(VERSION_KEYS) + " set<blob>");
        }
        if (hasWriteId(def)) {
            lines.add("  " + Cql.quote(WRITE_ID) + " timeuuid");
        }
        if (hasNewestWrites(def)) {
            lines.add("  " + Cql.quote(NEWEST_HI) + " bigint");
            lines.add("  " + Cql.quote(NEWEST_LO) + " bigint");
        }
        String pk = "(" + def.partitionKey().stream().map(Column::cqlName).collect(Collectors.joining(", ")) + ")"
                + clustering.stream().map(c -> ", " + c.cqlName()).collect(Collectors.joining());
        lines.add("  PRIMARY KEY (" + pk + ")");
        String order = clustering.isEmpty() ? "" : " CLUSTERING ORDER BY ("
                + clustering.stream().map(c -> c.cqlName() + " " + c.order().cql()).collect(Collectors.joining(", ")) + ") AND";
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(def.keyspace(), tableName(def.table())) + " (\n"
                + String.join(",\n", lines) + "\n) WITH" + order + " comment = " + Cql.literal(comment(def.table())) + ";";
    }

    /** The {@value #KEYS} element of an entry key: the index name and the key, in Cassandra's composite encoding. */
    public static java.nio.ByteBuffer element(String index, List<java.nio.ByteBuffer> entryKey) {
        return io.cassandragsi.schema.Composite.encode(List.of(java.nio.ByteBuffer.wrap(index.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                io.cassandragsi.schema.Composite.encode(entryKey)));
    }

    public static String comment(String table) {
        return "{\"" + COMMENT_KEY + "\":{\"table\":\"" + table + "\"}}";
    }
}
