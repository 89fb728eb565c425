package io.cassandragsi.repair.schema;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.Metadata;
import com.datastax.oss.driver.api.core.metadata.schema.ClusteringOrder;
import com.datastax.oss.driver.api.core.metadata.schema.ColumnMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.KeyspaceMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.TableMetadata;
import io.cassandragsi.schema.Order;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the {@link LiveSchema} of some keyspaces from the driver's schema metadata (refreshed first),
 * and the triggers from {@code system_schema.triggers}, which the driver's metadata does not cover.
 */
public final class LiveSchemaReader {
    private static final CqlIdentifier COMMENT = CqlIdentifier.fromInternal("comment");
    private static final String TRIGGERS =
            "SELECT table_name, trigger_name, options FROM system_schema.triggers WHERE keyspace_name = ?";

    private LiveSchemaReader() {}

    public static LiveSchema read(CqlSession session, Collection<String> keyspaces) {
        Metadata metadata = session.refreshSchema();
        Map<String, Map<String, LiveTable>> out = new LinkedHashMap<>();
        for (String name : keyspaces) {
            Optional<KeyspaceMetadata> ks = metadata.getKeyspace(CqlIdentifier.fromInternal(name));
            if (ks.isEmpty()) {
                continue;
            }
            Map<String, Map<String, String>> triggers = triggers(session, name);
            Map<String, LiveTable> tables = new LinkedHashMap<>();
            for (TableMetadata t : ks.get().getTables().values()) {
                String table = t.getName().asInternal();
                tables.put(table, table(name, t, triggers.getOrDefault(table, Map.of())));
            }
            out.put(name, tables);
        }
        return new LiveSchema(out);
    }

    private static LiveTable table(String keyspace, TableMetadata t, Map<String, String> triggers) {
        List<LiveColumn> partition = new ArrayList<>();
        for (ColumnMetadata c : t.getPartitionKey()) {
            partition.add(LiveColumn.of(c.getName().asInternal(), type(c)));
        }
        List<LiveColumn> clustering = new ArrayList<>();
        for (Map.Entry<ColumnMetadata, ClusteringOrder> e : t.getClusteringColumns().entrySet()) {
            Order order = e.getValue() == ClusteringOrder.DESC ? Order.DESC : Order.ASC;
            clustering.add(new LiveColumn(e.getKey().getName().asInternal(), type(e.getKey()), order));
        }
        Map<String, String> columns = new LinkedHashMap<>();
        for (ColumnMetadata c : t.getColumns().values()) {
            columns.put(c.getName().asInternal(), type(c));
        }
        Object comment = t.getOptions().get(COMMENT);
        Object gcGrace = t.getOptions().get(com.datastax.oss.driver.api.core.CqlIdentifier.fromCql("gc_grace_seconds"));
        Object readRepair = t.getOptions().get(com.datastax.oss.driver.api.core.CqlIdentifier.fromCql("read_repair"));
        Object cdc = t.getOptions().get(com.datastax.oss.driver.api.core.CqlIdentifier.fromCql("cdc"));
        return new LiveTable(keyspace, t.getName().asInternal(), partition, clustering, columns,
                comment == null ? null : comment.toString(), triggers,
                gcGrace instanceof Number n ? n.intValue() : LiveTable.DEFAULT_GC_GRACE_SECONDS,
                readRepair == null ? LiveTable.DEFAULT_READ_REPAIR : readRepair.toString(), Boolean.TRUE.equals(cdc));
    }

    private static String type(ColumnMetadata c) {
        return c.getType().asCql(true, true);
    }

    /** table name to (trigger name to class). */
    private static Map<String, Map<String, String>> triggers(CqlSession session, String keyspace) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (Row row : session.execute(SimpleStatement.newInstance(TRIGGERS, keyspace))) {
            Map<String, String> options = row.getMap("options", String.class, String.class);
            out.computeIfAbsent(row.getString("table_name"), k -> new LinkedHashMap<>())
                    .put(row.getString("trigger_name"), options == null ? "" : options.getOrDefault("class", ""));
        }
        return out;
    }
}
