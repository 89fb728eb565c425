package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.schema.ProjectTables;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One real Cassandra 5.0.6 node for the whole suite (docs/design.md section 11), started from the Maven
 * jars with the trigger jar installed, and a keyspace per test class. Set
 * {@code -Dgsi.it.contact-point=host:port} (and {@code -Dgsi.it.datacenter}, default datacenter1)
 * to run against an existing cluster instead, for example one made with CCM: its nodes need the
 * trigger jar in their triggers directory, and the tests create keyspaces with replication factor 1
 * unless {@code -Dgsi.it.replication} says otherwise.
 */
public final class SharedCluster {
    public static final String REPLICATION = System.getProperty("gsi.it.replication",
            "{'class': 'SimpleStrategy', 'replication_factor': 1}");
    private static final String EXISTING = System.getProperty("gsi.it.contact-point", "").trim();
    private static final String TARGET = System.getProperty("gsi.it.target", "local").trim();
    /**
     * How every table the suite applies is maintained: {@code -Dgsi.it.maintenance=node} runs the
     * randomized oracle suites again with the in-node maintainer doing the plain diffs (docs/design.md
     * section 7.8), {@code =eventual} with eventual indexing (node maintenance, the entries written
     * after the write; section 7.11). Default: the repair service.
     */
    private static final String MODE = System.getProperty("gsi.it.maintenance", "service").trim();
    /** The suite's indexing: eventual when {@code -Dgsi.it.maintenance=eventual}, else atomic. */
    public static final Indexing INDEXING = MODE.equals(Indexing.EVENTUAL.jsonName()) ? Indexing.EVENTUAL : Indexing.ATOMIC;
    /** Who runs the sibling diffs of every table the suite applies. */
    public static final Maintenance MAINTENANCE = INDEXING == Indexing.EVENTUAL ? Maintenance.NODE : Maintenance.fromJson(MODE);
    private static LocalCluster cluster;
    private static CqlSession session;

    private SharedCluster() {}

