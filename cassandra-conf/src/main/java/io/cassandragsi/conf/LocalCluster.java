package io.cassandragsi.conf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Real Cassandra 5.0 nodes (usually 1 or 3) on this machine, each in its own JVM, started from
 * the cassandra-all jars on Maven Central.
 *
 * <p>Node {@code i} listens on the first address with its last octet increased by {@code i}
 * (127.0.0.1, 127.0.0.2, ...), with the same native and storage ports on every node, and JMX on
 * {@code 127.0.0.1:jmxPortBase+i}. It lives in {@code <work>/node<i>/}: conf, data, commitlog,
 * hints, saved_caches, cdc_raw, logs (system.log, stdout.log), triggers, and its own tmp (the
 * trigger class loader copies jars into {@code ${java.io.tmpdir}/lib}).
 *
 * <pre>{@code
 * try (LocalCluster cluster = LocalCluster.builder().workDir(dir).build()) {
 *   cluster.start();
 *   try (CqlSession session = CqlSession.builder()
 *       .addContactPoints(cluster.contactPoints())
 *       .withLocalDatacenter(cluster.localDatacenter()).build()) { ... }
 * }
 * }</pre>
 *
 * <p>Nodes start one after another; each is ready when it answers CQL, and a multi-node cluster
 * is ready when every node sees every other UP and in its ring. A JVM shutdown hook stops the
 * nodes if the JVM that started them exits first.
 */
