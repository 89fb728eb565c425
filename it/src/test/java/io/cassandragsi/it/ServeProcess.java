package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The repair service as operators run it: {@code gsi serve} in a JVM of its own, with a config
 * file of its own, killed, frozen and thawed as an operating system does it (kill -9, SIGSTOP,
 * SIGCONT).
 */
final class ServeProcess implements AutoCloseable {
    static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    final String name;
    final int port;
    private final Process process;

    private ServeProcess(String name, int port, Process process) {
        this.name = name;
        this.port = port;
        this.process = process;
    }

    /**
     * Starts {@code gsi serve} against {@code contactPoints}, its HTTP API on {@code port};
     * {@code extraYaml} is appended to the config (another section, such as {@code anti_entropy:}).
     * Its output goes to {@code it/target/serve/<name>.log}.
     */
    static ServeProcess start(String name, int port, List<InetSocketAddress> contactPoints, String extraYaml) throws IOException {
        return start(name, port, contactPoints, "", extraYaml);
    }

    /** As {@link #start(String, int, List, String)}, with {@code httpYaml} (indented keys) in the {@code http:} section. */
    static ServeProcess start(String name, int port, List<InetSocketAddress> contactPoints, String httpYaml, String extraYaml) throws IOException {
        Path jar = Path.of("../repair-service/target/gsi.jar");
        assertThat(jar).as("gsi.jar is built in the package phase").exists();
        Path dir = Files.createDirectories(Path.of("target/serve"));
        Path config = dir.resolve(name + ".yaml");
        String points = contactPoints.stream().map(cp -> "\"" + cp.getAddress().getHostAddress() + ":" + cp.getPort() + "\"")
                .collect(Collectors.joining(", "));
        Files.writeString(config, "cassandra:\n  contact_points: [" + points + "]\nhttp:\n  port: " + port + "\n" + httpYaml + extraYaml);
        Path log = dir.resolve(name + ".log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar",
                jar.toString(), "serve", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ServeProcess(name, port, p);
    }

    /** {@code /admin/status} as a map, or null while the API does not answer (starting, frozen, dead). */
    Map<String, Object> status() {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/admin/status"))
                    .timeout(java.time.Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            @SuppressWarnings("unchecked")
            Map<String, Object> m = JSON.readValue(r.body(), Map.class);
            return m;
        } catch (Exception e) {
            return null;
        }
    }

    /** What a {@code gsi status --url} process printed, and its exit code. */
    record Printed(int exit, String text) {}

    /** {@code gsi status --url} for this instance, run as an operator runs it from a terminal. */
    Printed statusCommand() throws IOException, InterruptedException {
        Process status = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                Path.of("../repair-service/target/gsi.jar").toString(), "status", "--url", "http://127.0.0.1:" + port).redirectErrorStream(true)
                .start();
        String printed = new String(status.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        return new Printed(status.waitFor(), printed);
    }

    /** What {@code gsi status --url} prints for this instance. */
    String statusText() throws IOException, InterruptedException {
        return statusCommand().text();
    }

    /** The status page at {@code GET /}, or an empty string while the API does not answer. */
    String page() {
        return get("/");
    }

    /** The body of {@code GET path} ({@code /metrics}, ...), or an empty string while the API does not answer. */
    String get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(java.time.Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** Waits until the API answers; fails naming the log when the process exits or takes over 2 minutes. */
    ServeProcess awaitUp() throws InterruptedException {
        long deadline = System.currentTimeMillis() + 120_000;
        while (status() == null) {
            assertThat(process.isAlive()).as("gsi serve %s on port %d exited; see it/target/serve/%s.log", name, port, name).isTrue();
            assertThat(System.currentTimeMillis()).as("gsi serve %s on port %d did not come up", name, port).isLessThan(deadline);
            Thread.sleep(300);
        }
        return this;
    }

    /** The queue shards this instance holds leases on. */
    @SuppressWarnings("unchecked")
    Set<Integer> shards() {
        Map<String, Object> s = status();
        return s == null ? Set.of() : new HashSet<>((List<Integer>) s.get("shards"));
    }

    /** kill -9, as the kernel's OOM killer or an operator's mistake does it. */
    void kill() throws InterruptedException {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor();
    }

    /** SIGSTOP: every thread frozen (a long GC pause, a suspended VM), leases and sockets left as they are. */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** SIGCONT after {@link #freeze}. */
    void thaw() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).redirectErrorStream(true).start();
        assertThat(kill.waitFor()).as("kill %s %d", signal, process.pid()).isZero();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                thaw(); // a frozen process ignores SIGTERM until thawed, not SIGKILL; thaw anyway so nothing stays stopped
            } catch (Exception ignored) {
                // it died meanwhile
            }
            process.destroyForcibly();
        }
    }
}
