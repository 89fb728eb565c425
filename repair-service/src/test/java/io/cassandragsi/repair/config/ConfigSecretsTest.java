package io.cassandragsi.repair.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Secrets from the environment or from files, and the warnings about files everyone can read. */
class ConfigSecretsTest {
    @TempDir
    Path dir;

    private final List<String> warnings = new ArrayList<>();
    private Map<String, String> env = Map.of();

    private Path write(String name, String text, String permissions) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(permissions));
        return p;
    }

    private GsiConfig load(String yaml) throws IOException {
        return ConfigLoader.load(write("gsi.yaml", yaml, "rw-------"), warnings::add, env::get);
    }

    @Test
    void should_take_every_secret_from_the_environment_when_env_keys_are_set() throws IOException {
        write("trust.p12", "not read by the loader", "rw-------");
        env = Map.of("GSI_PW", "pw-from-env", "GSI_TRUST", "trust-from-env", "GSI_TOKEN", "token-from-env");
        GsiConfig cfg = load("""
                cassandra:
                  username: gsi_service
                  password_env: GSI_PW
                  tls:
                    enabled: true
                    truststore: { path: trust.p12, password_env: GSI_TRUST }
                http:
                  token_env: GSI_TOKEN
                """);
        assertThat(cfg.cassandra().password()).isEqualTo("pw-from-env");
        assertThat(cfg.cassandra().tls().truststorePassword()).isEqualTo("trust-from-env");
        assertThat(cfg.http().token()).isEqualTo("token-from-env");
        assertThat(warnings).isEmpty();
    }

    @Test
    void should_read_secrets_from_files_without_the_trailing_line_break_when_file_keys_are_set() throws IOException {
        write("trust.p12", "x", "rw-------");
        write("keys.p12", "x", "rw-------");
        write("pw", "pw-from-file\n", "rw-------");
        write("ks", "ks-from-file\r\n", "rw-------");
        write("token", "token-from-file", "r--------");
        GsiConfig cfg = load("""
                cassandra:
                  username: gsi_service
                  password_file: pw
                  tls:
                    enabled: true
                    truststore: { path: trust.p12 }
                    keystore: { path: keys.p12, password_file: ks }
                http:
                  token_file: token
                """);
        assertThat(cfg.cassandra().password()).isEqualTo("pw-from-file");
        assertThat(cfg.cassandra().tls().keystorePassword()).isEqualTo("ks-from-file");
        assertThat(cfg.cassandra().tls().truststorePassword()).isNull();
        assertThat(cfg.http().token()).isEqualTo("token-from-file");
        assertThat(warnings).isEmpty();
    }

    @Test
    void should_warn_when_a_world_readable_config_file_holds_a_password_or_token() throws IOException {
        Path file = write("gsi.yaml", """
                cassandra: { username: gsi_service, password: inline-pw }
                http: { token: inline-token }
                """, "rw-r--r--");
        ConfigLoader.load(file, warnings::add, env::get);
        assertThat(warnings).singleElement().asString()
                .contains(file.toString(), "cassandra.password", "http.token", "readable by every user", "chmod 600")
                .doesNotContain("inline-pw", "inline-token");
    }

    @Test
    void should_not_warn_when_a_world_readable_config_file_takes_its_secrets_from_elsewhere() throws IOException {
        env = Map.of("GSI_PW", "pw");
        write("token", "t", "rw-------");
        Path file = write("gsi.yaml", """
                cassandra: { username: gsi_service, password_env: GSI_PW }
                http: { token_file: token }
                """, "rw-r--r--");
        ConfigLoader.load(file, warnings::add, env::get);
        assertThat(warnings).isEmpty();
    }

    @Test
    void should_warn_when_a_secret_file_is_world_readable() throws IOException {
        Path token = write("token", "t\n", "rw-r--r--");
        load("http: { token_file: token }\n");
        assertThat(warnings).singleElement().asString().contains("http.token_file", token.toString(), "chmod 600");
    }

    @Test
    void should_name_the_variable_when_it_is_not_set() {
        assertThatThrownBy(() -> load("cassandra: { username: u, password_env: GSI_MISSING }\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("key 'cassandra.password_env': environment variable GSI_MISSING is not set")
                .satisfies(e -> assertThat(((ConfigException) e).key()).isEqualTo("cassandra.password_env"));
    }

    @Test
    void should_refuse_an_empty_variable_when_a_secret_comes_from_it() {
        env = Map.of("GSI_TOKEN", "");
        assertThatThrownBy(() -> load("http: { token_env: GSI_TOKEN }\n"))
                .hasMessageContaining("key 'http.token_env': environment variable GSI_TOKEN is empty");
    }

    @Test
    void should_refuse_a_variable_name_that_is_not_one() {
        assertThatThrownBy(() -> load("http: { token_env: \"${TOKEN}\" }\n"))
                .hasMessageContaining("key 'http.token_env': '${TOKEN}' is not an environment variable name");
    }

    @Test
    void should_refuse_a_secret_given_twice() {
        env = Map.of("GSI_PW", "pw");
        assertThatThrownBy(() -> load("cassandra: { username: u, password: a, password_env: GSI_PW }\n"))
                .hasMessageContaining("key 'cassandra.password': is given more than once: set only one of cassandra.password,"
                        + " cassandra.password_env and cassandra.password_file");
    }

    @Test
    void should_name_the_key_when_a_secret_file_is_missing_empty_or_has_several_lines() throws IOException {
        assertThatThrownBy(() -> load("http: { token_file: nope }\n"))
                .hasMessageContaining("key 'http.token_file': file not found: " + dir.resolve("nope"));
        write("empty", "\n", "rw-------");
        assertThatThrownBy(() -> load("http: { token_file: empty }\n"))
                .hasMessageContaining("key 'http.token_file': " + dir.resolve("empty") + " is empty");
        write("two", "a\nb\n", "rw-------");
        assertThatThrownBy(() -> load("http: { token_file: two }\n"))
                .hasMessageContaining("key 'http.token_file': " + dir.resolve("two") + " has more than one line");
    }

    @Test
    void should_require_a_keystore_password_when_its_file_and_variable_are_absent() throws IOException {
        write("trust.p12", "x", "rw-------");
        write("keys.p12", "x", "rw-------");
        assertThatThrownBy(() -> load("""
                cassandra:
                  tls: { enabled: true, truststore: { path: trust.p12 }, keystore: { path: keys.p12 } }
                """)).hasMessageContaining("key 'cassandra.tls.keystore.password': is required with a keystore");
    }
}
