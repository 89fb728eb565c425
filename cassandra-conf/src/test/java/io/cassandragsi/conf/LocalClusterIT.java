package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Starts real Cassandra nodes. Uses 127.0.5.x and JMX ports 7599+ so that it can run beside
 * other local clusters (127.0.0.x, JMX 7199+).
 */
class LocalClusterIT {
    /** Schema changes on a busy two-core machine take longer than the driver's 2 s default. */
    private static DriverConfigLoader slowMachine() {
        return DriverConfigLoader.programmaticBuilder()
                .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(30))
                .build();
    }

    private static final Path WORK = Path.of("target", "local-cluster-it");

    private static CqlSession connect(LocalCluster cluster) {
        return CqlSession.builder()
                .addContactPoints(cluster.contactPoints())
                .withLocalDatacenter(cluster.localDatacenter())
                .withConfigLoader(slowMachine())
                .build();
    }

    @Test
    void should_keep_a_written_row_when_the_node_is_killed_and_restarted() throws Exception {
        try (LocalCluster cluster =
                LocalCluster.builder()
                        .workDir(WORK.resolve("one-node"))
                        .firstAddress("127.0.5.1")
                        .jmxPortBase(7599)
                        .build()) {
            cluster.start();
            assertThat(cluster.isRunning(0)).isTrue();
            assertThat(cluster.startupTime(0)).isPositive();

            try (CqlSession session = connect(cluster)) {
                session.execute(
                        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
                session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
                session.execute("INSERT INTO ks.t (k, v) VALUES (1, 'one')");
                Row row = session.execute("SELECT v FROM ks.t WHERE k = 1").one();
                assertThat(row).isNotNull();
                assertThat(row.getString("v")).isEqualTo("one");
            }

            String status = cluster.nodetool(0, "status");
            assertThat(status).contains("UN").contains("127.0.5.1");

            cluster.kill(0);
            assertThat(cluster.isRunning(0)).isFalse();

            cluster.start(0);
            assertThat(cluster.isRunning(0)).isTrue();
            try (CqlSession session = connect(cluster)) {
                Row row = session.execute("SELECT v FROM ks.t WHERE k = 1").one();
                assertThat(row).isNotNull();
                assertThat(row.getString("v")).isEqualTo("one");
            }
            // the row came back through commitlog replay, not from an sstable
            assertThat(Files.readString(cluster.nodeLog(0))).containsPattern("Log replay complete, [1-9]");

            cluster.stop();
            assertThat(cluster.isRunning(0)).isFalse();
        }
    }

    @Test
    void should_fail_with_the_node_log_when_the_node_exits_during_startup() {
        try (LocalCluster cluster =
                LocalCluster.builder()
                        .workDir(WORK.resolve("bad-config"))
                        .firstAddress("127.0.5.9")
                        .jmxPortBase(7699)
                        .yaml("no_such_setting", "1")
                        .build()) {
            assertThatThrownBy(cluster::start)
                    .isInstanceOf(LocalClusterException.class)
                    .hasMessageContaining("node0 (127.0.5.9) exited with code")
                    .hasMessageContaining("no_such_setting");
            assertThat(cluster.isRunning(0)).isFalse();
        }
    }
}
