package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.cli.CommandFailedException;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.TableDef;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Local nodes with the trigger for the read and repair benchmarks (one, or three with keyspaces
 * replicated on each), and a session on them that reads and writes at LOCAL_QUORUM.
 */
final class BenchNode implements AutoCloseable {
    final LocalCluster cluster;
    final CqlSession session;

    private BenchNode(LocalCluster cluster, CqlSession session) {
        this.cluster = cluster;
        this.session = session;
    }

    static BenchNode start(Path workDir, String address, int jmxPort, int nodes) {
        Path home = Path.of(System.getProperty("gsi.home", ".")).toAbsolutePath().normalize();
        Path jar = home.resolve(BenchWriteCommand.TRIGGER_JAR);
        if (!Files.isRegularFile(jar)) {
            throw new CommandFailedException("trigger jar " + jar + " is missing: build with ./gsi or mvn -DskipTests install");
        }
        LocalCluster cluster = LocalCluster.builder().nodes(nodes).workDir(workDir).firstAddress(address).jmxPortBase(jmxPort)
                .triggerJar(jar).build();
        cluster.start();
        CqlSession session = CqlSession.builder().addContactPoints(cluster.contactPoints()).withLocalDatacenter(cluster.localDatacenter())
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(20))
                        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "LOCAL_QUORUM")
                        .withInt(DefaultDriverOption.CONNECTION_POOL_LOCAL_SIZE, 2)
                        .build())
                .build();
        return new BenchNode(cluster, session);
    }

    void ddl(String cql) {
        session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
    }

    /**
     * Creates what {@code gsi schema apply} makes for {@code def}: its tables and the project
     * keyspace's, which the service and the jobs need and do not create (checkpoints, leases,
     * instances, jobs).
     */
    void apply(TableDef def) {
        for (String cql : statements(def, cluster.size())) {
            ddl(cql);
        }
        session.checkSchemaAgreement();
    }

    /** The statements of {@link #apply}, every one idempotent, keyspaces replicated {@code rf} times. */
    static java.util.List<String> statements(TableDef def, int rf) {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (CqlGenerator.Statement s : CqlGenerator.all(def, BenchSchema.PROJECT_KEYSPACE, BenchSchema.replication(rf))) {
            out.add(s.cql());
        }
        out.addAll(BenchSchema.projectStatements(io.cassandragsi.schema.QueueLayout.DEFAULT_SHARDS, rf));
        return out;
    }

    @Override
    public void close() {
        try {
            session.close();
        } finally {
            cluster.close();
        }
    }

    /**
     * Waits until the repair service has worked off its backlog (lag 0 and nothing new done for
     * 3 s) or {@code max} passes; returns the seconds waited.
     */
    static double awaitDrained(io.cassandragsi.repair.service.GsiServer server, Duration max) throws InterruptedException {
        return awaitQuiet(() -> server.service().consumer().metrics.markersDone.sum(), () -> server.service().consumer().lagMillis() == 0, max);
    }

    /**
     * Polls every 500 ms until {@code idle} holds and {@code done} has not moved for 3 s, or {@code
     * max} passes; returns the seconds waited, the 3 s of confirmation included.
     */
    static double awaitQuiet(java.util.function.LongSupplier done, java.util.function.BooleanSupplier idle, Duration max)
            throws InterruptedException {
        long t0 = System.nanoTime();
        long deadline = System.currentTimeMillis() + max.toMillis();
        int quiet = 0;
        long last = -1;
        while (System.currentTimeMillis() < deadline && quiet < 6) {
            long now = done.getAsLong();
            quiet = now == last && idle.getAsBoolean() ? quiet + 1 : 0;
            last = now;
            Thread.sleep(500);
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
