package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.TokenMap;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The token ranges one Cassandra node replicates in a keyspace, as {@link TokenRange}s, from the
 * driver's token map (docs/design.md section 7.11: a CDC segment a node lost held only mutations it
 * applied as a replica). The whole ring when the node or the token map is not known: never less.
 */
public final class NodeRanges {
    private NodeRanges() {}

    /** The ranges {@code node} (its broadcast address, {@code host} or {@code host:port}) replicates in {@code keyspace}. */
    public static List<TokenRange> of(CqlSession session, String keyspace, String node) {
        Optional<TokenMap> tokens = session.getMetadata().getTokenMap();
        Node replica = find(session, node);
        if (tokens.isEmpty() || replica == null) {
            return List.of(TokenRanges.FULL_RING);
        }
        List<TokenRange> out = new ArrayList<>();
        for (com.datastax.oss.driver.api.core.metadata.token.TokenRange r : tokens.get().getTokenRanges(CqlIdentifier.fromInternal(keyspace),
                replica)) {
            if (r.isFullRing()) {
                return List.of(TokenRanges.FULL_RING);
            }
            for (com.datastax.oss.driver.api.core.metadata.token.TokenRange part : r.unwrap()) {
                long start = Long.parseLong(tokens.get().format(part.getStart()));
                long end = Long.parseLong(tokens.get().format(part.getEnd()));
                add(out, start, end == Long.MIN_VALUE ? Long.MAX_VALUE : end);
            }
        }
        return out.isEmpty() ? List.of(TokenRanges.FULL_RING) : merge(out);
    }

    /** {@code (start, end]} when it holds a token. */
    static void add(List<TokenRange> out, long start, long end) {
        if (start < end) {
            out.add(new TokenRange(start, end));
        }
    }

    /** The ranges sorted, adjacent ones joined. */
    static List<TokenRange> merge(List<TokenRange> ranges) {
        List<TokenRange> sorted = new ArrayList<>(ranges);
        sorted.sort(java.util.Comparator.comparingLong(TokenRange::start));
        List<TokenRange> out = new ArrayList<>();
        for (TokenRange r : sorted) {
            TokenRange last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && r.start() <= last.end()) {
                out.set(out.size() - 1, new TokenRange(last.start(), Math.max(last.end(), r.end())));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    private static Node find(CqlSession session, String node) {
        String host = node == null ? "" : node.contains(":") && node.indexOf(':') == node.lastIndexOf(':') ? node.substring(0, node.indexOf(':'))
                : node;
        for (Node n : session.getMetadata().getNodes().values()) {
            Optional<InetSocketAddress> b = n.getBroadcastAddress();
            if (b.isPresent() && b.get().getAddress() != null && b.get().getAddress().getHostAddress().equals(host)) {
                return n;
            }
        }
        return null;
    }
}
