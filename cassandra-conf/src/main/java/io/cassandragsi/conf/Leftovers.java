package io.cassandragsi.conf;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Nodes left running by an earlier run: killed when they are ours, refused when they hold a node's ports. */
final class Leftovers {
    /** The launcher's logger: its lines name LocalCluster, whichever of its classes writes them. */
    private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

    private Leftovers() {}

    /**
     * Kills a node left running on this node directory by an earlier JVM that died without its
     * shutdown hook (kill -9 of a test run): recognised by its {@code -Dcassandra.config} argument,
     * which names this very directory.
     */
    static void kill(NodeSpec node) {
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
    static void requireFree(NodeSpec node) {
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
}
