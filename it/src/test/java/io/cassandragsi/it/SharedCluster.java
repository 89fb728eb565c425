package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One real Cassandra 5.0.6 node for the whole suite (STYLE.md item 6), started from the Maven
 * jars with the trigger jar installed, and a keyspace per test class. Set
 * {@code -Dgsi.it.contact-point=host:port} to run against an existing cluster instead (its nodes
 * need the trigger jar in their triggers directory).
 */
public final class SharedCluster {
    public static final String REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
    private static LocalCluster cluster;
    private static CqlSession session;

    private SharedCluster() {}

    public static synchronized LocalCluster cluster() {
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

    public static synchronized CqlSession session() {
        if (session == null) {
            LocalCluster c = cluster();
            session = CqlSession.builder()
                    .addContactPoints(c.contactPoints())
                    .withLocalDatacenter(c.localDatacenter())
                    .withConfigLoader(com.datastax.oss.driver.api.core.config.DriverConfigLoader.programmaticBuilder()
                            .withDuration(com.datastax.oss.driver.api.core.config.DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(10))
                            .build())
                    .build();
        }
        return session;
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

    /** Creates everything a definition needs, as {@code gsi schema apply} does on an empty cluster. */
    public static void apply(TableDef def) {
        CqlSession s = session();
        for (CqlGenerator.Statement st : CqlGenerator.all(def, "gsi", REPLICATION)) {
            s.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(st.cql()).setTimeout(Duration.ofSeconds(60)));
        }
        s.checkSchemaAgreement();
    }
}
