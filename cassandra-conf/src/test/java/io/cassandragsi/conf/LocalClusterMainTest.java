package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalClusterMainTest {
    @TempDir
    Path work;

    @Test
    void should_build_the_cluster_when_given_every_option() throws IOException {
        Path a = Files.createFile(work.resolve("a.jar"));
        Path b = Files.createFile(work.resolve("b.jar"));

        LocalCluster cluster =
                LocalClusterMain.parse(
                        new String[] {
                            "--nodes", "3", "--work", work.toString(), "--address", "127.0.5.1",
                            "--trigger-jar", a.toString(), b.toString(), "--jmx-port", "7599",
                            "--native-port", "19042", "--set", "num_tokens=4", "--keep-data"
                        })
                        .build();

        assertThat(cluster.contactPoints())
                .containsExactly(
                        new InetSocketAddress("127.0.5.1", 19042),
                        new InetSocketAddress("127.0.5.2", 19042),
                        new InetSocketAddress("127.0.5.3", 19042));
        assertThat(cluster.jmxPort(2)).isEqualTo(7601);
    }

    @Test
    void should_fail_with_the_option_name_when_arguments_are_wrong() {
        assertThatThrownBy(() -> LocalClusterMain.parse(new String[] {"--nodes"}))
                .hasMessageContaining("--nodes");
        assertThatThrownBy(() -> LocalClusterMain.parse(new String[] {"--nodes", "x"}))
                .hasMessageContaining("--nodes");
        assertThatThrownBy(() -> LocalClusterMain.parse(new String[] {"--trigger-jar", "--nodes", "1"}))
                .hasMessageContaining("--trigger-jar");
        assertThatThrownBy(() -> LocalClusterMain.parse(new String[] {"--frobnicate"}))
                .hasMessageContaining("--frobnicate");
        assertThatThrownBy(() -> LocalClusterMain.parse(new String[] {"--set", "novalue"}))
                .hasMessageContaining("key=value");
    }
}
