package io.cassandragsi.conf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;

/**
 * Where one local node lives: its address, ports and directories under {@code <work>/node<i>/}.
 *
 * @param index 0-based node number
 * @param address listen and rpc address
 * @param nativePort CQL port
 * @param storagePort internode port
 * @param jmxPort JMX port, bound on the loopback address (so it differs per node)
 * @param dir the node's directory
 */
record NodeSpec(
        int index, InetAddress address, int nativePort, int storagePort, int jmxPort, Path dir) {

    String name() {
        return "node" + index;
    }

    String host() {
        return address.getHostAddress();
    }

    InetSocketAddress nativeEndpoint() {
        return new InetSocketAddress(address, nativePort);
    }

    /** How the node names itself and its peers over JMX and in gossip: {@code host:storagePort}. */
    String gossipEndpoint() {
        return host() + ":" + storagePort;
    }

    Path confDir() {
        return dir.resolve("conf");
    }

    Path yamlFile() {
        return confDir().resolve("cassandra.yaml");
    }

    Path logbackFile() {
        return confDir().resolve("logback.xml");
    }

    Path logsDir() {
        return dir.resolve("logs");
    }

    Path systemLog() {
        return logsDir().resolve("system.log");
    }

    Path stdoutLog() {
        return logsDir().resolve("stdout.log");
    }

    Path triggersDir() {
        return dir.resolve("triggers");
    }

    Path tmpDir() {
        return dir.resolve("tmp");
    }

    /** Every directory the node needs, created before it starts. */
    List<Path> directories() {
        return List.of(
                confDir(),
                dir.resolve("data"),
                dir.resolve("commitlog"),
                dir.resolve("hints"),
                dir.resolve("saved_caches"),
                dir.resolve("cdc_raw"),
                logsDir(),
                triggersDir(),
                tmpDir());
    }
}
