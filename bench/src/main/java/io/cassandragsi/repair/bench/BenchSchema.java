package io.cassandragsi.repair.bench;

import io.cassandragsi.repair.schema.ProjectTables;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.List;

/**
 * The tables of every {@link Variant}: the same versioned base table {@code revisions (key, tid, a,
 * b, c, value)} in each variant's keyspace (for the {@code -u} variants the unversioned {@code items
 * (key, a, b, c, value)}, primary key {@code key}), plus whatever the variant indexes with. Indexed
 * variants index {@code a} first, then {@code b} and {@code c}, always carrying {@code value}, so
 * that the index rows are alike across variants. Base table and our index tables come from the
 * project's own {@link CqlGenerator}, as {@code gsi schema apply} would make them.
 */
final class BenchSchema {
    static final String TABLE = "revisions";
    /** The unversioned base table of the {@code -u} variants: {@link #TABLE}'s columns but the tid. */
    static final String UNVERSIONED_TABLE = "items";
    static final String PROJECT_KEYSPACE = "gsi";
    static final String REPLICATION = replication(1);
    /** The indexed attributes, in the order variants with one index or three use them. */
    static final List<String> INDEXED = List.of("a", "b", "c");
    /** The index table of the {@link Variant#LOGGED_BATCH} variant (keyed like our index table, a plain {@code tid}). */
    static final String BATCH_INDEX_TABLE = "idx_" + TABLE + "_by_a";

    private BenchSchema() {}

    /** The base table of the variant: {@link #UNVERSIONED_TABLE} for the {@code -u} variants, else {@link #TABLE}. */
    static String table(Variant variant) {
        return variant.unversioned() ? UNVERSIONED_TABLE : TABLE;
    }

    /** The definition of the variant's base table with secondary indexes on the first {@code indexes} attributes. */
    static TableDef definition(Variant variant, int indexes) {
        String maintenance = variant.eventual() ? "  \"indexing\": \"eventual\",\n" : variant.nodeMode() ? "  \"maintenance\": \"node\",\n" : "";
        return variant.unversioned() ? definition(variant.keyspace(), UNVERSIONED_TABLE, "", "", indexes, maintenance)
                : definition(variant.keyspace(), TABLE, "\"tid\": \"timeuuid\", ", ", { \"type\": \"range\", \"order\": \"desc\", \"attribute\": \"tid\" }",
                        indexes, maintenance);
    }

    /** The definition of the base table in {@code keyspace} with secondary indexes on the first {@code indexes} attributes. */
    static TableDef definition(String keyspace, int indexes) {
        return definition(keyspace, TABLE, "\"tid\": \"timeuuid\", ",
                ", { \"type\": \"range\", \"order\": \"desc\", \"attribute\": \"tid\" }", indexes, "");
    }

    /** The definition of the unversioned table (primary key {@code key}) in {@code keyspace}, as {@link #definition(String, int)}. */
    static TableDef unversionedDefinition(String keyspace, int indexes) {
        return definition(keyspace, UNVERSIONED_TABLE, "", "", indexes, "");
    }

    private static TableDef definition(String keyspace, String table, String tidAttribute, String tidKey, int indexes, String maintenance) {
        StringBuilder secondary = new StringBuilder();
        for (int i = 0; i < indexes; i++) {
            String attr = INDEXED.get(i);
            if (i > 0) {
                secondary.append(",\n    ");
            }
            secondary.append("\"by_").append(attr).append("\": [ { \"type\": \"hash\", \"attribute\": \"").append(attr)
                    .append("\" }, { \"type\": \"proj\", \"attribute\": \"value\" } ]");
        }
        String json = "{\n"
                + "  \"keyspace\": \"" + keyspace + "\",\n"
                + "  \"table\": \"" + table + "\",\n"
                + maintenance
                + "  \"attributes\": { \"key\": \"string\", " + tidAttribute + "\"a\": \"string\", \"b\": \"string\","
                + " \"c\": \"string\", \"value\": \"string\" },\n"
                + "  \"index\": [ { \"type\": \"hash\", \"attribute\": \"key\" }" + tidKey + " ],\n"
                + "  \"secondaryIndexes\": {\n    " + secondary + "\n  }\n"
                + "}\n";
        return Definitions.parse(json, "bench definition " + keyspace);
    }

    /** Keyspaces replicated {@code rf} times (the benchmarks' nodes form one datacenter). */
    static String replication(int rf) {
        return "{'class': 'SimpleStrategy', 'replication_factor': " + rf + "}";
    }

