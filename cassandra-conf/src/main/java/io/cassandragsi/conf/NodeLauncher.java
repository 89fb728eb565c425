package io.cassandragsi.conf;

import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The JVMs a local cluster runs on the Cassandra classpath, and the files they need: a node's
 * directories and configuration, its command line and its process (stdout and stderr appended to
 * its stdout.log), and nodetool against a node. Holds settings only: the processes are
 * {@link NodeProcesses}'s.
 */
final class NodeLauncher {
    private static final int RING_DELAY_MILLIS = 1000;
    private static final Duration NODETOOL_TIMEOUT = Duration.ofMinutes(2);

    private final String clusterName;
    private final String heap;
    private final List<Path> triggerJars;
    private final Map<String, String> yamlOverrides;
    private final List<String> extraJvmOptions;
    /** Node 0, every node's seed. */
    private final NodeSpec seed;

    NodeLauncher(String clusterName, String heap, List<Path> triggerJars, Map<String, String> yamlOverrides,
            List<String> extraJvmOptions, NodeSpec seed) {
        this.clusterName = clusterName;
        this.heap = heap;
        this.triggerJars = triggerJars;
        this.yamlOverrides = yamlOverrides;
        this.extraJvmOptions = extraJvmOptions;
        this.seed = seed;
    }

    /**
     * Makes the node ready to launch: kills a node left running on its directory, writes its
     * directories and files, and refuses to go on if its ports are taken.
     */
    void prepare(NodeSpec node) {
        Leftovers.kill(node);
        prepareFiles(node);
        Leftovers.requireFree(node);
    }

    /** The node's command line, with the build's JVM options and the Cassandra classpath. */
    List<String> daemonCommand(NodeSpec node, List<String> jvmOptions, String classpath) {
        return NodeConfig.daemonCommand(java(), jvmOptions, heap, node, RING_DELAY_MILLIS, extraJvmOptions, classpath);
    }

    /** Starts the node's JVM, first noting in its stdout.log when and how. */
    static Process start(NodeSpec node, List<String> cmd, Instant launched) {
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
            return pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + node.name(), e);
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
                            NodeConfig.yamlValues(node, seed, clusterName),
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
     * Runs {@code nodetool -h 127.0.0.1 -p <jmx port of node> args...} ({@code cmd}, from {@link
     * NodeConfig#nodetoolCommand}) and returns its output (stdout and stderr); fails if it exits
     * non-zero or runs over two minutes.
     */
    static String nodetool(NodeSpec spec, List<String> cmd, String... args) {
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

    static Path java() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    static void deleteRecursively(Path dir) {
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
}
