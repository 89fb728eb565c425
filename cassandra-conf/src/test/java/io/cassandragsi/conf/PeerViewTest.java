package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeerViewTest {
    private static NodeSpec node(int i) {
        return new NodeSpec(
                i, NodeConfig.addressOf("127.0.5.1", i), 9042, 7000, 7199 + i, Path.of("node" + i));
    }

    private static final List<NodeSpec> NODES = List.of(node(0), node(1), node(2));
    private static final Set<String> ALL = Set.of("127.0.5.1:7000", "127.0.5.2:7000", "127.0.5.3:7000");

    @Test
    void should_report_nothing_when_the_node_sees_every_node_up_and_in_its_ring() {
        PeerView view = new PeerView(ALL, Set.of(), ALL, Set.of(), Set.of("127.0.5.2", "127.0.5.3"));

        assertThat(view.problems(node(0), NODES)).isEmpty();
    }

    @Test
    void should_name_each_missing_peer_when_the_view_is_incomplete() {
        PeerView view =
                new PeerView(
                        Set.of("127.0.5.1:7000", "127.0.5.2:7000", "127.0.5.3:7000"),
                        Set.of("127.0.5.3:7000"),
                        Set.of("127.0.5.1:7000", "127.0.5.2:7000"),
                        Set.of(),
                        Set.of("127.0.5.2"));

        assertThat(view.problems(node(0), NODES))
                .containsExactly(
                        "node0 does not see 127.0.5.3:7000 UP",
                        "node0 does not have 127.0.5.3:7000 in its ring",
                        "node0 has no system.peers_v2 row for 127.0.5.3");
    }

    @Test
    void should_only_expect_running_nodes_when_some_are_down() {
        PeerView view =
                new PeerView(
                        Set.of("127.0.5.1:7000", "127.0.5.3:7000"),
                        Set.of("127.0.5.2:7000"),
                        ALL,
                        Set.of(),
                        Set.of("127.0.5.2", "127.0.5.3"));

        assertThat(view.problems(node(0), List.of(node(0), node(2)))).isEmpty();
    }

    @Test
    void should_strip_the_leading_slash_when_reading_endpoints() {
        assertThat(PeerView.endpoint("/127.0.5.1:7000")).isEqualTo("127.0.5.1:7000");
        assertThat(PeerView.endpoint("127.0.5.1:7000")).isEqualTo("127.0.5.1:7000");
    }
}
