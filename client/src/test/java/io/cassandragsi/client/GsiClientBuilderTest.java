package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.lang.reflect.Proxy;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The builder's and the query's checks, made before anything is asked of Cassandra: the session here answers nothing. */
class GsiClientBuilderTest {
    /** A session that fails any call: what these checks do must not need Cassandra. */
    static final CqlSession NO_CASSANDRA = (CqlSession) Proxy.newProxyInstance(CqlSession.class.getClassLoader(), new Class<?>[] {CqlSession.class},
            (proxy, method, args) -> {
                if (method.getName().equals("toString")) {
                    return "no Cassandra";
                }
                throw new AssertionError("asked Cassandra: " + method.getName());
            });

    @Test
    void should_refuse_a_null_session() {
        assertThatThrownBy(() -> GsiClient.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("session");
    }

    @Test
    void should_refuse_bad_settings_naming_the_setting_and_the_value() {
        GsiClient.Builder b = GsiClient.builder(NO_CASSANDRA);
        assertThatThrownBy(() -> b.checkConcurrency(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("checkConcurrency")
                .hasMessageContaining("not 0");
        assertThatThrownBy(() -> b.checkConcurrency(5000)).hasMessageContaining("not 5000");
        assertThatThrownBy(() -> b.consistency(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("consistency");
        assertThatThrownBy(() -> b.consistency(DefaultConsistencyLevel.LOCAL_SERIAL)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("LOCAL_SERIAL is a serial level");
        assertThatThrownBy(() -> b.freshTimeout(Duration.ZERO)).hasMessageContaining("freshTimeout").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> b.freshTimeout(Duration.ofSeconds(-1))).hasMessageContaining("freshTimeout");
        assertThatThrownBy(() -> b.freshTimeout(null)).hasMessageContaining("freshTimeout");
        assertThatThrownBy(() -> b.projectKeyspace("gsi; DROP")).hasMessageContaining("projectKeyspace").hasMessageContaining("gsi; DROP");
        assertThatThrownBy(() -> b.pageTokenSecret("")).hasMessageContaining("pageTokenSecret");
        assertThatThrownBy(() -> b.service(URI.create("ftp://127.0.0.1:8080"))).hasMessageContaining("http or https")
                .hasMessageContaining("ftp://127.0.0.1:8080");
        assertThatThrownBy(() -> b.service(URI.create("localhost:8080"))).hasMessageContaining("http or https");
        assertThatThrownBy(() -> b.service(URI.create("http://127.0.0.1:8080/?as_of=safe"))).hasMessageContaining("without a query");
        assertThatThrownBy(() -> b.service(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("service");
    }

    @Test
    void should_take_good_settings_without_asking_cassandra() {
        GsiClient.builder(NO_CASSANDRA).checkConcurrency(1).checkConcurrency(1024).consistency(DefaultConsistencyLevel.QUORUM)
                .freshTimeout(Duration.ofMillis(1)).projectKeyspace("gsi_2").pageTokenSecret("s").service(URI.create("https://gsi.example:8443/"))
                .readRepair(false);
    }

    @Test
    void should_name_the_file_when_a_definition_cannot_be_read(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("missing.json");
        assertThatThrownBy(() -> GsiClient.builder(NO_CASSANDRA).definitions(missing)).isInstanceOf(GsiDefinitionException.class)
                .hasMessageContaining("missing.json").hasMessageContaining("cannot read");
        Path bad = Files.writeString(dir.resolve("users.json"), "{\"keyspace\": \"app\", \"table\": \"users\", \"attributes\": {\"id\": \"uuid\","
                + " \"email\": \"strnig\"}, \"index\": [{\"type\": \"hash\", \"attribute\": \"id\"}], \"secondaryIndexes\": {}}");
        assertThatThrownBy(() -> GsiClient.builder(NO_CASSANDRA).definitions(bad)).isInstanceOf(GsiDefinitionException.class)
                .hasMessageContaining("users.json").hasMessageContaining("strnig")
                .satisfies(e -> assertThat(((GsiException) e).error()).isEqualTo("bad_definition"));
    }

    @Test
    void should_refuse_values_it_cannot_send_naming_which_and_why() {
        try (GsiClient gsi = GsiClient.builder(NO_CASSANDRA).readRepair(false).build()) {
            assertThatThrownBy(() -> gsi.query("wiki", "revisions", "by_length", 1, null)).isInstanceOf(GsiBadRequestException.class)
                    .hasMessageContaining("value 2 of wiki.revisions/by_length is null")
                    .satisfies(e -> assertThat(((GsiException) e).error()).isEqualTo("bad_value"));
            assertThatThrownBy(() -> gsi.query("wiki", "revisions", "by_length", new Object())).isInstanceOf(GsiBadRequestException.class)
                    .hasMessageContaining("value 1 of wiki.revisions/by_length is a java.lang.Object");
            assertThatThrownBy(() -> gsi.query("wiki", "", "by_length")).isInstanceOf(GsiBadRequestException.class)
                    .hasMessageContaining("the table name is empty");
            assertThatThrownBy(() -> gsi.query(null, "revisions", "by_length")).hasMessageContaining("the keyspace name is null");
            IndexQuery q = gsi.query("wiki", "revisions", "by_length", BigInteger.valueOf(1024));
            assertThatThrownBy(() -> q.ge(new StringBuilder("x"))).hasMessageContaining("bound ge is a java.lang.StringBuilder");
            assertThatThrownBy(() -> q.fresh(Duration.ofMillis(-1))).isInstanceOf(GsiBadRequestException.class).hasMessageContaining("max_wait");
            assertThat(q.limit(10).consistent().toString()).isEqualTo("wiki.revisions/by_length[1024]");
        }
    }

    @Test
    void should_refuse_reads_once_closed() {
        GsiClient gsi = GsiClient.builder(NO_CASSANDRA).readRepair(false).build();
        IndexQuery q = gsi.query("wiki", "revisions", "by_length", 7);
        gsi.close();
        assertThatThrownBy(q::read).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }
}
