package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.conf.TlsMaterial;
import io.cassandragsi.repair.cli.SecureSetup;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.schema.SchemaApplier;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.repair.service.MissingGrantsException;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node set up as {@code gsi up --secure} sets it up (password authentication, CassandraAuthorizer,
 * TLS required on the CQL port, the default superuser replaced, the service's least-privilege role),
 * on its own address and JMX port beside the suite's shared node. The repair service runs as that
 * role with an HTTP token; a client role that may write the base table only writes through the
 * trigger.
 */
class SecureIT {
    private static final String KS = "secure_wiki";
    private static final Path WORK = Path.of("target/secure-it");
    private static LocalCluster cluster;
    private static SecureSetup.Login admin;
    private static CqlSession adminSession;
    private static TableDef def;

    @BeforeAll
    static void setUp() throws IOException {
        long t0 = System.nanoTime();
        Path tls = WORK.resolve("tls");
        if (Files.isDirectory(tls)) { // a CA of an earlier run: LocalCluster wipes the node directories, not this one
            try (var files = Files.list(tls)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.delete(p);
                }
            }
        }
        Path jar = Path.of(System.getProperty("gsi.trigger.jar", "../trigger/target/cassandra-gsi-trigger.jar"));
        cluster = LocalCluster.builder()
                .nodes(1)
                .workDir(WORK)
                .firstAddress(System.getProperty("gsi.it.secure.address", "127.0.6.1"))
                .jmxPortBase(Integer.getInteger("gsi.it.secure.jmx", 7699))
                .triggerJar(jar)
                .secure(tls)
                .startupTimeout(Duration.ofMinutes(3))
                .build();
        cluster.start();
        admin = SecureSetup.replaceDefaultSuperuser(cluster);
        GsiConfig adminConfig = SecureSetup.config(cluster, admin, HttpConfig.defaults());
        adminSession = CqlSessions.open(adminConfig);
        def = SharedCluster.example("revisions", KS);
        PrintWriter quiet = new PrintWriter(new StringWriter());
        new SchemaApplier(adminConfig, quiet, quiet)
                .apply(adminSession, List.of(def), "{'class': 'SimpleStrategy', 'replication_factor': 1}", false);
        adminSession.execute("CREATE ROLE app WITH LOGIN = true AND PASSWORD = 'app-password'");
        adminSession.execute("GRANT SELECT ON TABLE " + KS + ".revisions TO app");
        adminSession.execute("GRANT MODIFY ON TABLE " + KS + ".revisions TO app");
        System.out.printf("SecureIT: secure node up and set up at %s in %.1f s%n", cluster.contactPoint(0),
                (System.nanoTime() - t0) / 1e9);
    }

    @AfterAll
    static void tearDown() {
        if (adminSession != null) {
            adminSession.close();
        }
        if (cluster != null) {
            cluster.stop();
        }
    }

    private static CqlSession login(String role, String password) {
        return CqlSessions.open(SecureSetup.config(cluster, new SecureSetup.Login(role, password), HttpConfig.defaults()));
    }

    @Test
    void should_index_writes_and_serve_reads_when_the_service_runs_as_its_least_privilege_role() throws Exception {
        SecureSetup.Login service = SecureSetup.createServiceRole(adminSession, SecureSetup.SERVICE_ROLE, "gsi", List.of(def));
        String token = TlsMaterial.randomSecret();
        GsiConfig config = SecureSetup.config(cluster, service, new HttpConfig("127.0.0.1", 0, token, false));
        try (CqlSession serviceSession = CqlSessions.open(config);
                GsiServer server = new GsiServer(serviceSession, config);
                CqlSession app = login("app", "app-password")) {
            // the trigger indexes the first version; the second changes the indexed value, so the service
            // must mark the first entry deleted (a write USING TIMESTAMP, ten times a microsecond clock)
            app.execute("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('Main', now(), 1024, 'first')");
            app.execute("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('Main', now(), 2048, 'second')");
            // a write that leaves out the projected value: the service reads the stored version to complete it
            app.execute("INSERT INTO " + KS + ".revisions (key, tid, length) VALUES ('Other', now(), 4096)");

            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String base = "http://127.0.0.1:" + server.httpPort() + "/v1/" + KS + "/revisions//by_length/";
            assertThat(get(http, base + "2048", null).statusCode()).isEqualTo(401);
            assertThat(get(http, base + "2048?consistent=true", token).body()).contains("\"key\":\"Main\"", "second");
            awaitBody(http, base + "1024", token, "{\"items\":[]");
            awaitBody(http, base + "4096", token, "\"key\":\"Other\"");
            String status = get(http, "http://127.0.0.1:" + server.httpPort() + "/admin/status", token).body();
            // the service's writes went through as its role; how often it wrote the one mark depends on
            // whether the two versions' markers were diffed together (each diff sees the pair)
            Map<?, ?> counters = new com.fasterxml.jackson.databind.ObjectMapper().readValue(status, Map.class);
            assertThat(counters.get("errors")).isEqualTo(0);
            assertThat(((Number) counters.get("entries_marked_deleted")).intValue()).isBetween(1, 2);
        }
    }

    @Test
    void should_refuse_a_write_to_an_index_table_by_a_role_that_may_write_the_base_table_only() {
        try (CqlSession app = login("app", "app-password")) {
            assertThatThrownBy(() -> app.execute("INSERT INTO " + KS + ".idx_revisions_by_length_ever (length, key, \"_tid\")"
                    + " VALUES (1, 'forged', now())"))
                    .isInstanceOf(UnauthorizedException.class)
                    .hasMessageContaining("has no MODIFY permission on <table " + KS + ".idx_revisions_by_length_ever>");
            assertThatThrownBy(() -> app.execute("SELECT * FROM gsi.queue LIMIT 1"))
                    .isInstanceOf(UnauthorizedException.class);
        }
    }

    @Test
    void should_refuse_to_start_the_service_naming_the_grant_when_its_role_lacks_one() {
        SecureSetup.Login weak = SecureSetup.createServiceRole(adminSession, "gsi_weak", "gsi", List.of(def));
        adminSession.execute("REVOKE MODIFY ON TABLE " + KS + ".idx_revisions_by_tid_ever FROM gsi_weak");
        GsiConfig config = SecureSetup.config(cluster, weak, new HttpConfig("127.0.0.1", 0, "t", false));
        try (CqlSession session = CqlSessions.open(config)) {
            assertThatThrownBy(() -> new GsiServer(session, config).close())
                    .isInstanceOf(MissingGrantsException.class)
                    .hasMessage("role 'gsi_weak' lacks a grant the repair service needs: MODIFY on table " + KS
                            + ".idx_revisions_by_tid_ever. As a superuser: GRANT MODIFY ON TABLE " + KS
                            + ".idx_revisions_by_tid_ever TO 'gsi_weak';");
        }
    }

    @Test
    void should_refuse_clients_without_tls_and_the_default_superuser() {
        DriverConfigLoader plain = DriverConfigLoader.programmaticBuilder()
                .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, Duration.ofSeconds(2))
                .build();
        assertThatThrownBy(() -> CqlSession.builder().withConfigLoader(plain).addContactPoint(cluster.contactPoint(0))
                .withLocalDatacenter(cluster.localDatacenter()).withAuthCredentials(admin.role(), admin.password()).build()
                .close()).isInstanceOf(com.datastax.oss.driver.api.core.AllNodesFailedException.class);
        assertThatThrownBy(() -> login(LocalCluster.DEFAULT_SUPERUSER, LocalCluster.DEFAULT_SUPERUSER).close())
                .hasMessageContaining("cassandra");
    }

    private static HttpResponse<String> get(HttpClient http, String url, String token) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls until the body contains {@code expected} (the service works in the background), for at most 20 s. */
    private static void awaitBody(HttpClient http, String url, String token, String expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String body;
        do {
            HttpResponse<String> r = get(http, url, token);
            assertThat(r.statusCode()).isEqualTo(200);
            body = r.body();
            if (body.contains(expected)) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(body).as(url).contains(expected);
    }
}
