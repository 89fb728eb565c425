package io.cassandragsi.trigger;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.db.ConsistencyLevel;
import java.util.concurrent.atomic.LongAdder;
import org.apache.cassandra.db.Keyspace;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.locator.EndpointsForToken;
import org.apache.cassandra.locator.Replica;
import org.apache.cassandra.locator.ReplicaLayout;
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.transport.Dispatcher;

/**
 * Sends the in-node maintainer's writes through {@code StorageProxy} at a consistency level, like a
 * client's writes (replicas, hints on timeout), never local-only: mutations of one partition merged,
 * all of one call sent before waiting for any. A partition whose only replica, natural or pending,
 * is this node's full replica (RF=1) is applied here instead, on the calling thread, as {@code
 * StorageProxy} would apply it through the mutation stage (docs/design.md section 7.8). Blocks until
 * acknowledged or throws ({@code WriteTimeoutException}, {@code UnavailableException}, {@code
 * OverloadedException}): the maintainer's threads only, never a Cassandra stage or request thread.
 */
final class NodeWrites {
    private NodeWrites() {}

    static void send(List<Mutation> mutations, ConsistencyLevel cl) {
        if (mutations.isEmpty()) {
            return;
        }
        List<Mutation> remote = new ArrayList<>();
        List<Mutation> local = new ArrayList<>();
        for (Mutation m : merged(mutations)) {
            (onlyHere(m) ? local : remote).add(m);
        }
        if (!remote.isEmpty()) {
            StorageProxy.mutate(remote, cl, Dispatcher.RequestTime.forImmediateExecution());
        }
        for (Mutation m : local) {
            m.apply();
        }
        LOCAL.add(local.size());
    }

    /** Mutations applied here alone (JMX: LocalWrites). */
    static final LongAdder LOCAL = new LongAdder();

    /** Whether this node's full replica is the partition's only replica, natural or pending. */
    private static boolean onlyHere(Mutation m) {
        EndpointsForToken all = ReplicaLayout.forTokenWriteLiveAndDown(Keyspace.open(m.getKeyspaceName()), m.key().getToken()).all();
        if (all.size() != 1) {
            return false;
        }
        Replica self = all.selfIfPresent();
        return self != null && self.isFull();
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
