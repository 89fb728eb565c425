package io.cassandragsi.conf;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running JVMs of a {@link LocalCluster}'s nodes: starts them one after another, each ready
 * when it answers CQL and the cluster when the running nodes see each other; stops and kills them;
 * and stops them from a JVM shutdown hook if the JVM that started them exits first. Everything but
 * the shutdown hook holds this object's lock.
 */
final class NodeProcesses {
    /** The launcher's logger: its lines name LocalCluster, whichever of its classes writes them. */
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHUTDOWN_HOOK_TIMEOUT = Duration.ofSeconds(20);

    private final List<NodeSpec> nodes;
    private final String clusterName;
    private final NodeLauncher launcher;
    private final boolean reuseData;
    /** How long a starting node may show no progress (no log grows) before it is taken for stuck. */
    private final Duration startupTimeout;
    /** A bound on a node's whole start, or null: as long as it makes progress. */
    private final Duration startDeadline;
    private volatile ClientAccess access;

    /** Read by the shutdown hook without the lock. */
    private final AtomicReferenceArray<Process> processes;

    private final Duration[] startupTimes;
    private boolean prepared;
    private Thread shutdownHook;
    private String classpath;
    private List<String> jvmOptions;

    NodeProcesses(List<NodeSpec> nodes, String clusterName, NodeLauncher launcher, boolean reuseData, Duration startupTimeout,
            Duration startDeadline, ClientAccess access) {
        this.nodes = nodes;
        this.clusterName = clusterName;
        this.launcher = launcher;
        this.reuseData = reuseData;
        this.startupTimeout = startupTimeout;
        this.startDeadline = startDeadline;
        this.access = access;
        this.processes = new AtomicReferenceArray<>(nodes.size());
        this.startupTimes = new Duration[nodes.size()];
    }

    /** {@link LocalCluster#start()}. */
    synchronized void start() {
        if (!prepared) {
            for (NodeSpec node : nodes) {
                if (!isRunning(node.index())) {
                    Leftovers.kill(node);
                }
            }
            if (!reuseData) {
                for (NodeSpec node : nodes) {
                    NodeLauncher.deleteRecursively(node.dir());
                }
            }
            prepared = true;
        }
        long begin = System.nanoTime();
        List<Integer> started = new ArrayList<>();
        try {
            for (NodeSpec node : nodes) {
                if (!isRunning(node.index())) {
                    launch(node, startDeadline);
                    started.add(node.index());
                }
            }
            awaitClusterView(startDeadline);
        } catch (StillStartingException e) {
            throw e; // it showed progress: left running, never stopped because a bound passed
        } catch (RuntimeException e) {
            started.forEach(this::destroyForcibly);
            throw e;
        }
        LOG.info(
                "Local Cassandra cluster '{}' of {} node(s) ready in {} s (per node: {}); contact points {}",
                clusterName,
                nodes.size(),
                seconds(Duration.ofNanos(System.nanoTime() - begin)),
                nodes.stream().map(n -> n.name() + " " + seconds(startupTimes[n.index()]) + " s")
                        .collect(Collectors.joining(", ")),
                contactPoints());
    }

    /** {@link LocalCluster#start(int, Duration)}. */
    synchronized void start(int node, Duration timeout) {
        NodeSpec spec = spec(node);
        prepared = true;
        if (isRunning(node)) {
            return;
        }
        try {
            launch(spec, timeout == null ? startDeadline : timeout);
            awaitClusterView(timeout == null ? startDeadline : timeout);
        } catch (StillStartingException e) {
            throw e; // it showed progress: left running, never stopped because a bound passed
        } catch (RuntimeException e) {
            destroyForcibly(node);
            throw e;
        }
    }

    /** {@link LocalCluster#stop()}. */
    synchronized void stop() {
        long begin = System.nanoTime();
        int stopped = 0;
        for (int i = 0; i < nodes.size(); i++) {
            Process p = processes.get(i);
            if (p != null && p.isAlive()) {
                p.destroy();
                stopped++;
            }
        }
        for (int i = 0; i < nodes.size(); i++) {
            awaitExitOrKill(i, STOP_TIMEOUT);
        }
        removeShutdownHook();
        if (stopped > 0) {
            LOG.info("Stopped {} node(s) of local Cassandra cluster '{}' in {} s", stopped, clusterName,
                    seconds(Duration.ofNanos(System.nanoTime() - begin)));
        }
    }

    /** {@link LocalCluster#stop(int)}. */
    synchronized void stop(int node) {
        spec(node);
        Process p = processes.get(node);
        if (p != null && p.isAlive()) {
            p.destroy();
            awaitExitOrKill(node, STOP_TIMEOUT);
        }
    }

    /** {@link LocalCluster#kill(int)}. */
    synchronized void kill(int node) {
        spec(node);
        destroyForcibly(node);
        LOG.info("Killed {} ({})", spec(node).name(), spec(node).host());
    }

    synchronized boolean isRunning(int node) {
        spec(node);
        Process p = processes.get(node);
        return p != null && p.isAlive();
    }

