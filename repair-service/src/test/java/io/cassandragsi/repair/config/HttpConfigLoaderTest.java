package io.cassandragsi.repair.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code http} section's {@code allowed_hosts}, one YAML file per scenario. */
class HttpConfigLoaderTest {
    @Test
    void should_read_allowed_hosts_in_lower_case_when_listed() {
        HttpConfig http = ConfigLoader.load(ConfigLoaderTest.scenario("http_allowed_hosts.yaml")).http();
        assertThat(http.allowedHosts()).containsExactly("gsi.example.com", "gsi.internal:8080", "[::1]:8080");
    }

    @Test
    void should_have_no_allowed_hosts_when_the_key_is_absent() {
        assertThat(HttpConfig.defaults().allowedHosts()).isEmpty();
        assertThat(ConfigLoader.load(ConfigLoaderTest.scenario("minimal.yaml")).http().allowedHosts()).isEmpty();
    }

    @Test
    void should_name_the_key_when_an_allowed_host_has_a_scheme() {
        assertThatThrownBy(() -> ConfigLoader.load(ConfigLoaderTest.scenario("http_allowed_host_with_scheme.yaml")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("key 'http.allowed_hosts'")
                .hasMessageContaining("no scheme");
    }

    @Test
    void should_refuse_a_misspelled_key_when_loading_the_http_section() {
        assertThatThrownBy(() -> ConfigLoader.load(ConfigLoaderTest.scenario("http_allowed_host_misspelled.yaml")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("unknown key")
                .hasMessageContaining("allowed_hosts");
    }
}