    /** Everything the variant needs on an empty node, in order; every statement is idempotent. */
    static List<String> statements(Variant variant) {
        return statements(variant, 1);
    }

    /** Everything the variant needs on an empty cluster, keyspaces replicated {@code rf} times, in order. */
    static List<String> statements(Variant variant, int rf) {
        String ks = variant.keyspace();
        String replication = replication(rf);
        List<String> out = new ArrayList<>();
        switch (variant) {
            case GSI_1, GSI_3, GSI_1_U, GSI_1_E2E, GSI_3_E2E, GSI_1_NODE_E2E, GSI_1_U_NODE_E2E, GSI_1_U_E2E, GSI_1_EVENTUAL, GSI_1_EVENTUAL_E2E,
                    GSI_1_U_EVENTUAL_E2E -> {
                // exactly what `gsi schema apply` makes: for gsi-1-u that includes the rows table
                TableDef def = definition(variant, indexCount(variant));
                for (CqlGenerator.Statement s : CqlGenerator.all(def, PROJECT_KEYSPACE, replication)) {
                    out.add(s.cql());
                }
            }
            case TRIGGER_ONLY -> {
                TableDef def = definition(ks, 0);
                out.add(CqlGenerator.createKeyspace(ks, replication));
                out.add(CqlGenerator.createBaseTable(def));
                out.add(CqlGenerator.createTrigger(def));
            }
            default -> {
                TableDef def = definition(variant, 0);
                out.add(CqlGenerator.createKeyspace(ks, replication));
                out.add(CqlGenerator.createBaseTable(def));
                switch (variant) {
                    case MV -> out.add(view(ks, "a"));
                    case MV_3 -> INDEXED.forEach(attr -> out.add(view(ks, attr)));
                    case MV_U -> out.add(unversionedView(ks, "a"));
                    case SAI -> out.add("CREATE INDEX IF NOT EXISTS " + TABLE + "_a_sai ON " + ks + "." + TABLE + " (a) USING 'sai';");
                    case LOGGED_BATCH -> out.add("CREATE TABLE IF NOT EXISTS " + ks + "." + BATCH_INDEX_TABLE + " (\n"
                            + "  a text,\n  key text,\n  value text,\n  tid timeuuid,\n  PRIMARY KEY ((a), key)\n);");
                    case ROWS_TABLE_U -> out.add(RowsLayout.createTable(def));
                    case BATCH_AS_TRIGGER, BATCH_AS_TRIGGER_U -> {
                        // gsi-1's (gsi-1-u's) rows and index tables as schema apply makes them, a queue of their own, no trigger
                        TableDef indexed = definition(variant, 1);
                        out.add(RowsLayout.createTable(indexed));
                        indexed.indexes().values().forEach(index -> out.add(CqlGenerator.createIndexTable(indexed, index)));
                        out.add(QueueLayout.createTable(ks, QueueLayout.Settings.defaults()));
                    }
                    default -> {
                        // UNINDEXED, UNINDEXED_U: the base table alone
                    }
                }
            }
        }
        return out;
    }

    /** The secondary indexes of a variant with our trigger: 3 for gsi-3, else 1. */
    static int indexCount(Variant variant) {
        return variant == Variant.GSI_3 || variant == Variant.GSI_3_E2E ? 3 : 1;
    }

    /**
     * The project keyspace and its tables as {@code gsi schema apply} makes them, the work queue with
     * {@code shards} shards, created before the variants so that their {@code IF NOT EXISTS} keeps
     * it; the trigger reads the settings from the table comment, and the service of the end-to-end
     * variants finds its checkpoints, leases and instances tables.
     */
    static List<String> projectStatements(int shards) {
        return projectStatements(shards, 1);
    }

    /** {@link #projectStatements(int)} with the project keyspace replicated {@code rf} times. */
    static List<String> projectStatements(int shards, int rf) {
        QueueLayout.Settings defaults = QueueLayout.Settings.defaults();
        QueueLayout.Settings settings = new QueueLayout.Settings(shards, defaults.bucketSeconds(), defaults.ttlSeconds());
        List<String> out = new ArrayList<>();
        out.add(CqlGenerator.createKeyspace(PROJECT_KEYSPACE, replication(rf)));
        ProjectTables.all(PROJECT_KEYSPACE, settings).forEach(t -> out.add(t.cql()));
        out.addAll(ProjectTables.initialRows(PROJECT_KEYSPACE, settings));
        return out;
    }