    /** {@link LocalCluster#startupTime(int)}. */
    synchronized Duration startupTime(int node) {
        spec(node);
        if (startupTimes[node] == null) {
            throw new IllegalStateException(spec(node).name() + " has not started");
        }
        return startupTimes[node];
    }

    /** {@link LocalCluster#credentials(String, String)}. */
    void credentials(String username, String password) {
        access = access.withCredentials(username, password);
    }

    /** {@link LocalCluster#nodetool(int, String...)}. */
    String nodetool(int node, String... args) {
        NodeSpec spec = spec(node);
        List<String> cmd =
                NodeConfig.nodetoolCommand(NodeLauncher.java(), jvmOptions(), spec, classpath(), List.of(args));
        return NodeLauncher.nodetool(spec, cmd, args);
    }

    /** The node's spec; fails for a number outside the cluster. */
    NodeSpec spec(int node) {
        if (node < 0 || node >= nodes.size()) {
            throw new IndexOutOfBoundsException(
                    "node " + node + " of a cluster of " + nodes.size() + " node(s)");
        }
        return nodes.get(node);
    }

    private void launch(NodeSpec node, Duration deadline) {
        launcher.prepare(node);
        List<String> cmd = launcher.daemonCommand(node, jvmOptions(), classpath());
        Instant launched = Instant.now();
        long begin = System.nanoTime();
        Process process = NodeLauncher.start(node, cmd, launched);
        processes.set(node.index(), process);
        addShutdownHook();
        LOG.info("Starting {} on {} (pid {}), logs in {}", node.name(), node.host(), process.pid(),
                node.logsDir());
        Readiness.Answer answer = Readiness.awaitCql(node, process, access, new StartWait(startupTimeout, deadline, Instant.now()));
        Duration took = Duration.ofNanos(answer.nanoTime() - begin);
        startupTimes[node.index()] = took;
        LOG.info("{} ({}) answered CQL {} s after launch (Cassandra {})", node.name(), node.host(),
                seconds(took), answer.releaseVersion());
    }

    /** Waits until the running nodes see each other UP, while their logs grow; {@code deadline}: a bound asked for, or null. */
    private void awaitClusterView(Duration deadline) {
        Map<NodeSpec, Process> running = new LinkedHashMap<>();
        for (NodeSpec node : nodes) {
            Process p = processes.get(node.index());
            if (p != null && p.isAlive()) {
                running.put(node, p);
            }
        }
        if (running.size() > 1) {
            long begin = System.nanoTime();
            Readiness.awaitClusterView(running, access, new StartWait(startupTimeout, deadline, Instant.now()));
            LOG.info("{} nodes see each other UP ({} s)", running.size(),
                    seconds(Duration.ofNanos(System.nanoTime() - begin)));
        }
    }

    private void awaitExitOrKill(int node, Duration timeout) {
        Process p = processes.get(node);
        if (p == null) {
            return;
        }
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("{} did not stop within {} s, killing it", spec(node).name(), timeout.toSeconds());
                destroyForcibly(node);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            destroyForcibly(node);
        }
    }

    private void destroyForcibly(int node) {
        Process p = processes.get(node);
        if (p == null) {
            return;
        }
        p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void addShutdownHook() {
        if (shutdownHook != null) {
            return;
        }
        Thread hook = new Thread(this::stopFromShutdownHook, "local-cluster-shutdown");
        try {
            Runtime.getRuntime().addShutdownHook(hook);
            shutdownHook = hook;
        } catch (IllegalStateException e) {
            // The JVM is already shutting down.
        }
    }

    private void removeShutdownHook() {
        if (shutdownHook == null) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down; the hook runs or has run.
        }
        shutdownHook = null;
    }

    /** Takes no lock: the thread holding it may be the one the JVM is waiting for. */
    private void stopFromShutdownHook() {
        List<Process> alive = new ArrayList<>();
        for (int i = 0; i < processes.length(); i++) {
            Process p = processes.get(i);
            if (p != null && p.isAlive()) {
                p.destroy();
                alive.add(p);
            }
        }
        long deadline = System.nanoTime() + SHUTDOWN_HOOK_TIMEOUT.toNanos();
        for (Process p : alive) {
            try {
                long left = Math.max(0, deadline - System.nanoTime());
                if (!p.waitFor(left, TimeUnit.NANOSECONDS)) {
                    p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
            }
        }
    }

    private List<InetSocketAddress> contactPoints() {
        return nodes.stream().map(NodeSpec::nativeEndpoint).collect(Collectors.toUnmodifiableList());
    }

    private synchronized String classpath() {
        if (classpath == null) {
            classpath =
                    NodeConfig.cassandraClasspath().stream()
                            .map(Path::toString)
                            .collect(Collectors.joining(java.io.File.pathSeparator));
        }
        return classpath;
    }

    private synchronized List<String> jvmOptions() {
        if (jvmOptions == null) {
            jvmOptions = NodeConfig.parseJvmOptions(NodeConfig.resource(NodeConfig.JVM_OPTIONS));
        }
        return jvmOptions;
    }

    private static String seconds(Duration d) {
        return d == null ? "-" : String.format(java.util.Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }
}
