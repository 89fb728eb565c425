package io.cassandragsi.repair.cli;

import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.conf.TlsMaterial;
import io.cassandragsi.repair.config.CassandraConfig;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.config.TlsConfig;
import io.cassandragsi.repair.schema.SchemaApplier;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi up}: the embedded default (docs/design.md section 10). Starts real local Cassandra 5.0
 * node(s) with the trigger jar installed, applies {@code schemas/examples/*.json}, starts the
 * {@link #SERVICES}, prints how to connect, and runs until Ctrl-C or SIGTERM, which stop everything.
 */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Start a local Cassandra 5.0 cluster with the trigger installed and the example schemas"
                + " applied; Ctrl-C stops everything.")
public final class UpCommand implements Callable<Integer> {
    /**
     * Services started, in order, after the schema is applied; stopped in reverse order before the
     * nodes. The repair service and its HTTP API belong here.
     */
    static final List<UpService.Starter> SERVICES = List.of(UpCommand::startServer);

    /** The repair service with its HTTP API, on the up session. */
    static UpService startServer(UpService.Context ctx) {
        io.cassandragsi.repair.service.GsiServer server = new io.cassandragsi.repair.service.GsiServer(ctx.session(), ctx.config());
        String url = ctx.config().http().scheme() + "://" + ctx.config().http().bind() + ":" + server.httpPort();
        return new UpService() {
            @Override
            public String describe() {
                return "repair service running; HTTP API on " + url + " (status: " + url + "/admin/status, metrics: " + url + "/metrics)";
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    static final String TRIGGER_JAR = "trigger/target/cassandra-gsi-trigger.jar";
    static final String EXAMPLES = "schemas/examples";
    private static final String MARKER = ".gsi-up";

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "Number of nodes: 1 or 3 (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--work", paramLabel = "DIR",
            description = "Directory for the nodes' data and logs, wiped at start (default: target/gsi-up in the repository).")
    Path work;

    @Option(names = "--address", paramLabel = "IP", defaultValue = "127.0.0.1",
            description = "Address of the first node; node i gets the last octet + i (default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--secure",
            description = "Password authentication, authorization and client TLS (a throwaway CA under the work directory),"
                    + " a least-privilege role for the repair service and a bearer token for the HTTP API; prints what to"
                    + " connect with.")
    boolean secure;

    @Option(names = "--jmx-port", paramLabel = "PORT", defaultValue = "7199",
            description = "JMX port of the first node on 127.0.0.1; node i uses PORT + i (default: ${DEFAULT-VALUE}).")
    int jmxPort;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (nodes != 1 && nodes != 3) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--nodes must be 1 or 3, got " + nodes);
        }
        PrintWriter out = spec.commandLine().getOut();
        Path home = home();
        Path triggerJar = home.resolve(TRIGGER_JAR);
        if (!Files.isRegularFile(triggerJar)) {
            throw new CommandFailedException("trigger jar not found: " + triggerJar + " (build it with `mvn -DskipTests install`"
                    + " in " + home + "; ./gsi does that when sources change)");
        }
        List<Path> examples = examples(home.resolve(EXAMPLES));
        List<TableDef> defs = SchemaApplier.readDefinitions(examples);
        Path workDir = (work == null ? home.resolve("target/gsi-up") : work).toAbsolutePath().normalize();
        prepareWorkDir(workDir);

        LocalCluster.Builder builder = LocalCluster.builder()
                .nodes(nodes)
                .workDir(workDir)
                .firstAddress(address)
                .jmxPortBase(jmxPort)
                .triggerJar(triggerJar);
        if (secure) {
            builder.secure(workDir.resolve("tls"));
        }
        LocalCluster cluster = builder.build();
        UpRunning running = new UpRunning(cluster, out);
        Thread hook = new Thread(running::stop, "gsi-up-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            out.println("starting " + nodes + " Cassandra node(s) in " + workDir + " (about " + (nodes * 15) + " s)...");
            out.flush();
            cluster.start();
            SecureSetup.Login admin = secure ? SecureSetup.replaceDefaultSuperuser(cluster) : null;
            GsiConfig config = secure ? SecureSetup.config(cluster, admin, HttpConfig.defaults()) : configFor(cluster);
            running.session = CqlSessions.open(config);
            String replication = "{'class': 'SimpleStrategy', 'replication_factor': " + Math.min(3, nodes) + "}";
            new SchemaApplier(config, out, spec.commandLine().getErr()).apply(running.session, defs, replication, false);
            UpService.Context context = new UpService.Context(cluster, running.session, config, out);
            UpWelcome.Secured secured = null;
            if (secure) {
                SecureSetup.Login service = SecureSetup.createServiceRole(running.session, SecureSetup.SERVICE_ROLE,
                        config.projectKeyspace(), defs);
                HttpConfig d = HttpConfig.defaults();
                GsiConfig serviceConfig = SecureSetup.config(cluster, service,
                        new HttpConfig(d.bind(), d.port(), TlsMaterial.randomSecret(), false));
                running.serviceSession = CqlSessions.open(serviceConfig);
                context = new UpService.Context(cluster, running.serviceSession, serviceConfig, out);
                secured = new UpWelcome.Secured(admin, service, serviceConfig, SecureSetup.writeServiceConfig(workDir, serviceConfig),
                        cluster.tls());
            }
            for (UpService.Starter starter : SERVICES) {
                running.services.push(starter.start(context));
            }
            running.control = new NodeControl(nodesOf(cluster), NodeControl.newToken()).listen(workDir);
            UpWelcome.printWelcome(out, cluster, defs, running.services, workDir, secured);
            out.flush();
            running.awaitNodeExit();
            throw new CommandFailedException(running.deadNodeMessage());
        } catch (RuntimeException | Error e) {
            running.stop();
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // shutting down: the hook runs
            }
        }
    }

    /** The cluster's nodes as {@code ./gsi node} acts on them. */
    private static NodeControl.Nodes nodesOf(LocalCluster cluster) {
        return new NodeControl.Nodes() {
            @Override
            public int size() {
                return cluster.size();
            }

            @Override
            public boolean isRunning(int node) {
                return cluster.isRunning(node);
            }

            @Override
            public String describe(int node) {
                InetSocketAddress cp = cluster.contactPoint(node);
                return "node" + node + " " + cp.getAddress().getHostAddress() + ":" + cp.getPort();
            }

            @Override
            public void kill(int node) {
                cluster.kill(node);
            }

            @Override
            public void stop(int node) {
                cluster.stop(node);
            }

            @Override
            public void start(int node, java.time.Duration timeout) {
                cluster.start(node, timeout);
            }
        };
    }

    private static GsiConfig configFor(LocalCluster cluster) {
        List<ContactPoint> points = cluster.contactPoints().stream()
                .map(a -> new ContactPoint(a.getAddress().getHostAddress(), a.getPort()))
                .collect(Collectors.toList());
        GsiConfig defaults = GsiConfig.defaults();
        return new GsiConfig(
                new CassandraConfig(points, cluster.localDatacenter(), null, null, TlsConfig.disabled(), null),
                defaults.consistency(), defaults.queue(), defaults.http());
    }

    static Path home() {
        String home = System.getProperty("gsi.home");
        if (home == null && System.getProperty("gsi.release.home") != null) {
            throw new CommandFailedException("this command needs the source checkout (it starts Cassandra from Maven's jars): run ./gsi at"
                    + " the repository's root; an installed release works against your own cluster (docs/deployment.md)");
        }
        if (home == null) {
            throw new CommandFailedException("gsi.home is not set: run through the ./gsi launcher at the repository root"
                    + " (or pass -Dgsi.home=<repository root>)");
        }
        return Path.of(home).toAbsolutePath().normalize();
    }

    private static List<Path> examples(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new CommandFailedException("example definitions not found: " + dir);
        }
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().toList();
            if (files.isEmpty()) {
                throw new CommandFailedException("no *.json definitions in " + dir);
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Wipes the work directory, but only one that {@code up} made (or an empty one). */
    private static void prepareWorkDir(Path dir) throws IOException {
        if (Files.exists(dir)) {
            boolean empty;
            try (Stream<Path> s = Files.list(dir)) {
                empty = s.findAny().isEmpty();
            }
            if (!empty && !Files.exists(dir.resolve(MARKER))) {
                throw new CommandFailedException(dir + " exists and was not made by gsi up; remove it or choose another --work");
            }
            deleteRecursively(dir);
        }
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(MARKER), "made by gsi up; wiped at each start\n");
    }

    private static void deleteRecursively(Path dir) throws IOException {
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
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
    }
}
