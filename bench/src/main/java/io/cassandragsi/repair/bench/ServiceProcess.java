package io.cassandragsi.repair.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.cli.CommandFailedException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The repair service in its own JVM, as {@code ./gsi serve} runs it next to a cluster, for the
 * end-to-end variants of {@code gsi bench write}: started before a phase, its CPU time read from
 * {@code /proc}, its backlog read from {@code /admin/status}, stopped (SIGTERM: it checkpoints and
 * gives its shards back) after the phase.
 */
final class ServiceProcess implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final Process process;
    private final URI status;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private ServiceProcess(Process process, URI status) {
        this.process = process;
        this.status = status;
    }

    /**
     * Starts {@code gsi serve} against the node and waits until its HTTP API answers; with {@code
     * recording} (else null) its JVM records a JFR profile there, written when it stops.
     */
    static ServiceProcess start(Path home, Path workDir, List<InetSocketAddress> nodes, String datacenter, Path recording) {
        Path jar = home.resolve("repair-service/target/gsi.jar");
        if (!Files.isRegularFile(jar)) {
            throw new CommandFailedException("the end-to-end variants run the service from " + jar + ", which is missing: build with ./gsi");
        }
        int port = freePort();
        try {
            Files.createDirectories(workDir);
            Path config = workDir.resolve("service.yaml");
            String contactPoints = nodes.stream().map(n -> "\"" + n.getHostString() + ":" + n.getPort() + "\"")
                    .collect(java.util.stream.Collectors.joining(", "));
            Files.writeString(config, "cassandra:\n  contact_points: [ " + contactPoints + " ]\n"
                    + "  local_datacenter: " + datacenter + "\nhttp:\n  bind: 127.0.0.1\n  port: " + port + "\n"
                    // the write benchmarks measure the write path; anti-entropy's background pace would add to some phases only
                    + "anti_entropy:\n  enabled: false\n", StandardCharsets.UTF_8);
            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            List<String> command = new java.util.ArrayList<>(List.of(java.toString(), "-Xmx1g"));
            if (recording != null) {
                command.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + recording);
            }
            command.addAll(List.of("-jar", jar.toString(), "serve", "--config", config.toString()));
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("service.log").toFile()))
                    .start();
            ServiceProcess s = new ServiceProcess(p, URI.create("http://127.0.0.1:" + port + "/admin/status"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            while (s.statusOrNull() == null) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    s.close();
                    throw new CommandFailedException("the repair service did not start (exit " + (p.isAlive() ? "none" : p.exitValue())
                            + "); see " + workDir.resolve("service.log"));
                }
                Thread.sleep(200);
            }
            return s;
        } catch (IOException e) {
            throw new CommandFailedException("cannot start the repair service: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted while starting the repair service", e);
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new CommandFailedException("no free port for the repair service's HTTP API: " + e.getMessage(), e);
        }
    }

    /** CPU time (user + system, all threads) the service has used. */
    long cpuNanos() {
        long ticks = NodeProbe.readCpuTicks(process.pid());
        if (ticks < 0) {
            throw new CommandFailedException("the repair service (pid " + process.pid() + ") is gone");
        }
        return ticks * 1_000_000_000L / NodeProbe.clockTicksPerSecond();
    }

    private JsonNode statusOrNull() {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(status).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Waits until the service has nothing left to do (no marker finished for 3 s, no lag, nothing
     * pending), at most {@code max}; returns the seconds it took, without the 3 s of confirmation.
     */
    double awaitDrained(Duration max) throws InterruptedException {
        JsonNode[] status = {null};
        double waited = BenchNode.awaitQuiet(() -> {
            status[0] = statusOrNull();
            return status[0] == null ? -2 : status[0].path("markers_done").asLong();
        }, () -> status[0] != null && status[0].path("lag_ms").asLong(1) == 0 && status[0].path("pending_retries").asLong(1) == 0, max);
        return Math.max(0, waited - 3.0);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
