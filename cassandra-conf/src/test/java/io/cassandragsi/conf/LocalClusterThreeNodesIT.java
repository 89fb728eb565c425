package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Three real nodes on 127.0.5.1-3: about 4.5 GB of memory and a minute of start-up on two
 * cores, so only when asked: {@code mvn -pl cassandra-conf verify -Dgsi.it.threeNodes=true}.
 */
@EnabledIfSystemProperty(named = "gsi.it.threeNodes", matches = "true")
class LocalClusterThreeNodesIT {
    /** Schema changes on a busy two-core machine take longer than the driver's 2 s default. */
    private static DriverConfigLoader slowMachine() {
        return DriverConfigLoader.programmaticBuilder()
                .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(30))
                .build();
    }

    @Test
    void should_form_a_ring_and_take_a_restarted_node_back_when_started_with_three_nodes() {
        try (LocalCluster cluster =
                LocalCluster.builder()
                        .nodes(3)
                        .workDir(Path.of("target", "local-cluster-it", "three-nodes"))
                        .firstAddress("127.0.5.1")
                        .jmxPortBase(7599)
                        .build()) {
            cluster.start();

            assertThat(cluster.nodetool(0, "status"))
                    .containsPattern("UN +127\\.0\\.5\\.1")
                    .containsPattern("UN +127\\.0\\.5\\.2")
                    .containsPattern("UN +127\\.0\\.5\\.3");

            try (CqlSession session =
                    CqlSession.builder()
                            .addContactPoints(cluster.contactPoints())
                            .withLocalDatacenter(cluster.localDatacenter())
                            .withConfigLoader(slowMachine())
                            .build()) {
                assertThat(session.getMetadata().getNodes()).hasSize(3);
                session.execute(
                        "CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}");
                session.execute("CREATE TABLE ks.t (k int PRIMARY KEY, v text)");
                session.execute(
                        SimpleStatement.newInstance("INSERT INTO ks.t (k, v) VALUES (1, 'one')")
                                .setConsistencyLevel(ConsistencyLevel.ALL));

                cluster.kill(1);
                session.execute(
                        SimpleStatement.newInstance("INSERT INTO ks.t (k, v) VALUES (2, 'two')")
                                .setConsistencyLevel(ConsistencyLevel.QUORUM));

                cluster.start(1);
                assertThat(cluster.isRunning(1)).isTrue();
                for (int i = 0; i < 3; i++) {
                    assertThat(cluster.startupTime(i)).isPositive();
                }
                assertThat(
                        session
                                .execute(
                                        SimpleStatement.newInstance("SELECT v FROM ks.t WHERE k = 1")
                                                .setConsistencyLevel(ConsistencyLevel.ALL))
                                .one()
                                .getString("v"))
                        .isEqualTo("one");
            }
        }
    }
}
