package io.cassandragsi.conf;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * What one node knows of the cluster, from its JMX StorageService (gossip liveness and ring) and
 * its system.peers_v2 (what the driver discovers peers from). Endpoints are {@code host:port}
 * with the storage port; peers are hosts.
 *
 * @param live endpoints the node's failure detector holds UP
 * @param unreachable endpoints it holds DOWN
 * @param ring endpoints that own tokens in its ring
 * @param joining endpoints still joining
 * @param peers hosts in its system.peers_v2
 */
record PeerView(
        Set<String> live, Set<String> unreachable, Set<String> ring, Set<String> joining, Set<String> peers) {

    /** What keeps {@code observer} from seeing every running node UP and in its ring; empty when all is well. */
    List<String> problems(NodeSpec observer, Collection<NodeSpec> running) {
        List<String> problems = new ArrayList<>();
        for (NodeSpec node : running) {
            String endpoint = node.gossipEndpoint();
            if (!live.contains(endpoint) || unreachable.contains(endpoint)) {
                problems.add(observer.name() + " does not see " + endpoint + " UP");
            }
            if (!ring.contains(endpoint) || joining.contains(endpoint)) {
                problems.add(observer.name() + " does not have " + endpoint + " in its ring");
            }
            if (node.index() != observer.index() && !peers.contains(node.host())) {
                problems.add(observer.name() + " has no system.peers_v2 row for " + node.host());
            }
        }
        return problems;
    }

    /** Strips the leading slash that some Cassandra endpoint strings carry. */
    static String endpoint(Object value) {
        String s = String.valueOf(value);
        return s.startsWith("/") ? s.substring(1) : s;
    }
}
