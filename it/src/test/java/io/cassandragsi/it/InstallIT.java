package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.conf.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The release as an operator installs it (docs/deployment.md): the built tarball unpacked into a
 * temporary directory and run from there alone (bin/gsi with a Java runtime: no Maven, no source
 * tree, no classpath of the build), against a node of its own started with the tarball's trigger
 * jar: {@code schema apply} of an example from {@code conf/examples}, {@code serve} with the
 * tarball's annotated {@code conf/gsi.yaml}, writes, an indexed read over HTTP; every place that
 * reports the version reports the built one; then a trigger jar of a newer version is swapped in
 * with {@code nodetool reloadtriggers} under writes, nothing is lost ({@code bin/gsi check} finds
 * no drift over every row, the base holds every acknowledged write), the node's JMX reports the new
 * version and the service warns, in its status and its log, that the node's jar differs from its
 * own. About 90 s, a third of it the node's start and a quarter {@code schema apply}.
 */
class InstallIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ADDRESS = System.getProperty("gsi.it.install.address", "127.0.8.1");
    private static final int JMX = Integer.getInteger("gsi.it.install.jmx", 7899);
    private static final int HTTP_PORT = Integer.getInteger("gsi.it.install.http", 18291);
    private static final String NEWER = "-upgrade-test";

    private Path temp;
    private LocalCluster cluster;
    private Process serve;

    @AfterEach
    void tearDown() throws IOException, InterruptedException {
        if (serve != null) {
            serve.destroy();
            serve.waitFor();
        }
        if (cluster != null) {
            cluster.close();
        }
        if (temp != null) {
            try (Stream<Path> s = Files.walk(temp)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void should_install_serve_check_and_upgrade_the_trigger_from_the_release_tarball() throws Exception {
        long t0 = System.nanoTime();
        String version = System.getProperty("gsi.version");
        Path tarball = Path.of(System.getProperty("gsi.tarball", "../dist/target/cassandra-gsi-" + version + ".tar.gz")).toAbsolutePath();
        assertThat(tarball).as("the release tarball is built at package (dist module)").isRegularFile();
        System.out.printf("InstallIT: %s, %.1f MiB%n", tarball.getFileName(), Files.size(tarball) / 1048576.0);

        temp = Files.createTempDirectory("gsi-install-it");
        assertThat(run(temp, List.of("tar", "-xzf", tarball.toString())).exit()).isZero();
        Path home = temp.resolve("cassandra-gsi-" + version);
        assertThat(home.resolve("bin/gsi")).isExecutable();
        for (String part : List.of("lib", "trigger/cassandra-gsi-trigger.jar", "conf/gsi.yaml", "conf/logback.xml", "conf/cassandra-gsi.service",
                "conf/examples/users.json", "docs/deployment.md", "LICENSE", "NOTICE", "SHA256SUMS", "Dockerfile", "CHANGELOG.md",
                "client/cassandra-gsi-client-" + version + ".jar", "client/pom.xml")) {
            assertThat(home.resolve(part)).as("the release has %s", part).exists();
        }
        Printed sums = run(home, List.of("sha256sum", "-c", "--quiet", "SHA256SUMS"));
        assertThat(sums.exit()).as(sums.text()).isZero();
        Printed printedVersion = gsi(home, "--version");
        assertThat(printedVersion.text().strip()).isEqualTo("gsi " + version);
        Printed up = gsi(home, "up");
        assertThat(up.exit()).as(up.text()).isEqualTo(1);
        assertThat(up.text()).contains("this command needs the source checkout");
        System.out.printf("InstallIT: unpacked and checked at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        cluster = LocalCluster.builder().nodes(1).workDir(Path.of("target/install-it")).firstAddress(ADDRESS).jmxPortBase(JMX)
                .triggerJar(home.resolve("trigger/cassandra-gsi-trigger.jar")).startupTimeout(Duration.ofMinutes(3)).build();
        cluster.start();
        long nodeUp = System.nanoTime();
        System.out.printf("InstallIT: node up at %s in %.1f s%n", cluster.contactPoint(0), (nodeUp - t0) / 1e9);

        // The annotated config of the release, pointed at this node and a port of the test's.
        String yaml = Files.readString(home.resolve("conf/gsi.yaml"))
                .replace("\"127.0.0.1:9042\"", "\"" + ADDRESS + ":" + cluster.contactPoint(0).getPort() + "\"")
                .replace("local_datacenter: datacenter1", "local_datacenter: " + cluster.localDatacenter())
                .replace("port: 8080", "port: " + HTTP_PORT);
        Path config = temp.resolve("gsi.yaml");
        Files.writeString(config, yaml);

        Printed apply = gsi(home, "schema", "apply", "--config", config.toString(), "--replication",
                "{'class': 'SimpleStrategy', 'replication_factor': 1}", "conf/examples/users.json");
        assertThat(apply.exit()).as(apply.text()).isZero();
        System.out.printf("InstallIT: schema apply done at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        Path serveLog = Path.of("target/install-it-serve.log").toAbsolutePath();
        serve = gsiProcess(home, "serve", "--config", config.toString()).redirectErrorStream(true).redirectOutput(serveLog.toFile()).start();
        awaitStatus(serveLog);
        System.out.printf("InstallIT: serve answered at %.1f s%n", (System.nanoTime() - t0) / 1e9);

        try (CqlSession session = CqlSession.builder().addContactPoint(cluster.contactPoint(0)).withLocalDatacenter(cluster.localDatacenter())
                .build()) {
            PreparedStatement insert = session.prepare("INSERT INTO app.users (id, email, country, age, name) VALUES (?, ?, ?, ?, ?)");
            for (int i = 0; i < 50; i++) {
                session.execute(insert.bind("u" + i, "u" + i + "@example.com", i % 2 == 0 ? "SE" : "FR", 20 + i % 40, "User " + i));
            }
            Map<String, Object> first = read("/v1/app/users//by_email/u7%40example.com");
            System.out.printf("InstallIT: unpack to first indexed read %.1f s (node start %.1f s of it)%n", (System.nanoTime() - t0) / 1e9,
                    (nodeUp - t0) / 1e9);
            assertThat((List<?>) first.get("items")).as("%s", first).hasSize(1);

            // bin/gsi check runs once, after the trigger swap below: it covers these rows too (a JVM start less).
            Map<String, Object> status = status();
            assertThat(status.get("version")).isEqualTo(version);
            assertThat(get("/metrics")).contains("gsi_build_info{version=\"" + version + "\"} 1");
            assertThat(get("/")).contains("cassandra-gsi " + version);
            assertThat(jmxVersion()).isEqualTo(version);
            awaitTriggerVersion(version);

            // A newer trigger jar swapped in under writes: nothing lost.
            Path newer = newerTriggerJar(home.resolve("trigger/cassandra-gsi-trigger.jar"), version + NEWER);
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger written = new AtomicInteger(50);
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<?> writing = writer.submit(() -> {
                while (!stop.get()) {
                    int i = written.get();
                    session.execute(insert.bind("u" + i, "u" + i + "@example.com", i % 2 == 0 ? "SE" : "FR", 20 + i % 40, "User " + i));
                    written.incrementAndGet();
                }
                return null;
            });
            Thread.sleep(1000);
            Path installed = onlyJar(cluster.triggersDir(0));
            Path staged = installed.resolveSibling(".upgrade.tmp");
            Files.copy(newer, staged, StandardCopyOption.REPLACE_EXISTING);
            Files.move(staged, installed, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            System.out.println("InstallIT: nodetool reloadtriggers: " + cluster.nodetool(0, "reloadtriggers").strip());
            Thread.sleep(2000);
            stop.set(true);
            writing.get();
            writer.shutdown();
            int rows = written.get();
            System.out.println("InstallIT: " + rows + " rows written across the trigger swap");

            assertThat(jmxVersion()).isEqualTo(version + NEWER);
            long count = session.execute("SELECT count(*) FROM app.users").one().getLong(0);
            assertThat(count).isEqualTo(rows);
            Printed after = awaitCleanCheck(home, config);
            assertThat(after.exit()).as(after.text()).isZero();
            System.out.printf("InstallIT: bin/gsi check clean at %.1f s%n", (System.nanoTime() - t0) / 1e9);
            for (int i : new int[] {0, rows / 2, rows - 1}) {
                Map<String, Object> r = read("/v1/app/users//by_email/u" + i + "%40example.com");
                assertThat((List<?>) r.get("items")).as("row u%d: %s", i, r).hasSize(1);
            }
            String warning = awaitTriggerVersion(version + NEWER);
            assertThat(warning).contains("runs trigger jar " + version + NEWER).contains("this service is " + version);
            assertThat(Files.readString(serveLog)).contains("runs trigger jar " + version + NEWER);
        }
        System.out.printf("InstallIT: %.1f s in all%n", (System.nanoTime() - t0) / 1e9);
    }

    /** What a process printed (stdout and stderr), and its exit code. */
    record Printed(int exit, String text) {}

    private static Printed run(Path dir, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Printed(p.waitFor(), text);
    }

    /**
     * {@code bin/gsi args...} run from the release's directory with an environment of its own: a
     * Java runtime through JAVA_HOME, a system PATH, nothing of the build.
     */
    private static ProcessBuilder gsiProcess(Path home, String... args) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("bin/gsi").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).directory(home.toFile());
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", "/usr/bin:/bin");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("GSI_JAVA_OPTS", "-Xmx384m -Dgsi.trigger_versions.every_ms=1000");
        return pb;
    }

    private static Printed gsi(Path home, String... args) throws IOException, InterruptedException {
        Process p = gsiProcess(home, args).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Printed(p.waitFor(), text);
    }

    /** A copy of the trigger jar that says it is {@code version}: its build properties rewritten. */
    private Path newerTriggerJar(Path jar, String version) throws IOException {
        Path copy = temp.resolve("cassandra-gsi-trigger-" + version + ".jar");
        Files.copy(jar, copy);
        try (FileSystem zip = FileSystems.newFileSystem(copy)) {
            Path props = zip.getPath("io/cassandragsi/schema/gsi-build.properties");
            assertThat(props).as("the trigger jar carries the build's version").exists();
            Files.writeString(props, "version=" + version + "\n");
        }
        return copy;
    }

    private static Path onlyJar(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            List<Path> jars = s.filter(p -> p.getFileName().toString().endsWith(".jar")).toList();
            assertThat(jars).as("the node's triggers directory holds one jar").hasSize(1);
            return jars.get(0);
        }
    }

    private String jmxVersion() throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + cluster.jmxPort(0) + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url)) {
            return (String) c.getMBeanServerConnection().getAttribute(new ObjectName("io.cassandragsi:type=Trigger"), "Version");
        }
    }

    /**
     * Waits until the service's status lists this node's trigger at {@code version}; returns the
     * status's warnings about trigger versions (empty when the versions agree).
     */
    @SuppressWarnings("unchecked")
    private String awaitTriggerVersion(String version) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            Map<String, Object> tv = (Map<String, Object>) status().get("trigger_versions");
            List<Map<String, Object>> nodes = (List<Map<String, Object>>) tv.get("nodes");
            if (nodes.size() == 1 && version.equals(nodes.get(0).get("version"))) {
                List<String> warnings = (List<String>) tv.get("warnings");
                return String.join("\n", warnings);
            }
            assertThat(System.currentTimeMillis()).as("the node's trigger version %s in the status: %s", version, tv).isLessThan(deadline);
            Thread.sleep(300);
        }
    }

    /** {@code bin/gsi check} until it finds no drift (the service may still be behind the last writes), for 30 s at most. */
    private static Printed awaitCleanCheck(Path home, Path config) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            Printed check = gsi(home, "check", "--config", config.toString(), "--no-progress", "app.users");
            if (check.exit() == 0 || System.currentTimeMillis() > deadline) {
                return check;
            }
            Thread.sleep(1000);
        }
    }

    private void awaitStatus(Path log) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        while (true) {
            try {
                status();
                return;
            } catch (IOException e) {
                assertThat(serve.isAlive()).as("bin/gsi serve exited; see %s:%n%s", log, Files.readString(log)).isTrue();
                assertThat(System.currentTimeMillis()).as("bin/gsi serve did not answer; see %s", log).isLessThan(deadline);
                Thread.sleep(300);
            }
        }
    }

    private static String get(String path) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + HTTP_PORT + path)).timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> status() throws IOException, InterruptedException {
        return JSON.readValue(get("/admin/status"), Map.class);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> read(String path) throws IOException, InterruptedException {
        return JSON.readValue(get(path), Map.class);
    }
}