    /** A view keyed by {@code attr}: every base primary-key column must be in it, so it has one row per version. */
    static String view(String keyspace, String attr) {
        return view(keyspace, TABLE, attr, List.of("key", "tid"), "\n  WITH CLUSTERING ORDER BY (key ASC, tid DESC)");
    }

    /** A view keyed by {@code attr} on the unversioned table: one row per base row, moved when {@code attr} changes. */
    static String unversionedView(String keyspace, String attr) {
        return view(keyspace, UNVERSIONED_TABLE, attr, List.of("key"), "");
    }

    private static String view(String keyspace, String table, String attr, List<String> baseKey, String options) {
        return "CREATE MATERIALIZED VIEW IF NOT EXISTS " + keyspace + ".mv_" + table + "_by_" + attr + " AS\n"
                + "  SELECT " + String.join(", ", baseKey) + ", " + attr + ", value FROM " + keyspace + "." + table + "\n"
                + "  WHERE " + attr + " IS NOT NULL" + String.join("", baseKey.stream().map(k -> " AND " + k + " IS NOT NULL").toList()) + "\n"
                + "  PRIMARY KEY ((" + attr + "), " + String.join(", ", baseKey) + ")" + options + ";";
    }

    /**
     * A read that must find a row once a write with {@code column}'s value has been acknowledged:
     * the CQL has one marker, for that value.
     */
    record Probe(String cql, String column) {}

    /**
     * Reads that prove the variant maintains what it claims: the base row, and one read per index
     * through the index itself (so a trigger that silently does nothing fails the benchmark), and
     * the rows table the trigger (or the batch that stands in for it) writes in the base write's
     * mutation.
     */
    static List<Probe> probes(Variant variant) {
        String ks = variant.keyspace();
        String table = table(variant);
        List<Probe> out = new ArrayList<>();
        out.add(new Probe("SELECT " + (variant.unversioned() ? "a" : "tid") + " FROM " + ks + "." + table + " WHERE key = ? LIMIT 1", "key"));
        switch (variant) {
            case GSI_1, GSI_3, GSI_1_U, GSI_1_E2E, GSI_3_E2E, GSI_1_NODE_E2E, GSI_1_U_NODE_E2E, GSI_1_U_E2E, GSI_1_EVENTUAL, GSI_1_EVENTUAL_E2E,
                    GSI_1_U_EVENTUAL_E2E -> {
                for (String attr : INDEXED.subList(0, indexCount(variant))) {
                    out.add(new Probe("SELECT \"_tid\" FROM " + ks + "." + Index.tableName(table, "by_" + attr)
                            + " WHERE " + attr + " = ? LIMIT 1", attr));
                }
                out.add(rowsProbe(variant));
            }
            case ROWS_TABLE_U -> out.add(rowsProbe(variant));
            case BATCH_AS_TRIGGER, BATCH_AS_TRIGGER_U -> {
                out.add(new Probe("SELECT \"_tid\" FROM " + ks + "." + Index.tableName(table, "by_a") + " WHERE a = ? LIMIT 1", "a"));
                out.add(rowsProbe(variant));
            }
            case MV, MV_U -> out.add(new Probe("SELECT key FROM " + ks + ".mv_" + table + "_by_a WHERE a = ? LIMIT 1", "a"));
            case MV_3 -> INDEXED.forEach(attr -> out.add(
                    new Probe("SELECT key FROM " + ks + ".mv_" + TABLE + "_by_" + attr + " WHERE " + attr + " = ? LIMIT 1", attr)));
            case SAI -> out.add(new Probe("SELECT key FROM " + ks + "." + TABLE + " WHERE a = ? LIMIT 1", "a"));
            case LOGGED_BATCH -> out.add(new Probe("SELECT tid FROM " + ks + "." + BATCH_INDEX_TABLE + " WHERE a = ? LIMIT 1", "a"));
            default -> {
                // UNINDEXED, UNINDEXED_U, TRIGGER_ONLY: the base row alone
            }
        }
        return out;
    }

    /** The rows-table row of the write's key: {@code _w} on the unversioned table, {@code _keys} (all a versioned row has) else. */
    private static Probe rowsProbe(Variant variant) {
        String column = variant.unversioned() ? RowsLayout.WRITTEN : RowsLayout.KEYS;
        return new Probe("SELECT \"" + column + "\" FROM " + variant.keyspace() + "." + RowsLayout.tableName(table(variant))
                + " WHERE key = ?", "key");
    }

