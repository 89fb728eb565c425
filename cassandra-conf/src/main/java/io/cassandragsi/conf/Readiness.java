package io.cassandragsi.conf;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.loadbalancing.NodeDistance;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** Waits for nodes by asking them, never by sleeping a fixed time. */
final class Readiness {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(LocalCluster.class);
    private static final Duration POLL = Duration.ofMillis(200);
    private static final int TAIL_LINES = 40;

    private Readiness() {}

    /** Whether something accepts TCP connections at the address. */
    static boolean isListening(InetSocketAddress address) {
        try (Socket socket = new Socket()) {
            socket.connect(address, 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** A node's first CQL answer: its release version, and {@link System#nanoTime()} when it came. */
    record Answer(String releaseVersion, long nanoTime) {}

    /** How often a node still starting says what it does. */
    private static final Duration REPORT_EVERY = Duration.ofSeconds(15);

    /**
     * Waits until the node answers {@code SELECT release_version FROM system.local} over CQL, as long
     * as its process lives and its logs advance ({@link StartWait}); fails at once if the process
     * exits. Every 15 s it logs what the node's log last said (commit log replay, joining, ...).
     */
    static Answer awaitCql(NodeSpec node, Process process, ClientAccess access, StartWait wait) {
        DriverException last = null;
        Instant start = Instant.now();
        Instant nextReport = start.plus(REPORT_EVERY);
        while (true) {
            failIfExited(node, process, "while starting");
            Instant now = Instant.now();
            StartWait.Verdict verdict = wait.observe(StartWait.logBytes(node), now);
            if (verdict != StartWait.Verdict.WAIT) {
                String message = node.name() + " (" + node.host() + ") did not answer CQL on port " + node.nativePort()
                        + (verdict == StartWait.Verdict.STALLED
                                ? ": its logs have not grown for " + wait.silentFor(now).toSeconds() + " s, it looks stuck"
                                : " within the time asked for; it is left running and may still be starting")
                        + (last == null ? "" : " (last error: " + last.getMessage() + ")") + "\n" + Logs.nodeTails(node, TAIL_LINES);
                throw verdict == StartWait.Verdict.STALLED ? new LocalClusterException(message) : new StillStartingException(message);
            }
            if (now.isAfter(nextReport)) {
                nextReport = now.plus(REPORT_EVERY);
                LOG.info("{} still starting after {} s; its log: {}", node.name(), Duration.between(start, now).toSeconds(),
                        Logs.tail(node.systemLog(), 1).strip());
            }
            if (isListening(node.nativeEndpoint())) {
                try (CqlSession session = connect(node, access)) {
                    Row row = session.execute("SELECT release_version FROM system.local").one();
                    if (row != null) {
                        return new Answer(row.getString("release_version"), System.nanoTime());
                    }
                } catch (DriverException e) {
                    last = e;
                }
            }
            pause();
        }
    }

    /**
     * Waits until every running node sees every running node UP and in its ring, and lists it in
     * system.peers_v2.
     */
    static void awaitClusterView(
            Map<NodeSpec, Process> running, ClientAccess access, StartWait wait) {
        Collection<NodeSpec> nodes = running.keySet();
        Map<NodeSpec, CqlSession> sessions = new LinkedHashMap<>();
        try {
            List<String> problems = List.of();
            while (true) {
                for (Map.Entry<NodeSpec, Process> e : running.entrySet()) {
                    failIfExited(e.getKey(), e.getValue(), "while the cluster formed");
                }
                // as for one node's start (docs/design.md section 10): waits while any node's logs grow (gossip,
                // joining, hints), fails once all are silent for the stall bound, and leaves them running past a bound asked for
                Instant now = Instant.now();
                long logBytes = nodes.stream().mapToLong(StartWait::logBytes).sum();
                StartWait.Verdict verdict = wait.observe(logBytes, now);
                if (verdict == StartWait.Verdict.STALLED) {
                    throw new LocalClusterException("The local cluster did not form: no node's log has grown for "
                            + wait.silentFor(now).toSeconds() + " s, and " + String.join("; ", problems));
                }
                if (verdict == StartWait.Verdict.TIMED_OUT) {
                    throw new StillStartingException("The local cluster had not formed within the time asked for; its nodes are left"
                            + " running and may still be forming: " + String.join("; ", problems));
                }
                problems = new ArrayList<>();
                for (NodeSpec observer : nodes) {
                    try {
                        CqlSession session = sessions.computeIfAbsent(observer, n -> connect(n, access));
                        problems.addAll(view(observer, session).problems(observer, nodes));
                    } catch (DriverException | IOException | JMException e) {
                        problems.add(observer.name() + ": " + e);
                    }
                }
                if (problems.isEmpty()) {
                    return;
                }
                pause();
            }
        } finally {
            sessions.values().forEach(CqlSession::close);
        }
    }

    static PeerView view(NodeSpec node, CqlSession session) throws IOException, JMException {
        JMXServiceURL url =
                new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + node.jmxPort() + "/jmxrmi");
        Set<String> live;
        Set<String> unreachable;
        Set<String> ring;
        Set<String> joining;
        try (JMXConnector connector = JMXConnectorFactory.connect(url)) {
            MBeanServerConnection mbeans = connector.getMBeanServerConnection();
            ObjectName storage = new ObjectName("org.apache.cassandra.db:type=StorageService");
            live = endpoints((Collection<?>) mbeans.getAttribute(storage, "LiveNodesWithPort"));
            unreachable = endpoints((Collection<?>) mbeans.getAttribute(storage, "UnreachableNodesWithPort"));
            joining = endpoints((Collection<?>) mbeans.getAttribute(storage, "JoiningNodesWithPort"));
            ring = endpoints(((Map<?, ?>) mbeans.getAttribute(storage, "TokenToEndpointWithPortMap")).values());
        }
        Set<String> peers = new HashSet<>();
        for (Row row : session.execute("SELECT peer FROM system.peers_v2")) {
            peers.add(row.getInetAddress("peer").getHostAddress());
        }
        return new PeerView(live, unreachable, ring, joining, peers);
    }

    /** A small session that talks to this node only, with TLS and credentials when given. */
    static CqlSession connect(NodeSpec node, ClientAccess access) {
        ProgrammaticDriverConfigLoaderBuilder builder =
                DriverConfigLoader.programmaticBuilder()
                        .withString(DefaultDriverOption.SESSION_NAME, "local-cluster-" + node.name())
                        .withDuration(DefaultDriverOption.CONNECTION_CONNECT_TIMEOUT, Duration.ofSeconds(2))
                        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(5))
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(10))
                        .withBoolean(DefaultDriverOption.METADATA_SCHEMA_ENABLED, false)
                        .withBoolean(DefaultDriverOption.METADATA_TOKEN_MAP_ENABLED, false)
                        .withInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE, 1)
                        // close after 100 ms of quiet instead of netty's 2 s; with none at all, a listener the
                        // closing session still notifies finds its event loop gone and netty logs an ERROR. The
                        // timeout shares the unit and must not be below the quiet period (netty refuses, and
                        // the close never completes)
                        .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_QUIET_PERIOD, 100)
                        .withInt(DefaultDriverOption.NETTY_IO_SHUTDOWN_TIMEOUT, 2000)
                        .withString(DefaultDriverOption.NETTY_IO_SHUTDOWN_UNIT, "MILLISECONDS")
                        .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_QUIET_PERIOD, 100)
                        .withInt(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_TIMEOUT, 2000)
                        .withString(DefaultDriverOption.NETTY_ADMIN_SHUTDOWN_UNIT, "MILLISECONDS");
        if (access.truststore() != null) {
            builder
                    .withString(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS, "DefaultSslEngineFactory")
                    .withString(DefaultDriverOption.SSL_TRUSTSTORE_PATH, access.truststore().toString())
                    .withString(DefaultDriverOption.SSL_TRUSTSTORE_PASSWORD, access.truststorePassword());
        }
        if (access.username() != null) {
            builder
                    .withString(DefaultDriverOption.AUTH_PROVIDER_CLASS, "PlainTextAuthProvider")
                    .withString(DefaultDriverOption.AUTH_PROVIDER_USER_NAME, access.username())
                    .withString(DefaultDriverOption.AUTH_PROVIDER_PASSWORD, access.password());
        }
        DriverConfigLoader config = builder.build();
        InetSocketAddress endpoint = node.nativeEndpoint();
        return CqlSession.builder()
                .withConfigLoader(config)
                .addContactPoint(endpoint)
                .withLocalDatacenter(NodeConfig.DATACENTER)
                .withNodeDistanceEvaluator(
                        (n, dc) -> endpoint.equals(n.getEndPoint().resolve()) ? null : NodeDistance.IGNORED)
                .build();
    }

    private static Set<String> endpoints(Collection<?> values) {
        Set<String> out = new HashSet<>();
        for (Object value : values) {
            out.add(PeerView.endpoint(value));
        }
        return out;
    }

    static void failIfExited(NodeSpec node, Process process, String when) {
        if (!process.isAlive()) {
            throw new LocalClusterException(
                    node.name()
                            + " ("
                            + node.host()
                            + ") exited with code "
                            + process.exitValue()
                            + " "
                            + when
                            + "\n"
                            + Logs.nodeTails(node, TAIL_LINES));
        }
    }

    private static void pause() {
        try {
            Thread.sleep(POLL.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LocalClusterException("Interrupted while waiting for the local cluster", e);
        }
    }
}
