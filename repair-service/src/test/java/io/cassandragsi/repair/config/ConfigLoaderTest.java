package io.cassandragsi.repair.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** One YAML file per scenario under src/test/resources/config/. */
class ConfigLoaderTest {

    static Path scenario(String name) {
        try {
            return Path.of(ConfigLoaderTest.class.getResource("/config/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static GsiConfig load(String name) {
        return ConfigLoader.load(scenario(name));
    }

    @Test
    void should_use_defaults_without_credentials_when_file_is_empty() {
        GsiConfig cfg = load("empty.yaml");
        assertThat(cfg).isEqualTo(GsiConfig.defaults());
        assertThat(cfg.cassandra().contactPoints()).containsExactly(new ContactPoint("127.0.0.1", 9042));
        assertThat(cfg.cassandra().localDatacenter()).isEqualTo("datacenter1");
        assertThat(cfg.cassandra().username()).isNull();
        assertThat(cfg.cassandra().password()).isNull();
        assertThat(cfg.cassandra().tls().enabled()).isFalse();
        assertThat(cfg.cassandra().driverConfig()).isNull();
        assertThat(cfg.consistency().read()).isEqualTo(DefaultConsistencyLevel.LOCAL_QUORUM);
        assertThat(cfg.consistency().write()).isEqualTo(DefaultConsistencyLevel.LOCAL_QUORUM);
        assertThat(cfg.consistency().serial()).isEqualTo(DefaultConsistencyLevel.LOCAL_SERIAL);
        assertThat(cfg.queue().keyspace()).isEqualTo("gsi");
        assertThat(cfg.queue().shards()).isEqualTo(8);
        assertThat(cfg.queue().pollInterval()).isEqualTo(Duration.ofMillis(100));
        assertThat(cfg.http().bind()).isEqualTo("127.0.0.1");
        assertThat(cfg.http().port()).isEqualTo(8080);
        assertThat(cfg.http().token()).isNull();
        assertThat(cfg.http().allowUnauthenticatedRemote()).isFalse();
    }

    @Test
    void should_keep_other_defaults_when_only_contact_points_are_set() {
        GsiConfig cfg = load("minimal.yaml");
        assertThat(cfg.cassandra().contactPoints()).containsExactly(new ContactPoint("10.0.0.5", 9042));
        assertThat(cfg.consistency()).isEqualTo(ConsistencyConfig.defaults());
        assertThat(cfg.queue()).isEqualTo(QueueConfig.defaults());
        assertThat(cfg.http()).isEqualTo(HttpConfig.defaults());
    }

    @Test
    void should_read_every_key_when_file_sets_all_of_them() {
        Path file = scenario("full.yaml");
        Path dir = file.getParent();
        GsiConfig cfg = ConfigLoader.load(file);
        CassandraConfig c = cfg.cassandra();
        assertThat(c.contactPoints()).containsExactly(
                new ContactPoint("10.0.0.1", 9042), new ContactPoint("cass-2.example.com", 19042), new ContactPoint("fd00::3", 9042));
        assertThat(c.localDatacenter()).isEqualTo("dc-east");
        assertThat(c.username()).isEqualTo("gsi_service");
        assertThat(c.password()).isEqualTo("s3cret-from-deployment");
        assertThat(c.tls()).isEqualTo(new TlsConfig(true, dir.resolve("tls/truststore.jks"), "changeit",
                dir.resolve("tls/keystore.p12"), "keypass", false));
        assertThat(c.driverConfig()).isEqualTo(dir.resolve("driver.conf"));
        assertThat(cfg.consistency()).isEqualTo(new ConsistencyConfig(
                DefaultConsistencyLevel.LOCAL_ONE, DefaultConsistencyLevel.EACH_QUORUM, DefaultConsistencyLevel.SERIAL));
        assertThat(cfg.queue()).isEqualTo(new QueueConfig("gsi_prod", 32, Duration.ofSeconds(2)));
        assertThat(cfg.http()).isEqualTo(new HttpConfig("0.0.0.0", 9090, "a-long-random-token", false));
        assertThat(cfg.antiEntropy()).isEqualTo(new AntiEntropyConfig(false, 50, Duration.ofMinutes(2), Duration.ofHours(1), 16, Duration.ofMinutes(30)));
    }

    @Test
    void should_not_print_secrets_when_config_is_logged() {
        String text = load("full.yaml").toString();
        assertThat(text).doesNotContain("s3cret-from-deployment", "changeit", "keypass", "a-long-random-token");
    }

    @Test
    void should_accept_a_single_contact_point_without_list_or_port() {
        assertThat(load("single_contact_point_scalar.yaml").cassandra().contactPoints())
                .containsExactly(new ContactPoint("10.0.0.7", 9042));
    }

    @Test
    void should_allow_remote_bind_without_token_when_explicitly_allowed() {
        HttpConfig http = load("remote_bind_unauthenticated_allowed.yaml").http();
        assertThat(http.bind()).isEqualTo("0.0.0.0");
        assertThat(http.allowUnauthenticatedRemote()).isTrue();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown_key.yaml                   | cassandra.contact_point          | unknown key
            unknown_section.yaml               | casandra                         | unknown key
            bad_consistency.yaml               | consistency.read                 | 'QUORUMM' is not a consistency level
            serial_level_for_writes.yaml       | consistency.write                | 'LOCAL_SERIAL' cannot be used for writes
            any_for_reads.yaml                 | consistency.read                 | 'ANY' cannot be used for reads
            tls_without_truststore.yaml        | cassandra.tls.truststore.path    | is required when TLS is enabled
            tls_stores_but_disabled.yaml       | cassandra.tls.enabled            | is not true, but a truststore
            tls_truststore_missing_file.yaml   | cassandra.tls.truststore.path    | file not found
            tls_keystore_without_password.yaml | cassandra.tls.keystore.password  | is required with a keystore
            http_tls_without_path.yaml         | http.tls.keystore.path           | is required with http.tls
            http_tls_without_password.yaml     | http.tls.keystore.password       | is required with a keystore
            http_tls_not_a_store.yaml          | http.tls.keystore                | is not a PKCS12 or JKS key store
            password_without_username.yaml     | cassandra.password               | cassandra.username is not
            bad_contact_point_port.yaml        | cassandra.contact_points[1]      | port 99999 is outside 1-65535
            bad_http_port_type.yaml            | http.port                        | expected a whole number
            fractional_shards.yaml             | queue.shards                     | expected a whole number
            shards_out_of_range.yaml           | queue.shards                     | 0 is outside 1-1024
            poll_interval_without_unit.yaml    | queue.poll_interval              | not a duration like 100ms
            bad_queue_keyspace.yaml            | queue.keyspace                   | not a valid keyspace name
            remote_bind_without_token.yaml     | http.bind                        | http.token is not set
            broken_driver_config.yaml          | cassandra.driver_config          | does not parse
            section_not_a_mapping.yaml         | cassandra                        | expected a section
            """)
    void should_name_file_and_key_when_value_is_wrong(String file, String key, String problem) {
        assertThatThrownBy(() -> load(file))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(scenario(file).toString() + ": key '" + key + "': ")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo(key));
    }

    @Test
    void should_list_known_keys_when_key_is_unknown() {
        assertThatThrownBy(() -> load("unknown_key.yaml"))
                .hasMessageContaining("known keys here: contact_points, driver_config, local_datacenter, password, password_env, password_file, tls, username");
    }

    @Test
    void should_name_file_when_yaml_is_malformed() {
        assertThatThrownBy(() -> load("not_yaml.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(scenario("not_yaml.yaml") + ": not valid YAML")
                .hasMessageContaining("(line 3, column 1)")
                .message().doesNotContain("\n");
    }

    @Test
    void should_reject_duplicate_keys_when_a_key_appears_twice() {
        assertThatThrownBy(() -> load("duplicate_key.yaml"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shards");
    }

    @Test
    void should_name_file_when_it_does_not_exist() {
        Path missing = Path.of("/nonexistent/gsi.yaml");
        assertThatThrownBy(() -> ConfigLoader.load(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("/nonexistent/gsi.yaml: cannot read the config file");
    }

    @Test
    void should_override_contact_points_when_given_on_the_command_line() {
        GsiConfig cfg = load("full.yaml").withContactPoints(List.of(new ContactPoint("127.0.3.1", 9042)));
        assertThat(cfg.cassandra().contactPoints()).containsExactly(new ContactPoint("127.0.3.1", 9042));
        assertThat(cfg.cassandra().localDatacenter()).isEqualTo("dc-east");
    }
}
