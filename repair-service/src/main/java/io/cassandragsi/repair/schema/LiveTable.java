package io.cassandragsi.repair.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the planner needs to know about one existing table: its key, every column's CQL type, its
 * comment, its triggers (name to class) and the options the project sets ({@code cdc}: change data
 * capture, on for base tables in eventual indexing). A small value type, so the planner runs without a node.
 */
public record LiveTable(
        String keyspace,
        String name,
        List<LiveColumn> partitionKey,
        List<LiveColumn> clustering,
        Map<String, String> columns,
        String comment,
        Map<String, String> triggers,
        int gcGraceSeconds,
        String readRepair,
        boolean cdc) {

    /** Cassandra's default gc_grace_seconds, for tables described without it. */
    public static final int DEFAULT_GC_GRACE_SECONDS = 864000;

    /** Cassandra's default read_repair. */
    public static final String DEFAULT_READ_REPAIR = "BLOCKING";

    public LiveTable(String keyspace, String name, List<LiveColumn> partitionKey, List<LiveColumn> clustering,
            Map<String, String> columns, String comment, Map<String, String> triggers) {
        this(keyspace, name, partitionKey, clustering, columns, comment, triggers, DEFAULT_GC_GRACE_SECONDS, DEFAULT_READ_REPAIR, false);
    }

    public LiveTable(String keyspace, String name, List<LiveColumn> partitionKey, List<LiveColumn> clustering,
            Map<String, String> columns, String comment, Map<String, String> triggers, int gcGraceSeconds) {
        this(keyspace, name, partitionKey, clustering, columns, comment, triggers, gcGraceSeconds, DEFAULT_READ_REPAIR, false);
    }

    public LiveTable(String keyspace, String name, List<LiveColumn> partitionKey, List<LiveColumn> clustering,
            Map<String, String> columns, String comment, Map<String, String> triggers, int gcGraceSeconds, String readRepair) {
        this(keyspace, name, partitionKey, clustering, columns, comment, triggers, gcGraceSeconds, readRepair, false);
    }

    public LiveTable {
        partitionKey = List.copyOf(partitionKey);
        clustering = List.copyOf(clustering);
        columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
        triggers = Collections.unmodifiableMap(new LinkedHashMap<>(triggers));
    }

    public String qualifiedName() {
        return keyspace + "." + name;
    }

    /** True when any column is a counter (Cassandra rejects counter writes that carry trigger mutations). */
    public boolean isCounterTable() {
        return columns.values().stream().anyMatch(t -> t.equalsIgnoreCase("counter"));
    }

    public boolean isKeyColumn(String column) {
        return partitionKey.stream().anyMatch(c -> c.name().equals(column))
                || clustering.stream().anyMatch(c -> c.name().equals(column));
    }
}
