package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The repair service as operators run it: {@code gsi serve} in its own JVM. Killed with kill -9
 * in the middle of a backlog and started again, it converges to the oracle; two instances at once
 * split the shards between them and converge too.
 */
class ServiceProcessIT {
    private static final HttpClient HTTP = ServeProcess.HTTP;
    private final List<ServeProcess> processes = new ArrayList<>();

    @AfterEach
    void stopAll() {
        processes.forEach(ServeProcess::close);
    }

    private ServeProcess serve(String name, int httpPort) throws IOException, InterruptedException {
        ServeProcess p = ServeProcess.start(name, httpPort, List.of(SharedCluster.contactPoint()), "");
        processes.add(p);
        return p.awaitUp();
    }

    @Test
    void should_converge_when_the_service_is_killed_mid_backlog_and_restarted() throws Exception {
        CqlSession session = SharedCluster.session();
        TableDef def = SharedCluster.example("revisions", "it_kill");
        SharedCluster.apply(def);
        long seed = RepairServiceIT.seed();
        System.out.println("ServiceProcessIT kill seed " + seed);
        ServeProcess first = serve("kill-first", 18091);
        HistoryRun run = new HistoryRun(session, def, seed);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        Future<?> writing = writer.submit(() -> {
            run.write(30, 1200, 3);
            return null;
        });
        Thread.sleep(1500);
        first.kill(); // kill -9, mid-backlog
        writing.get();
        writer.shutdown();
        ServeProcess second = serve("kill-second", 18092);
        Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 120_000);
        System.out.println("after kill -9 and restart: " + drift + "; " + second.status());
        for (HistoryRun.Drift d : drift.values()) {
            assertThat(d.clean()).as("seed %d: %s", seed, d).isTrue();
        }
        seenByPeople(second);
    }

    /**
     * What an operator sees of a running service: {@code gsi status} (a process, as from a
     * terminal), the page at {@code GET /}, and every metric the Grafana dashboard in docs/ charts.
     */
    private void seenByPeople(ServeProcess service) throws Exception {
        int port = service.port;
        ServeProcess.Printed status = service.statusCommand();
        String printed = status.text();
        assertThat(status.exit()).as(printed).isZero();
        assertThat(printed).startsWith("Repair service (http://127.0.0.1:" + port + ")").contains("Cassandra nodes")
                .containsPattern("\\n  \\S+:\\d+ +\\S+ +UP\\n").contains("it_kill.revisions/by_length").contains("safe time, tables in service mode");
        HttpResponse<String> page = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<h2>Waiting for</h2>").contains("it_kill.revisions/by_length");
        String metrics = service.get("/metrics");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("gsi_[a-z_]+").matcher(Files.readString(Path.of("../docs/grafana-dashboard.json")));
        Set<String> charted = new java.util.TreeSet<>();
        while (m.find()) {
            charted.add(m.group());
        }
        assertThat(charted).isNotEmpty().allSatisfy(name -> assertThat(metrics).as("/metrics has %s", name).containsPattern("(?m)^" + name + "[{ ]"));
    }

    @Test
    void should_split_the_shards_and_converge_when_two_instances_run() throws Exception {
        CqlSession session = SharedCluster.session();
        TableDef def = SharedCluster.example("revisions", "it_two");
        SharedCluster.apply(def);
        long seed = RepairServiceIT.seed() + 17;
        System.out.println("ServiceProcessIT two instances seed " + seed);
        ServeProcess a = serve("two-a", 18093);
        ServeProcess b = serve("two-b", 18094);
        HistoryRun run = new HistoryRun(session, def, seed);
        run.write(30, 1200, 3);
        // balanced: each holds its fair share, and no shard is held by both
        long deadline = System.currentTimeMillis() + 60_000;
        Set<Integer> sa;
        Set<Integer> sb;
        do {
            Thread.sleep(500);
            sa = a.shards();
            sb = b.shards();
        } while ((sa.size() != 4 || sb.size() != 4) && System.currentTimeMillis() < deadline);
        System.out.println("instance a shards " + sa + ", instance b shards " + sb);
        assertThat(sa).hasSize(4);
        assertThat(sb).hasSize(4);
        assertThat(sa).doesNotContainAnyElementsOf(sb);
        Map<String, HistoryRun.Drift> drift = RepairServiceIT.awaitConverged(run, 120_000);
        for (HistoryRun.Drift d : drift.values()) {
            assertThat(d.clean()).as("seed %d: %s", seed, d).isTrue();
        }
        // the safe time spans both instances' shards (each learns the other's progress from the checkpoints table)
        for (int port : new int[] {18093, 18094}) {
            HttpResponse<String> safe = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/v1/it_two/revisions//by_length/1?as_of=safe")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(safe.statusCode()).as(safe.body()).isEqualTo(200);
            java.time.Instant asOf = java.time.Instant.parse(String.valueOf(new com.fasterxml.jackson.databind.ObjectMapper().readValue(safe.body(),
                    Map.class).get("as_of")));
            System.out.println("instance on " + port + ": as_of=safe answered as of " + asOf);
            // both instances' progress, recorded every 2 s; the history's conditional writes hold it up to 10 s after their markers
            assertThat(asOf).as("a safe time of both instances' progress").isAfter(java.time.Instant.now().minusSeconds(30));
        }
        // one instance dies: the other takes its shards over
        a.kill();
        deadline = System.currentTimeMillis() + 60_000;
        do {
            Thread.sleep(500);
            sb = b.shards();
        } while (sb.size() != 8 && System.currentTimeMillis() < deadline);
        assertThat(sb).as("the survivor takes over all shards").hasSize(8);
        List<Row> leases = session.execute("SELECT shard, owner FROM gsi.leases").all();
        assertThat(leases.stream().map(r -> r.getString("owner")).distinct()).hasSize(1);
    }
}
