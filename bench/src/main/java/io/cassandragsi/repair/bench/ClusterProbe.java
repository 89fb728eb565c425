package io.cassandragsi.repair.bench;

import io.cassandragsi.conf.LocalCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link NodeProbe}s of every node of a local cluster, read together: CPU time summed over the
 * nodes (on one machine, the cluster's total CPU per operation), flushes and compaction waits on
 * every node.
 */
final class ClusterProbe implements AutoCloseable {
    private final List<NodeProbe> nodes;

    private ClusterProbe(List<NodeProbe> nodes) {
        this.nodes = nodes;
    }

    static ClusterProbe attach(LocalCluster cluster) {
        List<NodeProbe> probes = new ArrayList<>();
        try {
            for (int i = 0; i < cluster.size(); i++) {
                probes.add(NodeProbe.attach("node" + i, cluster.address(i).getHostAddress(), cluster.nodeDir(i), cluster.jmxPort(i)));
            }
        } catch (RuntimeException e) {
            probes.forEach(NodeProbe::close);
            throw e;
        }
        return new ClusterProbe(probes);
    }

    /** The nodes' process ids, in node order. */
    List<Long> pids() {
        return nodes.stream().map(NodeProbe::pid).toList();
    }

    /** CPU time (user + system) all nodes have used since they started. */
    long nodeCpuNanos() {
        return nodes.stream().mapToLong(NodeProbe::nodeCpuNanos).sum();
    }

    /** Digest mismatches all nodes have met as coordinators since they started ({@link NodeProbe#digestMismatches}). */
    long digestMismatches() {
        return nodes.stream().mapToLong(NodeProbe::digestMismatches).sum();
    }

    /** The nodes' in-node maintainers, summed ({@link NodeProbe#maintainers}): backlog, handed off, taken, retried, prefetched, local reads, local writes. */
    long[] maintainers() {
        long[] out = new long[8];
        for (NodeProbe n : nodes) {
            long[] m = n.maintainers();
            for (int i = 0; i < out.length; i++) {
                out[i] += m[i];
            }
        }
        return out;
    }

    /** Waits until no in-node maintainer has a backlog, polling every 100 ms, at most {@code max}; the seconds waited. */
    double awaitMaintainers(Duration max) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + max.toNanos();
        while (maintainers()[0] > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Flushes {@code target} (a keyspace or {@code keyspace.table}) on every node. */
    void flush(String target) {
        nodes.forEach(n -> n.flush(target));
    }

    /** Waits until no node runs or has pending compactions, at most {@code max} in all; whether they all settled. */
    boolean awaitCompactions(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        boolean settled = true;
        for (NodeProbe n : nodes) {
            settled &= n.awaitCompactions(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return settled;
    }

    @Override
    public void close() {
        nodes.forEach(NodeProbe::close);
    }
}
