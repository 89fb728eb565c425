package io.cassandragsi.repair.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where a benchmark starts its node: the options shared by {@code bench read} and {@code bench repair}. */
final class NodeOptions {
    @Option(names = "--address", paramLabel = "IP", defaultValue = "127.0.0.1", description = "Address of the node (default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--jmx-port", paramLabel = "PORT", defaultValue = "7199", description = "JMX port of the node (default: ${DEFAULT-VALUE}).")
    int jmxPort;

    @Option(names = "--work", paramLabel = "DIR", description = "Node directory (default: target/bench/<benchmark>-node, wiped).")
    Path work;

    /** Starts the node in the given or the default directory under the project. */
    BenchNode start(Path home, String defaultDir, java.io.PrintWriter out) {
        return start(home, defaultDir, out, 1);
    }

    /** Starts {@code nodes} nodes (keyspaces replicated on each) in the given or the default directory under the project. */
    BenchNode start(Path home, String defaultDir, java.io.PrintWriter out, int nodes) {
        Path workDir = (work == null ? home.resolve(defaultDir) : work).toAbsolutePath().normalize();
        out.println(nodes == 1 ? "starting a node in " + workDir + "..." : "starting " + nodes + " nodes in " + workDir + "...");
        out.flush();
        return BenchNode.start(workDir, address, jmxPort, nodes);
    }
}
