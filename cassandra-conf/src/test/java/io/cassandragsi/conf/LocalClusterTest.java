package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalClusterTest {
    @TempDir
    Path work;

    @Test
    void should_number_addresses_ports_and_directories_when_built_for_three_nodes() throws Exception {
        LocalCluster cluster =
                LocalCluster.builder().nodes(3).workDir(work).firstAddress("127.0.5.1").jmxPortBase(7599)
                        .build();

        assertThat(cluster.size()).isEqualTo(3);
        assertThat(cluster.contactPoints())
                .containsExactly(
                        new InetSocketAddress("127.0.5.1", 9042),
                        new InetSocketAddress("127.0.5.2", 9042),
                        new InetSocketAddress("127.0.5.3", 9042));
        assertThat(cluster.address(2)).isEqualTo(InetAddress.getByName("127.0.5.3"));
        assertThat(cluster.jmxPort(2)).isEqualTo(7601);
        assertThat(cluster.workDir()).isEqualTo(work.toAbsolutePath());
        assertThat(cluster.nodeDir(1)).isEqualTo(work.toAbsolutePath().resolve("node1"));
        assertThat(cluster.nodeLog(1)).isEqualTo(work.toAbsolutePath().resolve("node1/logs/system.log"));
        assertThat(cluster.triggersDir(0)).isEqualTo(work.toAbsolutePath().resolve("node0/triggers"));
        assertThat(cluster.localDatacenter()).isEqualTo("datacenter1");
        assertThat(cluster.isRunning(0)).isFalse();
    }

    @Test
    void should_use_the_documented_defaults_when_only_the_work_dir_is_given() {
        LocalCluster cluster = LocalCluster.builder().workDir(work).build();

        assertThat(cluster.contactPoints()).containsExactly(new InetSocketAddress("127.0.0.1", 9042));
        assertThat(cluster.jmxPort(0)).isEqualTo(7199);
        assertThat(cluster.clusterName()).isEqualTo("cassandra-gsi");
    }

    @Test
    void should_refuse_to_build_when_settings_are_wrong() {
        assertThatThrownBy(() -> LocalCluster.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("workDir");
        assertThatThrownBy(() -> LocalCluster.builder().heap("lots"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LocalCluster.builder().nodes(0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LocalCluster.builder().clusterName("it's"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(
                () -> LocalCluster.builder().workDir(work).triggerJar(work.resolve("none.jar")).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("none.jar");
        assertThatThrownBy(
                () -> LocalCluster.builder().workDir(work).nodes(3).firstAddress("127.0.5.253").build())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_refuse_node_numbers_outside_the_cluster() {
        LocalCluster cluster = LocalCluster.builder().workDir(work).build();

        assertThatThrownBy(() -> cluster.kill(1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> cluster.startupTime(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void should_do_nothing_when_stopping_a_cluster_that_never_started() {
        LocalCluster cluster = LocalCluster.builder().workDir(work).build();

        cluster.close();

        assertThat(cluster.isRunning(0)).isFalse();
    }
}
