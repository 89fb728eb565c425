package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi up}: the embedded default (DESIGN.md section 5). Starts real local Cassandra 5.0
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
        String url = "http://" + ctx.config().http().bind() + ":" + server.httpPort();
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
        Running running = new Running(cluster, out);
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
            Secured secured = null;
            if (secure) {
                SecureSetup.Login service = SecureSetup.createServiceRole(running.session, SecureSetup.SERVICE_ROLE,
                        config.projectKeyspace(), defs);
                HttpConfig d = HttpConfig.defaults();
                GsiConfig serviceConfig = SecureSetup.config(cluster, service,
                        new HttpConfig(d.bind(), d.port(), TlsMaterial.randomSecret(), false));
                running.serviceSession = CqlSessions.open(serviceConfig);
                context = new UpService.Context(cluster, running.serviceSession, serviceConfig, out);
                secured = new Secured(admin, service, serviceConfig, SecureSetup.writeServiceConfig(workDir, serviceConfig),
                        cluster.tls());
            }
            for (UpService.Starter starter : SERVICES) {
                running.services.push(starter.start(context));
            }
            running.control = new NodeControl(nodesOf(cluster), NodeControl.newToken()).listen(workDir);
            printWelcome(out, cluster, defs, running.services, workDir, secured);
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

    /** The cluster, session and services of one {@code up}; stopped once, by Ctrl-C or on failure. */
    private static final class Running {
        final LocalCluster cluster;
        final PrintWriter out;
        final Deque<UpService> services = new ArrayDeque<>();
        volatile CqlSession session;
        /** The repair service's own session ({@code --secure}: its least-privilege role), or null. */
        volatile CqlSession serviceSession;
        /** What {@code ./gsi node} talks to, or null before it listens. */
        volatile NodeControl control;
        private boolean stopped;
        private int deadNode = -1;

        Running(LocalCluster cluster, PrintWriter out) {
            this.cluster = cluster;
            this.out = out;
        }

        synchronized void stop() {
            if (stopped) {
                return;
            }
            stopped = true;
            out.println();
            out.println("stopping...");
            out.flush();
            if (control != null) {
                control.close();
            }
            while (!services.isEmpty()) {
                UpService s = services.pop();
                try {
                    s.close();
                } catch (RuntimeException e) {
                    out.println("stopping " + s.describe() + " failed: " + e.getMessage());
                }
            }
            if (serviceSession != null) {
                serviceSession.close();
            }
            if (session != null) {
                session.close();
            }
            cluster.stop();
            out.println("stopped.");
            out.flush();
        }

        /**
         * Blocks while every node runs, or is down because {@code ./gsi node} stopped or killed it
         * (Ctrl-C ends the JVM, and the shutdown hook stops everything).
         */
        void awaitNodeExit() throws InterruptedException {
            while (true) {
                for (int i = 0; i < cluster.size(); i++) {
                    NodeControl c = control;
                    if (!cluster.isRunning(i) && (c == null || !c.downOnPurpose(i))) {
                        synchronized (this) {
                            if (stopped) {
                                Thread.sleep(Long.MAX_VALUE);
                            }
                        }
                        deadNode = i;
                        return;
                    }
                }
                Thread.sleep(1000);
            }
        }

        String deadNodeMessage() {
            return "node" + deadNode + " (" + cluster.contactPoint(deadNode) + ") exited; see its log "
                    + cluster.nodeLog(deadNode);
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
            public void start(int node) {
                cluster.start(node);
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

    /** What {@code --secure} set up, for the welcome text. */
    private record Secured(SecureSetup.Login admin, SecureSetup.Login service, GsiConfig serviceConfig, Path configFile,
            TlsMaterial tls) {}

    private static void printSecure(PrintWriter out, String host, int port, Secured s) {
        out.println();
        out.println("Secure mode: password authentication, authorization, TLS required on the CQL port (client certificates not");
        out.println("required); internode traffic and JMX (127.0.0.1 only, no authentication) are not secured.");
        out.println("  CQL: " + host + ":" + port + " with TLS; the nodes' certificate is signed by a throwaway CA whose key is deleted");
        out.println("  truststore (driver): " + s.tls().truststore() + " (PKCS12, password " + s.tls().truststorePassword() + ")");
        out.println("  CA certificate (cqlsh): " + s.tls().caPem());
        out.println("  superuser (replaces cassandra, which can no longer log in): " + s.admin().role() + " / " + s.admin().password());
        out.println("  repair service role (least privilege, see README Security): " + s.service().role() + " / "
                + s.service().password());
        out.println("  HTTP token: " + s.serviceConfig().http().token());
        out.println("  the service's config, secrets in files: " + s.configFile());
        out.println("  cqlsh: SSL_CERTFILE=" + s.tls().caPem() + " cqlsh " + host + " " + port + " --ssl -u " + s.admin().role()
                + " -p '" + s.admin().password() + "'");
    }

    private static void printWelcome(PrintWriter out, LocalCluster cluster, List<TableDef> defs, Deque<UpService> services,
            Path workDir, Secured secured) {
        InetSocketAddress first = cluster.contactPoint(0);
        String cp = first.getAddress().getHostAddress() + ":" + first.getPort();
        out.println();
        out.println("Cassandra is up: " + cluster.size() + " node(s), CQL contact point" + (cluster.size() > 1 ? "s " : " ")
                + cluster.contactPoints().stream().map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                        .collect(Collectors.joining(", "))
                + ", local datacenter " + cluster.localDatacenter());
        for (TableDef def : defs) {
            out.println("  " + def.qualifiedName() + " with index(es) " + String.join(", ", def.indexes().keySet()));
        }
        List<UpService> started = new ArrayList<>(services);
        java.util.Collections.reverse(started);
        for (UpService s : started) {
            out.println("  " + s.describe());
        }
        if (secured != null) {
            printSecure(out, first.getAddress().getHostAddress(), first.getPort(), secured);
        }
        out.println();
        // ./gsi cql connects with the defaults; on a secure cluster the writer is the superuser, through cqlsh (above)
        String cql = secured == null ? "./gsi cql \"" : "";
        String end = secured == null ? "\"" : ";";
        out.println("Write a version (tids are timeuuids: now() makes one), e.g. with "
                + (secured == null ? "./gsi cql (or cqlsh " + cp + ")" : "cqlsh as " + secured.admin().role() + " (above)") + ":");
        out.println("  " + cql + "INSERT INTO wiki.revisions (key, tid, length, value) VALUES ('Main_Page', now(), 1024, 'Hello')" + end);
        String http = "http://" + HttpDefaults.BIND + ":" + HttpDefaults.PORT;
        String curl = secured == null ? "curl '" : "curl -H 'Authorization: Bearer " + secured.serviceConfig().http().token() + "' '";
        String query = secured == null ? "./gsi query " : "./gsi query --config " + secured.configFile() + " ";
        out.println("and read it through an index, from the index alone, cross-checked with the base table, or as of a moment:");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024'");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024?consistent=true&limit=10'");
        out.println("  " + curl + http + "/v1/wiki/revisions//by_length/1024?as_of=2026-01-01T00:00:00Z'");
        out.println("  " + query + "wiki.revisions by_length 1024 --consistent");
        out.println("or in CQL: SELECT * FROM wiki.idx_revisions_by_length_ever WHERE length = 1024;");
        out.println("An unversioned table (rows overwritten in place, like most tables) is indexed the same way:");
        out.println("  " + cql + "INSERT INTO app.users (id, email, country, age, name) VALUES ('u1', 'ann@example.com', 'fr', 34, 'Ann')" + end);
        out.println("  " + curl + http + "/v1/app/users//by_email/ann%40example.com?consistent=true'");
        out.println("  " + curl + http + "/v1/app/users//by_country/fr?ge=30'");
        out.println();
        out.println("Next:");
        if (secured == null) {
            out.println("  ./gsi schema apply --dry-run --contact-point " + cp + " " + EXAMPLES
                    + "    # compare the definitions with the cluster");
        } else {
            out.println("  ./gsi schema apply needs the superuser: a config like " + secured.configFile().getFileName()
                    + " with username " + secured.admin().role());
        }
        out.println("  logs: " + workDir + "/node0/logs/system.log");
        out.println("  from another terminal: ./gsi node status, ./gsi node kill|stop|start N (nodes numbered from 0)");
        out.println("Ctrl-C stops everything.");
    }

    /** Where {@code up} serves HTTP: the defaults of the config. */
    private static final class HttpDefaults {
        static final String BIND = io.cassandragsi.repair.config.HttpConfig.defaults().bind();
        static final int PORT = io.cassandragsi.repair.config.HttpConfig.defaults().port();
    }

    static Path home() {
        String home = System.getProperty("gsi.home");
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