    public static synchronized LocalCluster cluster() {
        if (!TARGET.equals("local") || !EXISTING.isEmpty()) {
            throw new IllegalStateException("the suite runs against " + (EXISTING.isEmpty() ? TARGET : EXISTING) + ", not a LocalCluster");
        }
        if (cluster == null) {
            Path jar = Path.of(System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar"));
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("trigger jar " + jar + " is missing: build with mvn install first");
            }
            cluster = LocalCluster.builder()
                    .nodes(1)
                    .workDir(Path.of(System.getProperty("gsi.it.work", "target/it-cluster")))
                    .firstAddress(System.getProperty("gsi.it.address", "127.0.0.1"))
                    .jmxPortBase(Integer.getInteger("gsi.it.jmx", 7199))
                    .triggerJar(jar)
                    .startupTimeout(Duration.ofMinutes(3))
                    .build();
            long t0 = System.nanoTime();
            cluster.start();
            System.out.printf("SharedCluster: 1 node up at %s in %.1f s%n", cluster.contactPoint(0), (System.nanoTime() - t0) / 1e9);
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::close));
        }
        return cluster;
    }

    /** The CQL contact point of the suite's cluster. */
    public static synchronized java.net.InetSocketAddress contactPoint() {
        if (TARGET.equals("testcontainers")) {
            return Containers.contactPoint();
        }
        if (!EXISTING.isEmpty()) {
            int colon = EXISTING.lastIndexOf(':');
            return colon < 0 ? new java.net.InetSocketAddress(EXISTING, 9042)
                    : new java.net.InetSocketAddress(EXISTING.substring(0, colon), Integer.parseInt(EXISTING.substring(colon + 1)));
        }
        return cluster().contactPoint(0);
    }

    public static synchronized CqlSession session() {
        if (session == null) {
            String dc = TARGET.equals("testcontainers") ? "datacenter1"
                    : EXISTING.isEmpty() ? cluster().localDatacenter() : System.getProperty("gsi.it.datacenter", "datacenter1");
            session = CqlSession.builder()
                    .addContactPoint(contactPoint())
                    .withLocalDatacenter(dc)
                    // the service's driver settings: the repair services the tests start share this session
                    .withConfigLoader(io.cassandragsi.repair.config.CqlSessions.withCapacity()
                            .withDuration(com.datastax.oss.driver.api.core.config.DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(10))
                            .build())
                    .build();
        }
        return session;
    }

    /** Cassandra's Docker image through Testcontainers, with the trigger jar copied in; skipped without Docker. */
    private static final class Containers {
        private static org.testcontainers.cassandra.CassandraContainer container;

        static synchronized java.net.InetSocketAddress contactPoint() {
            if (container == null) {
                if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                    String why = "gsi.it.target=testcontainers needs Docker, and there is no Docker engine here: integration tests skipped"
                            + " (run them on real local nodes with the default -Dgsi.it.target=local)";
                    System.err.println(why);
                    org.junit.jupiter.api.Assumptions.abort(why);
                }
                container = new org.testcontainers.cassandra.CassandraContainer("cassandra:5.0.6")
                        .withCopyFileToContainer(org.testcontainers.utility.MountableFile.forHostPath(
                                System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar")),
                                "/etc/cassandra/triggers/cassandra-gsi-trigger.jar");
                container.start();
                Runtime.getRuntime().addShutdownHook(new Thread(container::stop));
            }
            return container.getContactPoint();
        }
    }

    /** The definition with the suite's {@link #MAINTENANCE} and {@link #INDEXING}, unless it names its own. */
    public static TableDef inSuiteMode(TableDef def) {
        if (MAINTENANCE == null) {
            throw new IllegalStateException("-Dgsi.it.maintenance must be service, node or eventual, not " + MODE);
        }
        if (def.maintenance() != Maintenance.SERVICE) {
            return def;
        }
        return INDEXING == Indexing.EVENTUAL ? withIndexing(def, Indexing.EVENTUAL) : withMaintenance(def, MAINTENANCE);
    }

    /** The definition with {@code "indexing"} set to {@code indexing} (eventual: in node maintenance). */
    public static TableDef withIndexing(TableDef def, Indexing indexing) {
        if (def.indexing() == indexing) {
            return def;
        }
        return withFields(def, indexing == Indexing.EVENTUAL ? Map.of("indexing", indexing.jsonName(), "maintenance", Maintenance.NODE.jsonName())
                : Map.of("indexing", indexing.jsonName()));
    }

    /** The definition with {@code "maintenance"} set to {@code mode}. */
    public static TableDef withMaintenance(TableDef def, Maintenance mode) {
        return def.maintenance() == mode ? def : withFields(def, Map.of("maintenance", mode.jsonName()));
    }

    /** The definition with top-level fields set, through its canonical JSON. */
    private static TableDef withFields(TableDef def, Map<String, String> fields) {
        try {
            var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
            var json = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(Definitions.toJson(def));
            fields.forEach(json::put);
            return Definitions.parse(mapper.writeValueAsString(json), def.table() + ".json");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** True when the suite runs its own local node (not an existing cluster, not Testcontainers). */
    public static boolean isLocal() {
        return TARGET.equals("local") && EXISTING.isEmpty();
    }

    /** An example definition moved to its own keyspace, so test classes do not share data. */
    public static TableDef example(String name, String keyspace) {
        try {
            String json = Files.readString(Path.of("../schemas/examples", name + ".json"), StandardCharsets.UTF_8);
            TableDef original = Definitions.parse(json, name + ".json");
            return Definitions.parse(json.replace("\"" + original.keyspace() + "\"", "\"" + keyspace + "\""), name + ".json");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@link #apply(TableDef)} of a definition file. */
    public static void apply(Path definitionFile) {
        apply(Definitions.read(definitionFile));
    }

    /**
     * Creates everything a definition needs, as {@code gsi schema apply} does on an empty cluster:
     * with the tables of the project keyspace, which the service and the jobs do not create.
     */
    public static void apply(TableDef def) {
        def = inSuiteMode(def);
        CqlSession s = session();
        List<String> cql = new ArrayList<>();
        CqlGenerator.all(def, "gsi", REPLICATION).forEach(st -> cql.add(st.cql()));
        ProjectTables.all("gsi", QueueLayout.Settings.defaults()).forEach(t -> cql.add(t.cql()));
        cql.addAll(ProjectTables.initialRows("gsi", QueueLayout.Settings.defaults()));
        for (String statement : cql) {
            s.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(statement).setTimeout(Duration.ofSeconds(60)));
        }
        s.checkSchemaAgreement();
    }

    /**
     * Waits until every in-node maintainer that is running (heartbeat in the last 5 s) has finished
     * every write taken before now (its progress record's {@code done_before}, written every
     * second): a job that needs a quiet table (a check expecting no transient findings) runs after
     * it. Returns at once in service mode.
     */
    public static void awaitMaintainersIdle() throws InterruptedException {
        java.time.Instant since = java.time.Instant.now();
        long deadline = System.currentTimeMillis() + 60_000;
        while (true) {
            boolean idle = true;
            for (com.datastax.oss.driver.api.core.cql.Row r : session().execute("SELECT state, heartbeat, done_before FROM gsi."
                    + io.cassandragsi.schema.NodeProgressLayout.TABLE)) {
                boolean live = io.cassandragsi.schema.NodeProgressLayout.RUNNING.equals(r.getString(0)) && r.getInstant(1) != null
                        && r.getInstant(1).isAfter(java.time.Instant.now().minusSeconds(5));
                idle &= !live || (r.getUuid(2) != null && io.cassandragsi.index.Tids.instant(r.getUuid(2)).isAfter(since));
            }
            if (idle) {
                return;
            }
            if (System.currentTimeMillis() > deadline) {
                throw new AssertionError("in-node maintainers still busy 60 s after " + since);
            }
            Thread.sleep(250);
        }
    }
}
