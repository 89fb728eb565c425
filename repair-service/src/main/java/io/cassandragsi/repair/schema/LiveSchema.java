package io.cassandragsi.repair.schema;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The part of a cluster's schema that {@code schema apply} compares with: the keyspaces it was asked
 * about (present or not) and their tables.
 */
public record LiveSchema(Map<String, Map<String, LiveTable>> keyspaces) {

    public LiveSchema {
        Map<String, Map<String, LiveTable>> copy = new LinkedHashMap<>();
        keyspaces.forEach((k, v) -> copy.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        keyspaces = Collections.unmodifiableMap(copy);
    }

    /** A cluster without any of our keyspaces (also what dry-run assumes when it cannot connect). */
    public static LiveSchema empty() {
        return new LiveSchema(Map.of());
    }

    public boolean hasKeyspace(String keyspace) {
        return keyspaces.containsKey(keyspace);
    }

    public Optional<LiveTable> table(String keyspace, String table) {
        return Optional.ofNullable(keyspaces.getOrDefault(keyspace, Map.of()).get(table));
    }

    public Map<String, LiveTable> tables(String keyspace) {
        return keyspaces.getOrDefault(keyspace, Map.of());
    }

    /** A copy with one more table (its keyspace is added when absent). */
    public LiveSchema with(LiveTable table) {
        Map<String, Map<String, LiveTable>> copy = new LinkedHashMap<>();
        keyspaces.forEach((k, v) -> copy.put(k, new LinkedHashMap<>(v)));
        copy.computeIfAbsent(table.keyspace(), k -> new LinkedHashMap<>()).put(table.name(), table);
        return new LiveSchema(copy);
    }

    /** A copy with one more (empty) keyspace. */
    public LiveSchema withKeyspace(String keyspace) {
        Map<String, Map<String, LiveTable>> copy = new LinkedHashMap<>(keyspaces);
        copy.putIfAbsent(keyspace, Map.of());
        return new LiveSchema(copy);
    }
}
