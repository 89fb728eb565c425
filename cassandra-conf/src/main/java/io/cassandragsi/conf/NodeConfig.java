package io.cassandragsi.conf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The pure part of the launcher: the committed resources, the per-node cassandra.yaml and the
 * command lines of a node and of nodetool. Starts no process.
 */
final class NodeConfig {
    static final String RESOURCE_DIR = "io/cassandragsi/conf/";
    static final String YAML_TEMPLATE = RESOURCE_DIR + "cassandra.yaml";
    static final String JVM_OPTIONS = RESOURCE_DIR + "jvm.options";
    static final String NODE_LOGBACK = RESOURCE_DIR + "logback-node.xml";
    static final String TOOLS_LOGBACK = RESOURCE_DIR + "logback-tools.xml";
    /** Written at build time: the runtime classpath of cassandra-all, one jar per line. */
    static final String CLASSPATH = RESOURCE_DIR + "cassandra.classpath";

    static final String DAEMON_CLASS = "org.apache.cassandra.service.CassandraDaemon";
    static final String NODETOOL_CLASS = "org.apache.cassandra.tools.NodeTool";
    /** SimpleSnitch puts every node in this datacenter. */
    static final String DATACENTER = "datacenter1";

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z_]+)}");
    private static final Pattern YAML_KEY = Pattern.compile("[a-z][a-z0-9_]*");
    private static final Pattern HEAP = Pattern.compile("[1-9][0-9]*[kKmMgG]");

    private NodeConfig() {}

    static String resource(String name) {
        try (InputStream in = NodeConfig.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new LocalClusterException("Resource " + name + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read resource " + name, e);
        }
    }

    /**
     * The jars of cassandra-all and its dependencies, as resolved when this module was built; fails
     * with a message naming the first missing jar.
     */
    static List<Path> cassandraClasspath() {
        List<Path> jars = new ArrayList<>();
        for (String line : resource(CLASSPATH).split("\n")) {
            if (!line.isBlank()) {
                jars.add(Path.of(line.strip()));
            }
        }
        for (Path jar : jars) {
            if (!Files.isRegularFile(jar)) {
                throw new LocalClusterException(
                        "Cassandra jar "
                                + jar
                                + " (listed in "
                                + CLASSPATH
                                + ") does not exist: rebuild cassandra-conf on this machine (mvn -pl cassandra-conf"
                                + " install)");
            }
        }
        return jars;
    }

    /** The options of jvm.options: one per line, blank lines and # comments skipped. */
    static List<String> parseJvmOptions(String text) {
        List<String> options = new ArrayList<>();
        for (String line : text.split("\n")) {
            String option = line.strip();
            if (!option.isEmpty() && !option.startsWith("#")) {
                options.add(option);
            }
        }
        return options;
    }

    /**
     * Fills the {@code ${name}} placeholders of the template, then applies the overrides: each
     * replaces the top-level key of the same name (with its indented block) or is appended.
     * Override values are raw YAML (use flow style for lists and maps) and may use the placeholders
     * too, e.g. {@code ${node_dir}}.
     */
    static String renderYaml(String template, Map<String, String> values, Map<String, String> overrides) {
        List<String> lines = new ArrayList<>(List.of(template.split("\n", -1)));
        if (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        for (Map.Entry<String, String> override : overrides.entrySet()) {
            String key = override.getKey();
            String line = key + ": " + override.getValue();
            int at = topLevelKeyLine(lines, key);
            if (at < 0) {
                lines.add(line);
            } else {
                int end = at + 1;
                while (end < lines.size() && isContinuation(lines.get(end))) {
                    end++;
                }
                lines.subList(at, end).clear();
                lines.add(at, line);
            }
        }
        String yaml = String.join("\n", lines) + "\n";
        Matcher m = PLACEHOLDER.matcher(yaml);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("No value for ${" + m.group(1) + "} in cassandra.yaml");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    static void validateYamlOverride(String key, String value) {
        if (key == null || !YAML_KEY.matcher(key).matches()) {
            throw new IllegalArgumentException(
                    "cassandra.yaml key must be lower_snake_case, got '" + key + "'");
        }
        if (value == null || value.isBlank() || value.contains("\n") || value.contains("\r")) {
            throw new IllegalArgumentException(
                    "cassandra.yaml value for " + key + " must be one line of YAML, got '" + value + "'");
        }
    }

    static void validateHeap(String heap) {
        if (heap == null || !HEAP.matcher(heap).matches()) {
            throw new IllegalArgumentException("heap must look like 512M or 1G, got '" + heap + "'");
        }
    }

    static int validatePort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("Not a port: " + port);
        }
        return port;
    }

    private static int topLevelKeyLine(List<String> lines, String key) {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.startsWith(key + ":")
                    && (line.length() == key.length() + 1
                            || Character.isWhitespace(line.charAt(key.length() + 1)))) {
                return i;
            }
        }
        return -1;
    }

    /** A line that belongs to the block of the key above it. */
    private static boolean isContinuation(String line) {
        return !line.isEmpty() && (Character.isWhitespace(line.charAt(0)) || line.startsWith("- "));
    }

    /** {@code first} with its last octet increased by {@code offset}. */
    static InetAddress addressOf(String first, int offset) {
        InetAddress base;
        try {
            base = InetAddress.getByName(first);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("Not an IPv4 address: " + first, e);
        }
        byte[] bytes = base.getAddress();
        if (bytes.length != 4 || !first.matches("[0-9.]+")) {
            throw new IllegalArgumentException("Not an IPv4 address: " + first);
        }
        int last = (bytes[3] & 0xff) + offset;
        if (last > 254) {
            throw new IllegalArgumentException(
                    "Node addresses starting at " + first + " run past .254 at node " + offset);
        }
        bytes[3] = (byte) last;
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The per-node values of the yaml placeholders. */
    static Map<String, String> yamlValues(NodeSpec node, NodeSpec seed, String clusterName) {
        return Map.of(
                "cluster_name", clusterName,
                "node_dir", node.dir().toAbsolutePath().toString(),
                "seeds", seed.gossipEndpoint(),
                "address", node.host(),
                "native_port", Integer.toString(node.nativePort()),
                "storage_port", Integer.toString(node.storagePort()));
    }

    /** The command line of a Cassandra node (the working directory is the node's directory). */
    static List<String> daemonCommand(
            Path java,
            List<String> jvmOptions,
            String heap,
            NodeSpec node,
            int ringDelayMillis,
            List<String> extraJvmOptions,
            String classpath) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-Xms" + heap);
        cmd.add("-Xmx" + heap);
        cmd.add("-XX:ErrorFile=" + node.logsDir().toAbsolutePath() + "/hs_err_%p.log");
        cmd.add("-Djava.io.tmpdir=" + node.tmpDir().toAbsolutePath());
        cmd.add("-Dcassandra-foreground=yes");
        cmd.add("-Dcassandra.config=" + node.yamlFile().toAbsolutePath().toUri());
        cmd.add("-Dcassandra.storagedir=" + node.dir().toAbsolutePath());
        cmd.add("-Dcassandra.logdir=" + node.logsDir().toAbsolutePath());
        cmd.add("-Dlogback.configurationFile=" + node.logbackFile().toAbsolutePath());
        cmd.add("-Dcassandra.triggers_dir=" + node.triggersDir().toAbsolutePath());
        cmd.add("-Dcassandra.jmx.local.port=" + node.jmxPort());
        // Fresh local clusters: nothing to wait for (see the facts notes).
        cmd.add("-Dcassandra.skip_wait_for_gossip_to_settle=0");
        cmd.add("-Dcassandra.ring_delay_ms=" + ringDelayMillis);
        // Not read by Cassandra: names the node in ps/pgrep output.
        cmd.add("-Dcassandra-gsi.node=" + node.name() + "@" + node.host());
        cmd.addAll(extraJvmOptions);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(DAEMON_CLASS);
        return cmd;
    }

    /** The command line of nodetool against one node's JMX port. */
    static List<String> nodetoolCommand(
            Path java, List<String> jvmOptions, NodeSpec node, String classpath, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        for (String option : jvmOptions) {
            if (option.startsWith("--add-")) {
                cmd.add(option);
            }
        }
        cmd.add("-Xmx128m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-Djava.net.preferIPv4Stack=true");
        // nodetool writes its history to ${user.home}/.cassandra
        cmd.add("-Duser.home=" + node.dir().toAbsolutePath());
        cmd.add("-Djava.io.tmpdir=" + node.tmpDir().toAbsolutePath());
        cmd.add("-Dlogback.configurationFile=" + node.confDir().resolve("logback-tools.xml").toAbsolutePath());
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(NODETOOL_CLASS);
        cmd.add("-h");
        cmd.add("127.0.0.1");
        cmd.add("-p");
        cmd.add(Integer.toString(node.jmxPort()));
        cmd.addAll(args);
        return cmd;
    }
}
