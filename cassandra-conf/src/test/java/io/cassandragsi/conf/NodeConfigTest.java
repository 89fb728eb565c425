package io.cassandragsi.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.cassandra.config.Config;
import org.apache.cassandra.config.YamlConfigurationLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeConfigTest {
    @TempDir
    Path work;

    private NodeSpec node(int i) {
        return new NodeSpec(
                i, NodeConfig.addressOf("127.0.5.1", i), 9042, 7000, 7199 + i, work.resolve("node" + i));
    }

    private String render(Map<String, String> overrides) {
        return NodeConfig.renderYaml(
                NodeConfig.resource(NodeConfig.YAML_TEMPLATE),
                NodeConfig.yamlValues(node(1), node(0), "test-cluster"),
                overrides);
    }

    @Test
    void should_fill_every_placeholder_when_rendering_the_template() {
        String yaml = render(Map.of());

        assertThat(yaml)
                .doesNotContain("${")
                .contains("cluster_name: 'test-cluster'")
                .contains("listen_address: 127.0.5.2")
                .contains("rpc_address: 127.0.5.2")
                .contains("seeds: \"127.0.5.1:7000\"")
                .contains("commitlog_directory: '" + work.resolve("node1").toAbsolutePath() + "/commitlog'")
                .contains("materialized_views_enabled: true")
                .contains("auto_bootstrap: false")
                .doesNotContain("triggers_policy");
    }

    @Test
    void should_be_accepted_by_cassandra_when_rendered_with_overrides() throws Exception {
        Path file = work.resolve("cassandra.yaml");
        Files.writeString(
                file,
                render(
                        Map.of(
                                "num_tokens", "8",
                                "data_file_directories", "['${node_dir}/data1', '${node_dir}/data2']",
                                "write_request_timeout", "5000ms")));

        Config config = new YamlConfigurationLoader().loadConfig(file.toUri().toURL());

        assertThat(config.cluster_name).isEqualTo("test-cluster");
        assertThat(config.num_tokens).isEqualTo(8);
        assertThat(config.listen_address).isEqualTo("127.0.5.2");
        assertThat(config.native_transport_port).isEqualTo(9042);
        assertThat(config.storage_port).isEqualTo(7000);
        assertThat(config.endpoint_snitch).isEqualTo("SimpleSnitch");
        assertThat(config.materialized_views_enabled).isTrue();
        assertThat(config.auto_bootstrap).isFalse();
        assertThat(config.auto_snapshot).isFalse();
        assertThat(config.commitlog_sync).isEqualTo(Config.CommitLogSync.periodic);
        assertThat(config.data_file_directories)
                .containsExactly(
                        work.resolve("node1").toAbsolutePath() + "/data1",
                        work.resolve("node1").toAbsolutePath() + "/data2");
        assertThat(config.write_request_timeout.toMilliseconds()).isEqualTo(5000);
        assertThat(config.seed_provider.parameters).containsEntry("seeds", "127.0.5.1:7000");
    }

    @Test
    void should_replace_the_key_and_its_block_when_overridden() {
        String template = "a: 1\nlist:\n  - x\n  - y\n# comment\nb: 2\n";

        String yaml = NodeConfig.renderYaml(template, Map.of(), Map.of("list", "[z]", "b", "3"));

        assertThat(yaml).isEqualTo("a: 1\nlist: [z]\n# comment\nb: 3\n");
    }

    @Test
    void should_append_the_key_when_the_template_lacks_it() {
        Map<String, String> overrides = new LinkedHashMap<>();
        overrides.put("c", "${x}");
        overrides.put("ab", "4");

        String yaml = NodeConfig.renderYaml("a: 1\nabc: 2\n", Map.of("x", "filled"), overrides);

        assertThat(yaml).isEqualTo("a: 1\nabc: 2\nc: filled\nab: 4\n");
    }

    @Test
    void should_fail_when_a_placeholder_has_no_value() {
        assertThatThrownBy(() -> NodeConfig.renderYaml("a: ${nope}\n", Map.of(), Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("${nope}");
    }

    @Test
    void should_reject_overrides_that_are_not_one_line_under_a_plain_key() {
        assertThatThrownBy(() -> NodeConfig.validateYamlOverride("Bad-Key", "1"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeConfig.validateYamlOverride("num_tokens", "1\nfoo: 2"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeConfig.validateYamlOverride("num_tokens", " "))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_carry_the_java_17_module_flags_when_parsing_the_jvm_options() {
        List<String> options = NodeConfig.parseJvmOptions(NodeConfig.resource(NodeConfig.JVM_OPTIONS));

        assertThat(options).noneMatch(o -> o.startsWith("#") || o.isBlank());
        assertThat(options)
                .contains(
                        "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
                        "--add-exports=java.base/jdk.internal.ref=ALL-UNNAMED",
                        "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-exports=java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED",
                        "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
                        "--add-exports=java.rmi/sun.rmi.server=ALL-UNNAMED",
                        "--add-exports=java.sql/java.sql=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                        "--add-opens=java.base/java.lang.module=ALL-UNNAMED",
                        "--add-opens=java.base/java.io=ALL-UNNAMED",
                        "--add-opens=java.base/java.nio=ALL-UNNAMED",
                        "--add-opens=java.base/java.net=ALL-UNNAMED",
                        "--add-opens=java.base/java.math=ALL-UNNAMED",
                        "--add-opens=java.base/java.util=ALL-UNNAMED",
                        "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                        "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.loader=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.reflect=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.math=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.module=ALL-UNNAMED",
                        "--add-opens=java.base/jdk.internal.util.jar=ALL-UNNAMED",
                        "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                        "--add-opens=jdk.management/com.sun.management.internal=ALL-UNNAMED");
    }

    @Test
    void should_give_each_node_its_own_tmpdir_and_jmx_port_when_building_its_command() {
        NodeSpec node = node(2);
        Path dir = node.dir().toAbsolutePath();

        List<String> cmd =
                NodeConfig.daemonCommand(
                        Path.of("/jdk/bin/java"), List.of("-XX:+UseG1GC"), "1G", node, 1000,
                        List.of("-Dextra=1"), "a.jar:b.jar");

        assertThat(cmd.get(0)).isEqualTo("/jdk/bin/java");
        assertThat(cmd)
                .contains(
                        "-XX:+UseG1GC",
                        "-Xms1G",
                        "-Xmx1G",
                        "-Djava.io.tmpdir=" + dir.resolve("tmp"),
                        "-Dcassandra-foreground=yes",
                        "-Dcassandra.config=" + dir.resolve("conf/cassandra.yaml").toUri(),
                        "-Dcassandra.storagedir=" + dir,
                        "-Dcassandra.logdir=" + dir.resolve("logs"),
                        "-Dlogback.configurationFile=" + dir.resolve("conf/logback.xml"),
                        "-Dcassandra.triggers_dir=" + dir.resolve("triggers"),
                        "-Dcassandra.jmx.local.port=7201",
                        "-Dcassandra.skip_wait_for_gossip_to_settle=0",
                        "-Dcassandra.ring_delay_ms=1000",
                        "-Dcassandra-gsi.node=node2@127.0.5.3");
        assertThat(cmd.subList(cmd.size() - 4, cmd.size()))
                .containsExactly("-Dextra=1", "-cp", "a.jar:b.jar", NodeConfig.DAEMON_CLASS);
    }

    @Test
    void should_point_nodetool_at_the_node_jmx_port_with_a_writable_home() {
        NodeSpec node = node(1);

        List<String> cmd =
                NodeConfig.nodetoolCommand(
                        Path.of("java"),
                        List.of("-XX:+UseG1GC", "--add-exports=java.base/sun.nio.ch=ALL-UNNAMED"),
                        node,
                        "a.jar",
                        List.of("flush", "ks"));

        assertThat(cmd)
                .contains("--add-exports=java.base/sun.nio.ch=ALL-UNNAMED",
                        "-Duser.home=" + node.dir().toAbsolutePath())
                .doesNotContain("-XX:+UseG1GC");
        assertThat(cmd.subList(cmd.size() - 7, cmd.size()))
                .containsExactly(NodeConfig.NODETOOL_CLASS, "-h", "127.0.0.1", "-p", "7200", "flush", "ks");
    }

    @Test
    void should_raise_the_last_octet_when_numbering_node_addresses() throws Exception {
        assertThat(NodeConfig.addressOf("127.0.5.1", 2)).isEqualTo(InetAddress.getByName("127.0.5.3"));
        assertThatThrownBy(() -> NodeConfig.addressOf("127.0.5.253", 2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeConfig.addressOf("localhost", 0))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeConfig.addressOf("::1", 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_list_cassandra_and_its_own_dependency_versions_when_reading_the_classpath() {
        List<String> jars =
                NodeConfig.cassandraClasspath().stream().map(p -> p.getFileName().toString()).toList();

        assertThat(jars)
                .contains(
                        "cassandra-all-5.0.6.jar",
                        "netty-all-4.1.119.Final.jar",
                        "netty-handler-4.1.119.Final.jar",
                        "jffi-1.3.11-native.jar",
                        "snakeyaml-2.1.jar",
                        "logback-classic-1.2.12.jar")
                .anyMatch(j -> j.startsWith("guava-"))
                // resolved on its own: nothing of this module's driver and no second netty version
                .noneMatch(j -> j.startsWith("java-driver-core"))
                .noneMatch(j -> j.startsWith("netty-") && j.contains("4.1.94"));
    }
}
