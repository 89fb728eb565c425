package io.cassandragsi.repair.schema;

import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Live schemas as Cassandra would report them after {@code schema apply} created a definition. */
final class LiveFixtures {
    private LiveFixtures() {}

    /** The project keyspace with every table {@code schema apply} makes there (the service's with a stand-in key). */
    static LiveSchema project(String keyspace) {
        Map<String, String> columns = new LinkedHashMap<>();
        for (String c : List.of("shard int", "bucket bigint", "id timeuuid", "keyspace_name text", "table_name text",
                "pk blob", "ck blob", "tid_min timeuuid", "tid_max timeuuid", "flags int")) {
            String[] p = c.split(" ");
            columns.put(p[0], p[1]);
        }
        LiveTable queue = new LiveTable(keyspace, QueueLayout.TABLE,
                List.of(LiveColumn.of("shard", "int"), LiveColumn.of("bucket", "bigint")),
                List.of(LiveColumn.of("id", "timeuuid")), columns, QueueLayout.Settings.defaults().toComment(), Map.of(),
                LiveTable.DEFAULT_GC_GRACE_SECONDS, "NONE");
        LiveSchema live = LiveSchema.empty().with(queue);
        for (ProjectTables.Table t : ProjectTables.all(keyspace, QueueLayout.Settings.defaults())) {
            if (!t.name().equals(QueueLayout.TABLE)) {
                Map<String, String> cols = t.name().equals(io.cassandragsi.repair.store.CheckpointsTable.TABLE)
                        ? Map.of("k", "text", io.cassandragsi.repair.store.CheckpointsTable.DONE_BEFORE, "timestamp")
                        : t.name().equals(io.cassandragsi.schema.NodeProgressLayout.TABLE)
                                ? Map.of("k", "text", io.cassandragsi.schema.NodeProgressLayout.C_CDC_LOST, "bigint",
                                        io.cassandragsi.schema.NodeProgressLayout.C_CDC_LOST_BEHIND, "text",
                                        io.cassandragsi.schema.NodeProgressLayout.C_CDC_REPAIRED, "text")
                        : Map.of("k", "text");
                live = live.with(new LiveTable(keyspace, t.name(), List.of(LiveColumn.of("k", "text")), List.of(), cols, "", Map.of()));
            }
        }
        return live;
    }

    /** The project keyspace plus everything {@code defs} create. */
    static LiveSchema created(TableDef... defs) {
        LiveSchema live = project(QueueLayout.DEFAULT_KEYSPACE);
        for (TableDef def : defs) {
            live = withDefinition(live, def);
        }
        return live;
    }

    static LiveSchema withDefinition(LiveSchema live, TableDef def) {
        live = live.with(baseTable(def, def.indexes().isEmpty() ? Map.of()
                : Map.of(CqlGenerator.TRIGGER_NAME, CqlGenerator.TRIGGER_CLASS)));
        if (RowsLayout.needed(def)) {
            live = live.with(rowsTable(def));
        }
        for (Index index : def.indexes().values()) {
            live = live.with(indexTable(def, index));
            if (index.bucket() != null) {
                live = live.with(bucketTable(def, index));
            }
        }
        return live;
    }

    static LiveTable rowsTable(TableDef def) {
        Map<String, String> columns = new LinkedHashMap<>();
        RowsLayout.rowKey(def).forEach(c -> columns.put(c.name(), c.type().cql()));
        columns.put(RowsLayout.KEYS, "set<blob>");
        columns.put(RowsLayout.WRITTEN, "bigint");
        if (RowsLayout.hasVersionKeys(def)) {
            columns.put(RowsLayout.VERSION_KEYS, "set<blob>");
        }
        if (RowsLayout.hasWriteId(def)) {
            columns.put(RowsLayout.WRITE_ID, "timeuuid");
        }
        if (RowsLayout.hasNewestWrites(def)) {
            columns.put(RowsLayout.NEWEST_HI, "bigint");
            columns.put(RowsLayout.NEWEST_LO, "bigint");
        }
        return new LiveTable(def.keyspace(), RowsLayout.tableName(def.table()), live(def.partitionKey()), live(def.clusteringPrefix()),
                columns, RowsLayout.comment(def.table()), Map.of());
    }

    static LiveTable baseTable(TableDef def, Map<String, String> triggers) {
        Map<String, String> columns = new LinkedHashMap<>();
        def.primaryKey().forEach(c -> columns.put(c.name(), c.type().cql()));
        def.attributes().forEach((name, type) -> columns.putIfAbsent(name, type.cql()));
        return new LiveTable(def.keyspace(), def.table(), live(def.partitionKey()), live(def.clustering()), columns, "", triggers,
                LiveTable.DEFAULT_GC_GRACE_SECONDS, LiveTable.DEFAULT_READ_REPAIR, io.cassandragsi.schema.CqlGenerator.cdc(def));
    }

    static LiveTable indexTable(TableDef def, Index index) {
        Map<String, String> columns = new LinkedHashMap<>();
        index.keyColumns().forEach(c -> columns.put(c.name(), c.type().cql()));
        index.proj().forEach(c -> columns.put(c.name(), c.type().cql()));
        if (!index.perVersion()) {
            columns.put(Index.TID_COLUMN, "timeuuid");
            columns.put(Index.DELETED_COLUMN, "timeuuid");
        }
        return new LiveTable(def.keyspace(), index.tableName(), live(index.partitionColumns()),
                live(index.clusteringColumns()), columns, CqlGenerator.indexComment(def, index), Map.of());
    }

    static LiveTable bucketTable(TableDef def, Index index) {
        io.cassandragsi.schema.BucketLayout layout = io.cassandragsi.schema.BucketLayout.of(index);
        Map<String, String> columns = new LinkedHashMap<>();
        columns.put(io.cassandragsi.schema.BucketLayout.LABEL_COLUMN, "text");
        layout.columns().forEach(c -> columns.put(c.name(), c.type().cql()));
        return new LiveTable(def.keyspace(), layout.tableName(), live(layout.partitionColumns()), live(layout.clusteringColumns()), columns,
                "", Map.of());
    }

    private static List<LiveColumn> live(List<Column> columns) {
        List<LiveColumn> out = new ArrayList<>();
        columns.forEach(c -> out.add(LiveColumn.of(c)));
        return out;
    }
}
