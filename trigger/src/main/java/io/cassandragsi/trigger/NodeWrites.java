package io.cassandragsi.trigger;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.transport.Dispatcher;

/**
 * Sends the in-node maintainer's writes through {@code StorageProxy} at a consistency level, like a
 * client's writes (replicas, hints on timeout), never local-only: mutations of one partition merged,
 * all of one call sent before waiting for any. Blocks until acknowledged or throws ({@code
 * WriteTimeoutException}, {@code UnavailableException}, {@code OverloadedException}): the
 * maintainer's threads only, never a Cassandra stage or request thread.
 */
final class NodeWrites {
    private NodeWrites() {}

    static void send(List<Mutation> mutations, ConsistencyLevel cl) {
        if (mutations.isEmpty()) {
            return;
        }
        StorageProxy.mutate(merged(mutations), cl, Dispatcher.RequestTime.forImmediateExecution());
    }

    /** One mutation per keyspace and partition key. */
    static List<Mutation> merged(List<Mutation> mutations) {
        if (mutations.size() == 1) {
            return mutations;
        }
        Map<String, Map<ByteBuffer, List<Mutation>>> byKey = new LinkedHashMap<>();
        for (Mutation m : mutations) {
            byKey.computeIfAbsent(m.getKeyspaceName(), k -> new LinkedHashMap<>()).computeIfAbsent(m.key().getKey(), k -> new ArrayList<>(2)).add(m);
        }
        List<Mutation> out = new ArrayList<>();
        byKey.values().forEach(keys -> keys.values().forEach(list -> out.add(list.size() == 1 ? list.get(0) : Mutation.merge(list))));
        return out;
    }
}
