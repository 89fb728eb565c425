package io.cassandragsi.conf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

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
 *
 * <p>This class is the API and its {@link Builder}: {@code NodeProcesses} runs the nodes' JVMs,
 * {@code NodeLauncher} launches them and {@code Leftovers} deals with nodes left by earlier runs.
 */
public final class LocalCluster implements AutoCloseable {
    private final Path workDir;
    private final List<NodeSpec> nodes;
    private final String clusterName;
    private final TlsMaterial tls;
    private final NodeProcesses processes;

    private LocalCluster(Builder b) {
        this.workDir = b.workDir.toAbsolutePath().normalize();
        this.clusterName = b.clusterName;
        this.tls = b.tls;
        List<NodeSpec> specs = new ArrayList<>();
        for (int i = 0; i < b.nodes; i++) {
            InetAddress address = NodeConfig.addressOf(b.firstAddress, i);
            specs.add(
                    new NodeSpec(
                            i, address, b.nativePort, b.storagePort, b.jmxPortBase + i, workDir.resolve("node" + i)));
        }
        this.nodes = List.copyOf(specs);
        NodeLauncher launcher = new NodeLauncher(clusterName, b.heap, List.copyOf(b.triggerJars),
                Collections.unmodifiableMap(new LinkedHashMap<>(b.yamlOverrides)), List.copyOf(b.jvmOptions), nodes.get(0));
        this.processes = new NodeProcesses(nodes, clusterName, launcher, b.reuseData, b.startupTimeout, b.startDeadline, b.access);
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
    public void start() {
        processes.start();
    }

    /**
     * Starts one node on its existing data (after {@link #kill(int)} or {@link #stop(int)}) and
     * waits until it answers CQL and the running nodes see each other; does nothing if it runs.
     */
    public void start(int node) {
        processes.start(node, null);
    }

    /**
     * Starts one node, waiting while it makes progress; past {@code timeout} (null: the builder's
     * {@code startDeadline}) a {@link StillStartingException}, the node left running.
     */
    public void start(int node, Duration timeout) {
        processes.start(node, timeout);
    }

    /** Stops every node cleanly: SIGTERM to all, then waits for each, killing it after a minute. */
    public void stop() {
        processes.stop();
    }

    /** Stops one node cleanly (SIGTERM, then kill after a minute). */
    public void stop(int node) {
        processes.stop(node);
    }

    /** Kills one node hard (SIGKILL to the process and its descendants), as a crash would. */
    public void kill(int node) {
        processes.kill(node);
    }

    public boolean isRunning(int node) {
        return processes.isRunning(node);
    }

    /**
     * Runs {@code nodetool -h 127.0.0.1 -p <jmx port of node> args...} on the Cassandra classpath
     * and returns its output (stdout and stderr); fails if it exits non-zero or runs over two
     * minutes.
     */
    public String nodetool(int node, String... args) {
        return processes.nodetool(node, args);
    }

    /** The CQL endpoint of every node, running or not. */
    public List<InetSocketAddress> contactPoints() {
        return nodes.stream().map(NodeSpec::nativeEndpoint).collect(Collectors.toUnmodifiableList());
    }

    /** The CQL endpoint of one node. */
    public InetSocketAddress contactPoint(int node) {
        return processes.spec(node).nativeEndpoint();
    }

    /** The listen and rpc address of one node. */
    public InetAddress address(int node) {
        return processes.spec(node).address();
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
        return processes.spec(node).dir();
    }

    /** The node's Cassandra log, {@code <work>/node<i>/logs/system.log}. */
    public Path nodeLog(int node) {
        return processes.spec(node).systemLog();
    }

    /** The node's triggers directory (add a jar, then {@code nodetool(i, "reloadtriggers")}). */
    public Path triggersDir(int node) {
        return processes.spec(node).triggersDir();
    }

    /** The node's JMX port, on 127.0.0.1. */
    public int jmxPort(int node) {
        return processes.spec(node).jmxPort();
    }

    /**
     * How long the node's last start took, from launching its JVM to its first CQL answer.
     *
     * @throws IllegalStateException if the node never started
     */
    public Duration startupTime(int node) {
        return processes.startupTime(node);
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
        processes.credentials(username, password);
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
        private Duration startDeadline;
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
            this.nativePort = NodeConfig.validatePort(port);
            return this;
        }

        /** Internode port of every node (default 7000). */
        public Builder storagePort(int port) {
            this.storagePort = NodeConfig.validatePort(port);
            return this;
        }

        /** JMX port of node 0 on 127.0.0.1 (default 7199); node i uses base + i. */
        public Builder jmxPortBase(int port) {
            this.jmxPortBase = NodeConfig.validatePort(port);
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

        /**
         * How long a starting node may go without any of its logs growing before it is taken for
         * stuck and stopped (default 120 s; a node that makes progress is waited for as long as it
         * takes), and how long the cluster may take to form once its nodes answer.
         */
        public Builder startupTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("startup timeout must be positive, got " + timeout);
            }
            this.startupTimeout = timeout;
            return this;
        }

        /**
         * A bound on each node's start (default none): past it the start fails with a {@link
         * StillStartingException} and the node is left running, since it may still be starting.
         */
        public Builder startDeadline(Duration deadline) {
            if (deadline != null && (deadline.isNegative() || deadline.isZero())) {
                throw new IllegalArgumentException("start deadline must be positive, got " + deadline);
            }
            this.startDeadline = deadline;
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
                yaml("client_encryption_options", tls.clientEncryption());
                jvmOption("-Dcassandra.superuser_setup_delay_ms=0");
                access = new ClientAccess(tls.truststore(), tls.truststorePassword(), DEFAULT_SUPERUSER,
                        DEFAULT_SUPERUSER);
            }
            return new LocalCluster(this);
        }
    }
}
