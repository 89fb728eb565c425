package io.cassandragsi.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * CQL for a definition (docs/design.md section 3): keyspace, base table, one index table per secondary
 * index, the project keyspace and its tables, and the trigger. Every statement is idempotent
 * ({@code IF NOT EXISTS}); evolving existing tables is the job of the schema apply command, which
 * compares with the live schema and uses {@link #addColumn} and {@link #setComment}.
 */
public final class CqlGenerator {
    /** The trigger class that {@code CREATE TRIGGER} names. */
    public static final String TRIGGER_CLASS = "io.cassandragsi.trigger.IndexTrigger";
    /** Name of the trigger on every indexed base table. */
    public static final String TRIGGER_NAME = "gsi_index";
    /** The comment of an index table holds its definition under this key. */
    public static final String COMMENT_KEY = "gsi";
    public static final int COMMENT_FORMAT = 1;
    /**
     * The layout of the tables this version reads and writes (index tables, rows tables, the
     * project keyspace's tables; docs/design.md section 3), stamped on every index table's comment
     * by {@code schema apply}. The trigger and the service maintain only index tables of this
     * layout; {@code schema apply} migrates older ones. 1: comments without a layout (rows tables
     * possibly missing or without {@code _vkeys}, {@code _whi}, {@code _wlo}). 2: every table
     * complete, and the in-node maintainer's progress table.
     */
    public static final int LAYOUT = 2;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private CqlGenerator() {}

    /** A statement with a one-line reason, printed by {@code --dry-run}. */
    public record Statement(String purpose, String cql) {}

    public static String createKeyspace(String keyspace, String replication) {
        return "CREATE KEYSPACE IF NOT EXISTS " + Cql.quote(keyspace) + " WITH replication = " + replication + ";";
    }

    /** Everything a definition needs, in order, on a cluster that has none of it. */
    public static List<Statement> all(TableDef def, String projectKeyspace, String replication) {
        List<Statement> out = new ArrayList<>();
        out.add(new Statement("project keyspace", createKeyspace(projectKeyspace, replication)));
        out.add(new Statement("work queue", QueueLayout.createTable(projectKeyspace, QueueLayout.Settings.defaults())));
        out.add(new Statement("keyspace " + def.keyspace(), createKeyspace(def.keyspace(), replication)));
        out.add(new Statement("base table " + def.qualifiedName(), createBaseTable(def)));
        if (RowsLayout.needed(def)) {
            out.add(new Statement("rows table", RowsLayout.createTable(def)));
        }
        for (Index index : def.indexes().values()) {
            out.add(new Statement("index " + index.name(), createIndexTable(def, index)));
            if (index.bucket() != null) {
                out.add(new Statement("bucket table of index " + index.name(), createBucketTable(def, index)));
            }
        }
        if (!def.indexes().isEmpty()) {
            out.add(new Statement("trigger", createTrigger(def)));
        }
        return out;
    }

    public static String createBaseTable(TableDef def) {
        List<String> lines = new ArrayList<>();
        def.attributes().forEach((name, type) -> lines.add("  " + Cql.quote(name) + " " + type.cql()));
        lines.add("  PRIMARY KEY (" + primaryKey(def.partitionKey(), def.clustering()) + ")");
        boolean cdc = cdc(def);
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(def.keyspace(), def.table()) + " (\n"
                + String.join(",\n", lines) + "\n)" + clusteringOrder(def.clustering(), cdc) + (cdc ? "cdc = true" : "") + ";";
    }

    /**
     * Whether the base table keeps its commit log for change data capture: in eventual indexing,
     * the replicas' commit logs are the durable record of a write whose entries follow it
     * (docs/design.md section 7.11).
     */
    public static boolean cdc(TableDef def) {
        return def.indexing() == Indexing.EVENTUAL;
    }

    /** Turns change data capture of a base table on or off. */
    public static String setCdc(String keyspace, String table, boolean cdc) {
        return "ALTER TABLE " + Cql.qualified(keyspace, table) + " WITH cdc = " + cdc + ";";
    }

    public static String createIndexTable(TableDef def, Index index) {
        List<String> lines = new ArrayList<>();
        for (Column c : IndexLayout.of(index).columns()) {
            lines.add("  " + c.cqlName() + " " + c.type().cql());
        }
        lines.add("  PRIMARY KEY (" + primaryKey(index.partitionColumns(), index.clusteringColumns()) + ")");
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(def.keyspace(), index.tableName()) + " (\n"
                + String.join(",\n", lines) + "\n)" + clusteringOrder(index.clusteringColumns(), true)
                + "comment = " + Cql.literal(indexComment(def, index)) + ";";
    }

    /** The bucket table of an index that declares one (docs/design.md section 3.7), its comment naming table, index and period. */
    public static String createBucketTable(TableDef def, Index index) {
        BucketLayout layout = BucketLayout.of(index);
        List<String> lines = new ArrayList<>();
        lines.add("  " + BucketLayout.LABEL.cqlName() + " " + BucketLayout.LABEL.type().cql());
        for (Column c : layout.columns()) {
            lines.add("  " + c.cqlName() + " " + c.type().cql());
        }
        lines.add("  PRIMARY KEY (" + primaryKey(layout.partitionColumns(), layout.clusteringColumns()) + ")");
        ObjectNode root = MAPPER.createObjectNode();
        root.putObject(BucketLayout.COMMENT_KEY).put("table", def.table()).put("index", index.name()).put("period", index.bucket().jsonName());
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(def.keyspace(), layout.tableName()) + " (\n" + String.join(",\n", lines) + "\n)"
                + clusteringOrder(layout.clusteringColumns(), true) + "comment = " + Cql.literal(root.toString()) + ";";
    }

    public static String createTrigger(TableDef def) {
        return "CREATE TRIGGER IF NOT EXISTS " + Cql.quote(TRIGGER_NAME) + " ON " + Cql.qualified(def.keyspace(), def.table())
                + " USING " + Cql.literal(TRIGGER_CLASS) + ";";
    }

    public static String addColumn(String keyspace, String table, Column column) {
        return "ALTER TABLE " + Cql.qualified(keyspace, table) + " ADD " + column.cqlName() + " " + column.type().cql() + ";";
    }

    public static String setComment(String keyspace, String table, String comment) {
        return "ALTER TABLE " + Cql.qualified(keyspace, table) + " WITH comment = " + Cql.literal(comment) + ";";
    }

    /** The comment stored on an index table: which base table and index it serves, and the definition. */
    public static String indexComment(TableDef def, Index index) {
        return comment(def, index.name(), false);
    }

    /**
     * The comment of an index table whose index left the definition: kept (never dropped by us)
     * but no longer maintained by the trigger or served by the repair service.
     */
    public static String retiredIndexComment(IndexComment comment) {
        return comment(comment.definition(), comment.index(), true);
    }

    private static String comment(TableDef def, String indexName, boolean retired) {
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode gsi = root.putObject(COMMENT_KEY);
        gsi.put("format", COMMENT_FORMAT);
        gsi.put("layout", LAYOUT);
        gsi.put("table", def.table());
        gsi.put("index", indexName);
        if (retired) {
            gsi.put("retired", true);
        }
        try {
            gsi.set("definition", MAPPER.readTree(Definitions.toJson(def)));
            return MAPPER.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** What an index table's comment says, or null when it is not one of ours; {@code layout} 1 when it names none. */
    public record IndexComment(String table, String index, TableDef definition, boolean retired, int layout) {
        public IndexComment(String table, String index, TableDef definition, boolean retired) {
            this(table, index, definition, retired, LAYOUT);
        }
    }

    /**
     * Reads an index table's comment. Returns null for comments that are not ours; throws
     * {@link DefinitionException} for ours that no longer validate.
     */
    public static IndexComment parseIndexComment(String comment, String source) {
        if (comment == null || !comment.startsWith("{\"" + COMMENT_KEY + "\"")) {
            return null;
        }
        JsonNode root;
        try {
            root = MAPPER.readTree(comment);
        } catch (JsonProcessingException e) {
            throw new DefinitionException(source, null, null, "index table comment is not valid JSON: " + e.getOriginalMessage());
        }
        JsonNode gsi = root.path(COMMENT_KEY);
        if (gsi.path("format").asInt(-1) != COMMENT_FORMAT) {
            throw new DefinitionException(source, null, null, "index table comment has an unknown format " + gsi.path("format"));
        }
        TableDef def = Definitions.parse(gsi.path("definition").toString(), source);
        String index = gsi.path("index").asText();
        if (def.index(index) == null) {
            throw new DefinitionException(source, index, null, "index table comment names an index its definition lacks");
        }
        return new IndexComment(gsi.path("table").asText(), index, def, gsi.path("retired").asBoolean(false), gsi.path("layout").asInt(1));
    }

    private static String primaryKey(List<Column> partition, List<Column> clustering) {
        String pk = partition.stream().map(Column::cqlName).collect(Collectors.joining(", "));
        StringBuilder sb = new StringBuilder("(").append(pk).append(')');
        for (Column c : clustering) {
            sb.append(", ").append(c.cqlName());
        }
        return sb.toString();
    }

    private static String clusteringOrder(List<Column> clustering, boolean moreOptions) {
        if (clustering.isEmpty()) {
            return moreOptions ? " WITH " : "";
        }
        String order = clustering.stream().map(c -> c.cqlName() + " " + c.order().cql()).collect(Collectors.joining(", "));
        return " WITH CLUSTERING ORDER BY (" + order + ")" + (moreOptions ? "\n  AND " : "");
    }
}