public final class LocalCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);
    private static final int RING_DELAY_MILLIS = 1000;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHUTDOWN_HOOK_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration NODETOOL_TIMEOUT = Duration.ofMinutes(2);

    private final Path workDir;
    private final List<NodeSpec> nodes;
    private final String clusterName;
    private final String heap;
    private final List<Path> triggerJars;
    private final Map<String, String> yamlOverrides;
    private final List<String> extraJvmOptions;
    private final boolean reuseData;
    private final Duration startupTimeout;
    private volatile ClientAccess access;
    private final TlsMaterial tls;

    /** Read by the shutdown hook without the lock. */
    private final AtomicReferenceArray<Process> processes;

    private final Duration[] startupTimes;
    private boolean prepared;
    private Thread shutdownHook;
    private String classpath;
    private List<String> jvmOptions;

    private LocalCluster(Builder b) {
        this.workDir = b.workDir.toAbsolutePath().normalize();
        this.clusterName = b.clusterName;
        this.heap = b.heap;
        this.triggerJars = List.copyOf(b.triggerJars);
        this.yamlOverrides = Collections.unmodifiableMap(new LinkedHashMap<>(b.yamlOverrides));
        this.extraJvmOptions = List.copyOf(b.jvmOptions);
        this.reuseData = b.reuseData;
        this.startupTimeout = b.startupTimeout;
        this.access = b.access;
        this.tls = b.tls;
        List<NodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < b.nodes; i++) {
            InetAddress address = NodeConfig.addressOf(b.firstAddress, i);
            specs.add(
                    new NodeSpec(
                            i, address, b.nativePort, b.storagePort, b.jmxPortBase + i, workDir.resolve("node" + i)));
        }
        this.nodes = List.copyOf(specs);
        this.processes = new AtomicReferenceArray<>(b.nodes);
        this.startupTimes = new Duration[b.nodes];
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts every node that is not running, one after another, and waits until the cluster has
     * formed. The first call wipes the nodes' directories unless the builder said {@link
     * Builder#reuseData(boolean) reuseData}; later calls (after {@link #stop()}) restart on the
     * data. If a node fails to start, the nodes this call started are killed and the exception
     * carries the tail of the failed node's logs.
     */
    public synchronized void start() {
        if (!prepared) {
            for (NodeSpec node : nodes) {
                if (!isRunning(node.index())) {
                    killLeftovers(node);
                }
            }
            if (!reuseData) {
                for (NodeSpec node : nodes) {
                    deleteRecursively(node.dir());
                }
            }
            prepared = true;
        }
        long begin = System.nanoTime();
        List<Integer> started = new ArrayList<>();
        try {
            for (NodeSpec node : nodes) {
                if (!isRunning(node.index())) {
                    launch(node);
                    started.add(node.index());
                }
            }
            awaitClusterView();
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

    /**
     * Starts one node on its existing data (after {@link #kill(int)} or {@link #stop(int)}) and
     * waits until it answers CQL and the running nodes see each other; does nothing if it runs.
     */
    public synchronized void start(int node) {
        NodeSpec spec = spec(node);
        prepared = true;
        if (isRunning(node)) {
            return;
        }
        try {
            launch(spec);
            awaitClusterView();
        } catch (RuntimeException e) {
            destroyForcibly(node);
            throw e;
        }
    }

    /** Stops every node cleanly: SIGTERM to all, then waits for each, killing it after a minute. */
    public synchronized void stop() {
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

    /** Stops one node cleanly (SIGTERM, then kill after a minute). */
    public synchronized void stop(int node) {
        spec(node);
        Process p = processes.get(node);
        if (p != null && p.isAlive()) {
            p.destroy();
            awaitExitOrKill(node, STOP_TIMEOUT);
        }
    }

    /** Kills one node hard (SIGKILL to the process and its descendants), as a crash would. */
    public synchronized void kill(int node) {
        spec(node);
        destroyForcibly(node);
        LOG.info("Killed {} ({})", spec(node).name(), spec(node).host());
    }

    public synchronized boolean isRunning(int node) {
        spec(node);
        Process p = processes.get(node);
        return p != null && p.isAlive();
    }

    /**
     * Runs {@code nodetool -h 127.0.0.1 -p <jmx port of node> args...} on the Cassandra classpath
     * and returns its output (stdout and stderr); fails if it exits non-zero or runs over two
     * minutes.
     */
    public String nodetool(int node, String... args) {
        NodeSpec spec = spec(node);
        List<String> cmd =
                NodeConfig.nodetoolCommand(java(), jvmOptions(), spec, classpath(), List.of(args));
        try {
            Files.createDirectories(spec.tmpDir());
            Files.createDirectories(spec.confDir());
            Files.writeString(spec.confDir().resolve("logback-tools.xml"),
                    NodeConfig.resource(NodeConfig.TOOLS_LOGBACK));
            Path out = Files.createTempFile(spec.tmpDir(), "nodetool", ".out");
            try {
                Process p =
                        new ProcessBuilder(cmd)
                                .directory(spec.dir().toFile())
                                .redirectErrorStream(true)
                                .redirectOutput(out.toFile())
                                .start();
                if (!p.waitFor(NODETOOL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new LocalClusterException(
                            "nodetool " + String.join(" ", args) + " on " + spec.name() + " ran over "
                                    + NODETOOL_TIMEOUT.toSeconds() + " s");
                }
                String output = Files.readString(out, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new LocalClusterException(
                            "nodetool " + String.join(" ", args) + " on " + spec.name() + " exited with "
                                    + p.exitValue() + ":\n" + output);
                }
                return output;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run nodetool for " + spec.name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("Interrupted while running nodetool", e);
        }
    }

    /** The CQL endpoint of every node, running or not. */
    public List<InetSocketAddress> contactPoints() {
        return nodes.stream().map(NodeSpec::nativeEndpoint).collect(Collectors.toUnmodifiableList());
    }

    /** The CQL endpoint of one node. */
    public InetSocketAddress contactPoint(int node) {
        return spec(node).nativeEndpoint();
    }

    /** The listen and rpc address of one node. */
    public InetAddress address(int node) {
        return spec(node).address();
    }

    /** The local datacenter to give the driver (SimpleSnitch's). */
    public String localDatacenter() {
        return NodeConfig.DATACENTER;
    }

    public String clusterName() {
        return clusterName;
    }

    public int size() {
        return nodes.size();
    }

    public Path workDir() {
        return workDir;
    }

    /** {@code <work>/node<i>}. */
    public Path nodeDir(int node) {
        return spec(node).dir();
    }

    /** The node's Cassandra log, {@code <work>/node<i>/logs/system.log}. */
    public Path nodeLog(int node) {
        return spec(node).systemLog();
    }

    /** The node's triggers directory (add a jar, then {@code nodetool(i, "reloadtriggers")}). */
    public Path triggersDir(int node) {
        return spec(node).triggersDir();
    }

    /** The node's JMX port, on 127.0.0.1. */
    public int jmxPort(int node) {
        return spec(node).jmxPort();
    }

    /**
     * How long the node's last start took, from launching its JVM to its first CQL answer.
     *
     * @throws IllegalStateException if the node never started
     */
    public synchronized Duration startupTime(int node) {
        spec(node);
        if (startupTimes[node] == null) {
            throw new IllegalStateException(spec(node).name() + " has not started");
        }
        return startupTimes[node];
    }

    /** The CA's truststore and the nodes' keystore of a {@link Builder#secure} cluster, else null. */
    public TlsMaterial tls() {
        return tls;
    }

    /**
     * The role the launcher's own readiness checks log in with from now on: call it after replacing
     * the default superuser of a {@link Builder#secure secure} cluster, so that nodes restarted later
     * are still recognised as up.
     */
    public void credentials(String username, String password) {
        access = access.withCredentials(username, password);
    }

    /** Same as {@link #stop()}. */
    @Override
    public void close() {
        stop();
    }

    @Override
    public String toString() {
        return "LocalCluster{" + clusterName + ", " + nodes.size() + " node(s) at " + contactPoints()
                + ", " + workDir + "}";
    }

    // ---------------------------------------------------------------------------------------------

    private void launch(NodeSpec node) {
        killLeftovers(node);
        prepareFiles(node);
        requireFree(node);
        List<String> cmd =
                NodeConfig.daemonCommand(
                        java(), jvmOptions(), heap, node, RING_DELAY_MILLIS, extraJvmOptions, classpath());
        Instant launched = Instant.now();
        long begin = System.nanoTime();
        Process process;
        try {
            Files.writeString(
                    node.stdoutLog(),
                    "=== " + launched + " starting " + node.name() + ": " + String.join(" ", cmd) + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            ProcessBuilder pb =
                    new ProcessBuilder(cmd)
                            .directory(node.dir().toFile())
                            .redirectErrorStream(true)
                            .redirectOutput(ProcessBuilder.Redirect.appendTo(node.stdoutLog().toFile()));
            pb.environment().put("MALLOC_ARENA_MAX", "4");
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + node.name(), e);
        }
        processes.set(node.index(), process);
        addShutdownHook();
        LOG.info("Starting {} on {} (pid {}), logs in {}", node.name(), node.host(), process.pid(),
                node.logsDir());
        Readiness.Answer answer =
                Readiness.awaitCql(node, process, access, Instant.now().plus(startupTimeout));
        Duration took = Duration.ofNanos(answer.nanoTime() - begin);
        startupTimes[node.index()] = took;
        LOG.info("{} ({}) answered CQL {} s after launch (Cassandra {})", node.name(), node.host(),
                seconds(took), answer.releaseVersion());
    }

    private void awaitClusterView() {
        Map<NodeSpec, Process> running = new LinkedHashMap<>();
        for (NodeSpec node : nodes) {
            Process p = processes.get(node.index());
            if (p != null && p.isAlive()) {
                running.put(node, p);
            }
        }
        if (running.size() > 1) {
            long begin = System.nanoTime();
            Readiness.awaitClusterView(running, access, Instant.now().plus(startupTimeout));
            LOG.info("{} nodes see each other UP ({} s)", running.size(),
                    seconds(Duration.ofNanos(System.nanoTime() - begin)));
        }
    }

    private void prepareFiles(NodeSpec node) {
        try {
            for (Path dir : node.directories()) {
                Files.createDirectories(dir);
            }
            String yaml =
                    NodeConfig.renderYaml(
                            NodeConfig.resource(NodeConfig.YAML_TEMPLATE),
                            NodeConfig.yamlValues(node, nodes.get(0), clusterName),
                            yamlOverrides);
            Files.writeString(node.yamlFile(), yaml, StandardCharsets.UTF_8);
            Files.writeString(node.logbackFile(), NodeConfig.resource(NodeConfig.NODE_LOGBACK));
            Files.writeString(node.confDir().resolve("logback-tools.xml"),
                    NodeConfig.resource(NodeConfig.TOOLS_LOGBACK));
            for (Path jar : triggerJars) {
                Files.copy(jar, node.triggersDir().resolve(jar.getFileName()),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare " + node.dir(), e);
        }
    }

    /**
     * Kills a node left running on this node directory by an earlier JVM that died without its
     * shutdown hook (kill -9 of a test run): recognised by its {@code -Dcassandra.config} argument,
     * which names this very directory.
     */
    private static void killLeftovers(NodeSpec node) {
        String marker = "-Dcassandra.config=" + node.yamlFile().toAbsolutePath().toUri();
        ProcessHandle.allProcesses()
                .filter(ProcessHandle::isAlive)
                .filter(h -> h.pid() != ProcessHandle.current().pid())
                .filter(h -> commandLine(h).contains(marker))
                .forEach(
                        h -> {
                            LOG.warn("Killing {} left over from an earlier run (pid {})", node.name(), h.pid());
                            h.descendants().forEach(ProcessHandle::destroyForcibly);
                            h.destroyForcibly();
                            try {
                                h.onExit().get(30, TimeUnit.SECONDS);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            } catch (java.util.concurrent.ExecutionException
                                    | java.util.concurrent.TimeoutException e) {
                                LOG.warn("{} left over from an earlier run (pid {}) did not exit", node.name(),
                                        h.pid());
                            }
                        });
    }

    /**
     * The process's arguments: from /proc on Linux, where {@link ProcessHandle.Info} gives none for
     * other processes and cuts the command line at 4096 characters.
     */
    private static List<String> commandLine(ProcessHandle h) {
        Path cmdline = Path.of("/proc", Long.toString(h.pid()), "cmdline");
        try {
            if (Files.isReadable(cmdline)) {
                return List.of(Files.readString(cmdline, StandardCharsets.UTF_8).split("\0"));
            }
        } catch (IOException e) {
            // gone meanwhile, or not ours to read
            return List.of();
        }
        return h.info().arguments().map(List::of).orElse(List.of());
    }

    /** A node still running from an earlier run would answer our readiness checks: refuse. */
    private static void requireFree(NodeSpec node) {
        List<String> busy = new ArrayList<>();
        if (Readiness.isListening(node.nativeEndpoint())) {
            busy.add(node.host() + ":" + node.nativePort() + " (native)");
        }
        if (Readiness.isListening(new InetSocketAddress(node.address(), node.storagePort()))) {
            busy.add(node.host() + ":" + node.storagePort() + " (storage)");
        }
        if (Readiness.isListening(new InetSocketAddress("127.0.0.1", node.jmxPort()))) {
            busy.add("127.0.0.1:" + node.jmxPort() + " (JMX)");
        }
        if (!busy.isEmpty()) {
            throw new LocalClusterException(
                    "Cannot start " + node.name() + ": already in use: " + String.join(", ", busy)
                            + " (a node left over from an earlier run, or another cluster: choose other"
                            + " addresses or JMX ports)");
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

    private NodeSpec spec(int node) {
        if (node < 0 || node >= nodes.size()) {
            throw new IndexOutOfBoundsException(
                    "node " + node + " of a cluster of " + nodes.size() + " node(s)");
        }
        return nodes.get(node);
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

    private static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    private static String seconds(Duration d) {
        return d == null ? "-" : String.format(java.util.Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try {
            Files.walkFileTree(
                    dir,
                    new SimpleFileVisitor<>() {
                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                                throws IOException {
                            Files.delete(file);
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                            if (e != null) {
                                throw e;
                            }
                            Files.delete(d);
                            return FileVisitResult.CONTINUE;
                        }
                    });
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot wipe " + dir, e);
        }
    }

    /** The role Cassandra creates on a fresh cluster with password authentication (password alike). */
    public static final String DEFAULT_SUPERUSER = "cassandra";

    /**
     * What {@link Builder#secure} sets besides {@code client_encryption_options}. {@code
     * user_timestamps_enabled} is Cassandra's default, set here to say that it must stay: the repair
     * service writes index cells {@code USING TIMESTAMP}, ten times a microsecond clock, and the
     * guardrail applies to every role that is not a superuser. The {@code maximum_timestamp_*}
     * thresholds stay unset for the same reason.
     */
    public static final Map<String, String> SECURE_YAML =
            Map.of(
                    "authenticator", "{class_name: org.apache.cassandra.auth.PasswordAuthenticator}",
                    "authorizer", "{class_name: org.apache.cassandra.auth.CassandraAuthorizer}",
                    "role_manager", "{class_name: org.apache.cassandra.auth.CassandraRoleManager}",
                    "user_timestamps_enabled", "true");

    /** {@code client_encryption_options}: TLS required on the native port, no client certificates. */
    static String clientEncryption(TlsMaterial tls) {
        return "{enabled: true, optional: false, keystore: '" + tls.nodeKeystore().toAbsolutePath()
                + "', keystore_password: '" + tls.nodeKeystorePassword() + "', truststore: '"
                + tls.truststore().toAbsolutePath() + "', truststore_password: '"
                + tls.truststorePassword() + "', store_type: PKCS12, require_client_auth: false}";
    }

    /** Settings of a {@link LocalCluster}; only {@link #workDir(Path)} is required. */
    public static final class Builder {
        private int nodes = 1;
        private Path workDir;
        private String firstAddress = "127.0.0.1";
        private int nativePort = 9042;
        private int storagePort = 7000;
        private int jmxPortBase = 7199;
        private String heap = "1G";
        private String clusterName = "cassandra-gsi";
        private final List<Path> triggerJars = new ArrayList<>();
        private final Map<String, String> yamlOverrides = new LinkedHashMap<>();
        private final List<String> jvmOptions = new ArrayList<>();
        private boolean reuseData;
        private Duration startupTimeout = Duration.ofSeconds(120);
        private ClientAccess access = ClientAccess.plain();
        private Path tlsDir;
        private TlsMaterial tls;

        private Builder() {}

        /**
         * Nodes with password authentication ({@code PasswordAuthenticator}), authorization ({@code
         * CassandraAuthorizer}, {@code CassandraRoleManager}) and client-to-node TLS required on the
         * native port; see {@link #SECURE_YAML}. {@link #build()} makes a throwaway CA and the nodes'
         * certificate in {@code tlsDir} ({@link TlsMaterial}; the directory must not hold them yet).
         * The default superuser {@code cassandra} is created at once (no 10-s setup delay), and the
         * launcher's own checks connect with TLS as that role until {@link
         * LocalCluster#credentials} says otherwise. Internode traffic and JMX (loopback only) are left
         * as they are.
         */
        public Builder secure(Path tlsDir) {
            this.tlsDir = tlsDir;
            return this;
        }

        /** Number of nodes (default 1). */
        public Builder nodes(int nodes) {
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes must be at least 1, got " + nodes);
            }
            this.nodes = nodes;
            return this;
        }

        /** The directory that holds {@code node<i>/} for each node (required). */
        public Builder workDir(Path workDir) {
            this.workDir = workDir;
            return this;
        }

        /** Address of node 0 (default 127.0.0.1); node i gets the last octet increased by i. */
        public Builder firstAddress(String firstAddress) {
            NodeConfig.addressOf(firstAddress, 0);
            this.firstAddress = firstAddress;
            return this;
        }

        /** CQL port of every node (default 9042). */
        public Builder nativePort(int port) {
            this.nativePort = port(port);
            return this;
        }

        /** Internode port of every node (default 7000). */
        public Builder storagePort(int port) {
            this.storagePort = port(port);
            return this;
        }

        /** JMX port of node 0 on 127.0.0.1 (default 7199); node i uses base + i. */
        public Builder jmxPortBase(int port) {
            this.jmxPortBase = port(port);
            return this;
        }

        /** Heap of each node, {@code -Xms} = {@code -Xmx} (default 1G); G1 sizes the young generation. */
        public Builder heap(String heap) {
            NodeConfig.validateHeap(heap);
            this.heap = heap;
            return this;
        }

        /** {@code cluster_name} (default cassandra-gsi). */
        public Builder clusterName(String clusterName) {
            if (clusterName == null || !clusterName.matches("[A-Za-z0-9_.-]+")) {
                throw new IllegalArgumentException(
                        "cluster name must be letters, digits, '_', '.' or '-', got '" + clusterName + "'");
            }
            this.clusterName = clusterName;
            return this;
        }

        /** A jar copied into each node's triggers directory before it starts. */
        public Builder triggerJar(Path jar) {
            triggerJars.add(jar);
            return this;
        }

        public Builder triggerJars(List<Path> jars) {
            triggerJars.addAll(jars);
            return this;
        }

        /**
         * Sets a top-level cassandra.yaml key on every node, replacing the template's value or adding
         * it. The value is one line of YAML (flow style for lists and maps) and may use {@code
         * ${node_dir}}, {@code ${address}} and the template's other placeholders.
         */
        public Builder yaml(String key, String value) {
            NodeConfig.validateYamlOverride(key, value);
            yamlOverrides.put(key, value);
            return this;
        }

        public Builder yaml(Map<String, String> overrides) {
            overrides.forEach(this::yaml);
            return this;
        }

        /** An extra JVM option for every node (after the defaults, so it wins). */
        public Builder jvmOption(String option) {
            jvmOptions.add(option);
            return this;
        }

        /**
         * Whether the first {@link LocalCluster#start()} keeps what is in the node directories
         * (restart on existing data) instead of wiping them (default false: wipe).
         */
        public Builder reuseData(boolean reuseData) {
            this.reuseData = reuseData;
            return this;
        }

        /** How long a node may take to answer CQL, and the cluster to form (default 120 s). */
        public Builder startupTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startup timeout must be positive, got " + timeout);
            }
            this.startupTimeout = timeout;
            return this;
        }

        public LocalCluster build() {
            if (workDir == null) {
                throw new IllegalStateException("workDir is required");
            }
            String path = workDir.toAbsolutePath().toString();
            if (path.contains("'") || path.contains("\n")) {
                throw new IllegalArgumentException("work directory path cannot be put in YAML: " + path);
            }
            NodeConfig.addressOf(firstAddress, nodes - 1);
            if (jmxPortBase + nodes - 1 > 65535) {
                throw new IllegalArgumentException("JMX ports run past 65535");
            }
            for (Path jar : triggerJars) {
                if (!Files.isRegularFile(jar)) {
                    throw new IllegalArgumentException("Trigger jar " + jar + " does not exist");
                }
            }
            if (tlsDir != null && tls == null) {
                List<InetAddress> addresses = new ArrayList<>();
                for (int i = 0; i < nodes; i++) {
                    addresses.add(NodeConfig.addressOf(firstAddress, i));
                }
                tls = TlsMaterial.generate(tlsDir, addresses);
                SECURE_YAML.forEach(this::yaml);
                yaml("client_encryption_options", clientEncryption(tls));
                jvmOption("-Dcassandra.superuser_setup_delay_ms=0");
                access = new ClientAccess(tls.truststore(), tls.truststorePassword(), DEFAULT_SUPERUSER,
                        DEFAULT_SUPERUSER);
            }
            return new LocalCluster(this);
        }

        private static int port(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("Not a port: " + port);
            }
            return port;
        }
    }
}
