package io.cassandragsi.conf;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * Starts a local cluster from the command line and stops it on SIGTERM or Ctrl-C.
 *
 * <pre>
 * LocalClusterMain [--nodes N] [--work DIR] [--address A] [--trigger-jar JAR...]
 *                  [--native-port P] [--storage-port P] [--jmx-port P] [--heap 1G]
 *                  [--set key=value]... [--keep-data]
 * </pre>
 */
public final class LocalClusterMain {
    private static final String USAGE =
            "Usage: LocalClusterMain [--nodes N] [--work DIR] [--address A] [--trigger-jar JAR...]\n"
                    + "         [--native-port P] [--storage-port P] [--jmx-port P] [--heap SIZE]\n"
                    + "         [--set key=value]... [--keep-data]\n"
                    + "  --nodes N          number of nodes (default 1)\n"
                    + "  --work DIR         holds node0/, node1/, ... (default target/local-cluster)\n"
                    + "  --address A        address of node 0; node i gets the last octet + i"
                    + " (default 127.0.0.1)\n"
                    + "  --trigger-jar JAR  jars for each node's triggers directory (one or more)\n"
                    + "  --jmx-port P       JMX port of node 0 on 127.0.0.1, node i uses P+i"
                    + " (default 7199)\n"
                    + "  --set key=value    a cassandra.yaml setting for every node\n"
                    + "  --keep-data        restart on the data in DIR instead of wiping it\n";

    private LocalClusterMain() {}

    public static void main(String[] args) throws InterruptedException {
        LocalCluster cluster;
        try {
            cluster = parse(args).build();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        PrintStream out = System.out;
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    out.println("Stopping " + cluster);
                                    cluster.stop();
                                    out.println("Stopped.");
                                },
                                "local-cluster-main-shutdown"));
        try {
            cluster.start();
        } catch (LocalClusterException e) {
            System.err.println("Local cluster failed to start: " + e.getMessage());
            System.exit(1);
            return;
        }
        for (int i = 0; i < cluster.size(); i++) {
            out.printf(
                    Locale.ROOT,
                    "node%d  %s  up in %.1f s  (log %s)%n",
                    i,
                    cluster.contactPoint(i),
                    seconds(cluster.startupTime(i)),
                    cluster.nodeLog(i));
        }
        out.println("Cassandra is up: contact points " + cluster.contactPoints()
                + ", local datacenter " + cluster.localDatacenter() + ". Ctrl-C stops it.");
        new CountDownLatch(1).await();
    }

    static LocalCluster.Builder parse(String[] args) {
        LocalCluster.Builder builder =
                LocalCluster.builder().workDir(Path.of("target", "local-cluster"));
        List<String> list = List.of(args);
        for (int i = 0; i < list.size(); i++) {
            String arg = list.get(i);
            switch (arg) {
                case "--nodes" -> builder.nodes(intValue(list, ++i, arg));
                case "--work" -> builder.workDir(Path.of(value(list, ++i, arg)));
                case "--address" -> builder.firstAddress(value(list, ++i, arg));
                case "--native-port" -> builder.nativePort(intValue(list, ++i, arg));
                case "--storage-port" -> builder.storagePort(intValue(list, ++i, arg));
                case "--jmx-port" -> builder.jmxPortBase(intValue(list, ++i, arg));
                case "--heap" -> builder.heap(value(list, ++i, arg));
                case "--keep-data" -> builder.reuseData(true);
                case "--set" -> {
                    String kv = value(list, ++i, arg);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--set needs key=value, got " + kv);
                    }
                    builder.yaml(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "--trigger-jar" -> {
                    List<Path> jars = new ArrayList<>();
                    while (i + 1 < list.size() && !list.get(i + 1).startsWith("--")) {
                        jars.add(Path.of(list.get(++i)));
                    }
                    if (jars.isEmpty()) {
                        throw new IllegalArgumentException("--trigger-jar needs at least one jar");
                    }
                    builder.triggerJars(jars);
                }
                default -> throw new IllegalArgumentException("Unknown argument: " + arg);
            }
        }
        return builder;
    }

    private static String value(List<String> args, int i, String option) {
        if (i >= args.size()) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args.get(i);
    }

    private static int intValue(List<String> args, int i, String option) {
        String v = value(args, i, option);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " needs a number, got " + v, e);
        }
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1000.0;
    }
}