    /** The base write, the same for every variant of a table; on the unversioned table it overwrites the row of its key. */
    static String insertBase(Variant variant) {
        if (variant.unversioned()) {
            return "INSERT INTO " + variant.keyspace() + "." + UNVERSIONED_TABLE + " (key, a, b, c, value) VALUES (?, ?, ?, ?, ?)";
        }
        return "INSERT INTO " + variant.keyspace() + "." + TABLE + " (key, tid, a, b, c, value) VALUES (?, ?, ?, ?, ?, ?)";
    }

    /** The base write at a given timestamp (last marker), for the unversioned profiling aids. */
    static String insertBaseAt(Variant variant) {
        return insertBase(variant) + " USING TIMESTAMP ?";
    }

    /**
     * The rows-table row gsi-1-u's trigger writes, for the unversioned profiling aids: markers for
     * the timestamp, the entry key to add to {@code _keys}, {@code _w} and the base key.
     */
    static String updateRows(Variant variant) {
        return "UPDATE " + variant.keyspace() + "." + RowsLayout.tableName(UNVERSIONED_TABLE) + " USING TIMESTAMP ? SET \""
                + RowsLayout.KEYS + "\" = \"" + RowsLayout.KEYS + "\" + ?, \"" + RowsLayout.WRITTEN + "\" = ? WHERE key = ?";
    }

    /**
     * The entry gsi-1-u's trigger writes, for {@link Variant#BATCH_AS_TRIGGER_U}: its cells (no row
     * marker, so an UPDATE) at the given timestamp; markers for it, value, {@code _tid}, a and key.
     */
    static String updateEntry(Variant variant) {
        return "UPDATE " + variant.keyspace() + "." + Index.tableName(UNVERSIONED_TABLE, "by_a")
                + " USING TIMESTAMP ? SET value = ?, \"_tid\" = ? WHERE a = ? AND key = ?";
    }

    /** The index row the client writes in the {@link Variant#LOGGED_BATCH} variant. */
    static String insertBatchIndex(Variant variant) {
        return "INSERT INTO " + variant.keyspace() + "." + BATCH_INDEX_TABLE + " (a, key, value, tid) VALUES (?, ?, ?, ?)";
    }

    /**
     * The index entry the client writes in the {@link Variant#BATCH_AS_TRIGGER} variant, as gsi-1's
     * trigger does: row marker, {@code value} and {@code _tid} at TS(tid), no {@code _deleted};
     * markers for a, key, value, {@code _tid} and the timestamp.
     */
    static String insertTriggerLikeEntry(Variant variant) {
        return "INSERT INTO " + variant.keyspace() + "." + Index.tableName(TABLE, "by_a") + " (a, key, value, \"_tid\")"
                + " VALUES (?, ?, ?, ?) USING TIMESTAMP ?";
    }

    /**
     * The rows-table row gsi-1's trigger writes for a version, for {@link Variant#BATCH_AS_TRIGGER}:
     * the entry key added to {@code _keys} and the version's write in {@code _whi} and {@code
     * _wlo} (no row marker, no {@code _w} on a versioned table) at the batch's timestamp (the
     * trigger's are at the version's TS: the same cells, the same cost); markers for the element,
     * the two values and the base key. Its partition key is the base row's, so it joins the base
     * row's mutation.
     */
    static String updateVersionedRows(Variant variant) {
        return "UPDATE " + variant.keyspace() + "." + RowsLayout.tableName(TABLE) + " SET \""
                + RowsLayout.KEYS + "\" = \"" + RowsLayout.KEYS + "\" + ?, \"" + RowsLayout.NEWEST_HI + "\" = ?, \""
                + RowsLayout.NEWEST_LO + "\" = ? WHERE key = ?";
    }

    /** The marker the client writes in the {@link Variant#BATCH_AS_TRIGGER} variant, as the trigger would. */
    static String insertMarker(Variant variant) {
        return "INSERT INTO " + variant.keyspace() + "." + QueueLayout.TABLE
                + " (shard, bucket, id, keyspace_name, table_name, pk, ck, tid_min, tid_max, flags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    }

    /**
     * What to flush after a phase of {@code variant}, as {@code keyspace} or {@code keyspace.table}:
     * its keyspace, the work queue for our trigger, and the batchlog (used by the trigger's and the
     * client's logged batches; flushed always, it is cheap when empty).
     */
    static List<String> flushTargets(Variant variant) {
        List<String> out = new ArrayList<>();
        out.add(variant.keyspace());
        if (variant.indexedByTrigger()) {
            out.add(PROJECT_KEYSPACE + "." + QueueLayout.TABLE);
        }
        out.add("system.batches");
        return out;
    }
}
