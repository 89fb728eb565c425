package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cassandragsi.repair.cli.GsiCommand;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.ProgressListener;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench repair}: how far behind the writes the sibling diffs run, for a table the
 * repair service maintains, one the node maintains ({@code "maintenance": "node"}, docs/design.md
 * section 7.8) and one in eventual indexing (section 7.11: there the lag covers the entries written
 * after the write too), and how fast a rebuild goes, on one local node in one run.
 *
 * <p>Lag: first the maximum indexed write rate (128 in flight) and, once its backlog is drained,
 * the end-to-end rate (its writes over the phase and the drain), then a sustained load at half the
 * end-to-end rate where every write moves its key to another indexed value; for one write in
 * {@value #SAMPLE_EVERY} the time from the write's acknowledgement until the old entry's
 * {@code _deleted} is readable (polled every {@value #POLL_MILLIS} ms) is recorded. The polls stay
 * a small load next to the writes: polling many samples every few milliseconds would itself slow
 * the node down and lengthen the lag it measures. Rebuild: rows/s of {@code rebuild} over the table, next to the rate of inserting
 * the same number of rows into an unindexed table.
 */
@Command(name = "repair", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure repair lag (base write to _deleted set, p50/p99) under a sustained write load at half the"
                + " end-to-end indexed write rate (writes of a phase at full speed over the phase and its drain), for a service-mode, a node-mode and an eventual table, and rebuild rows/s next to the unindexed insert rate; one local node that this command starts."
                + " Writes target/bench/repair.json.", "Takes about 8 minutes; --quick about 4."})
public final class BenchRepairCommand implements Callable<Integer> {
    static final int KEYS = 20_000;

    @Option(names = "--quick", description = "15 s phases and 60k rows for the rebuild instead of 45 s and 200k.")
    boolean quick;

    @picocli.CommandLine.Mixin
    NodeOptions nodeOptions;

    @Spec
    CommandSpec spec;

    private static final String DEF = """
            {"keyspace": "%s", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}]}%s}
            """;

    /** The lag table in {@code keyspace}; {@code options}: more top-level fields of its definition ("" for none). */
    private static TableDef def(String keyspace, String options) {
        return Definitions.parse(DEF.formatted(keyspace, options), keyspace);
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        int phase = quick ? 15 : 45;
        int rebuildRows = quick ? 60_000 : 200_000;
        Path home = Path.of(System.getProperty("gsi.home", ".")).toAbsolutePath().normalize();
        ObjectNode root = new ObjectMapper().createObjectNode();
        try (BenchNode node = nodeOptions.start(home, "target/bench/repair-node", out)) {
            node.apply(def("bench_lag", ""));
            node.apply(def("bench_lag_node", ", \"maintenance\": \"node\""));
            node.apply(def("bench_lag_eventual", ", \"indexing\": \"eventual\"")); // docs/design.md section 7.11
            node.apply(def("bench_rebuild", ""));
            node.ddl("CREATE TABLE IF NOT EXISTS bench_rebuild.plain (key text, tid timeuuid, length varint, value text, PRIMARY KEY ((key), tid))");
            GsiConfig d = GsiConfig.defaults();
            GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                    d.antiEntropy().withEnabled(false)); // measured alone: anti-entropy's background pace is not part of the figure
            try (GsiServer server = new GsiServer(node.session, config); ClusterProbe probe = ClusterProbe.attach(node.cluster)) {
                lag(node, server, null, "bench_lag", phase, out, root.putObject("lag"));
                lag(node, server, probe, "bench_lag_node", phase, out, root.putObject("lag_node_mode"));
                lag(node, server, probe, "bench_lag_eventual", phase, out, root.putObject("lag_eventual"));
                rebuild(node, rebuildRows, out, root);
            }
        }
        root.putObject("config").put("keys", KEYS).put("phase_seconds", phase).put("rebuild_rows", rebuildRows).put("nodes", 1)
                .put("in_flight", 128).put("sample_every", 20);
        Path file = home.resolve("target/bench/repair.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(root));
        out.println("wrote target/bench/repair.json");
        return GsiCommand.OK;
    }

    static final int SAMPLE_EVERY = 50;
    static final int POLL_MILLIS = 10;

    /**
     * The lag of one table: {@code keyspace} maintained by the repair service, or by the node's
     * maintainer when {@code probe} is given (whose backlog then drains too).
     */
    private void lag(BenchNode node, GsiServer server, ClusterProbe probe, String keyspace, int phase, PrintWriter out, ObjectNode result)
            throws Exception {
        String who = probe == null ? "repair service" : keyspace.endsWith("eventual") ? "in-node maintainer, eventual indexing" : "in-node maintainer";
        out.printf(Locale.ROOT, "%s (%s):%n", who, keyspace);
        PreparedStatement insert = node.session.prepare("INSERT INTO " + keyspace + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        PreparedStatement deleted = node.session.prepare(
                "SELECT \"_deleted\" FROM " + keyspace + ".idx_revisions_by_length_ever WHERE length = ? AND key = ?");
        long[] lengths = new long[KEYS];
        String value = "x".repeat(200);
        // maximum indexed write rate
        AtomicLong counter = new AtomicLong();
        Semaphore inFlight = new Semaphore(128);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(phase);
        long t0 = System.nanoTime();
        long written = 0;
        while (System.nanoTime() < end) {
            int k = (int) (written++ % KEYS);
            lengths[k] = (lengths[k] + 1) % 1000;
            inFlight.acquire();
            node.session.executeAsync(insert.bind("key-" + k, Uuids.timeBased(), BigInteger.valueOf(lengths[k]), value))
                    .whenComplete((r, e) -> {
                        inFlight.release();
                        counter.incrementAndGet();
                    });
        }
        inFlight.acquire(128);
        inFlight.release(128);
        double max = counter.get() / ((System.nanoTime() - t0) / 1e9);
        out.printf(Locale.ROOT, "maximum indexed write rate: %.0f writes/s (128 in flight, %d s)%n", max, phase);
        out.flush();
        double drained = probe == null ? 0 : probe.awaitMaintainers(java.time.Duration.ofMinutes(5));
        drained += BenchNode.awaitDrained(server, java.time.Duration.ofMinutes(5));
        double sustained = counter.get() / ((System.nanoTime() - t0) / 1e9);
        out.printf(Locale.ROOT, "%s drained the backlog of that phase in %.1f s: %.0f writes/s end to end%n", who, drained, sustained);
        out.flush();

        // sustained load at half the end-to-end rate (a load the maintainer keeps up with: in eventual indexing the write
        // alone goes several times faster than its maintenance), sampling the lag of one write in SAMPLE_EVERY: every
        // POLL_MILLIS one asynchronous read per pending sample, so a slow sample never delays another
        double rate = sustained / 2;
        long intervalNanos = (long) (1e9 / rate);
        Latencies lag = new Latencies();
        AtomicLong lost = new AtomicLong();
        java.util.concurrent.ConcurrentLinkedQueue<Sample> pending = new java.util.concurrent.ConcurrentLinkedQueue<>();
        java.util.concurrent.atomic.AtomicBoolean writing = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread poller = new Thread(() -> poll(node, deleted, pending, lag, lost, writing), "bench-lag-poller");
        poller.start();
        Latencies safeLag = new Latencies();
        Thread safeSampler = new Thread(() -> sampleSafeTime(server, probe != null, safeLag, writing), "bench-safe-time");
        safeSampler.start();
        end = System.nanoTime() + TimeUnit.SECONDS.toNanos(phase);
        long next = System.nanoTime();
        long i = 0;
        while (System.nanoTime() < end) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            next += intervalNanos;
            int k = (int) (i % KEYS);
            long old = lengths[k];
            lengths[k] = (lengths[k] + 1) % 1000;
            UUID tid = Uuids.timeBased();
            boolean sample = i++ % SAMPLE_EVERY == 0;
            inFlight.acquire();
            node.session.executeAsync(insert.bind("key-" + k, tid, BigInteger.valueOf(lengths[k]), value)).whenComplete((r, e) -> {
                inFlight.release();
                if (e == null && sample) {
                    pending.add(new Sample(BigInteger.valueOf(old), "key-" + k, tid, System.nanoTime()));
                }
            });
        }
        inFlight.acquire(128);
        inFlight.release(128);
        writing.set(false);
        poller.join();
        safeSampler.join();
        double p50;
        double p99;
        synchronized (lag) {
            p50 = lag.percentileMillis(50);
            p99 = lag.percentileMillis(99);
        }
        out.printf(Locale.ROOT, "repair lag at %.0f writes/s (half the end-to-end rate): p50 %.1f ms, p99 %.1f ms over %d samples (%d not seen in 30 s; polled every %d ms)%n",
                rate, p50, p99, lag.size(), lost.get(), POLL_MILLIS);
        out.flush();
        double safeP50 = safeLag.percentileMillis(50);
        double safeP99 = safeLag.percentileMillis(99);
        out.printf(Locale.ROOT, "safe-time lag (now - safe time, docs/design.md section 7.10) at %.0f writes/s: p50 %.1f ms, p99 %.1f ms over %d"
                + " samples (every %d ms)%n", rate, safeP50, safeP99, safeLag.size(), SAFE_SAMPLE_MILLIS);
        out.flush();
        result.put("safe_time_p50_ms", Math.round(safeP50 * 10) / 10.0).put("safe_time_p99_ms", Math.round(safeP99 * 10) / 10.0);
        result.put("maintainer", probe == null ? "service" : "node").put("indexing", keyspace.endsWith("eventual") ? "eventual" : "atomic").put("max_writes_per_s", Math.round(max)).put("end_to_end_writes_per_s", Math.round(sustained)).put("load_writes_per_s", Math.round(rate))
                .put("p50_ms", Math.round(p50 * 10) / 10.0).put("p99_ms", Math.round(p99 * 10) / 10.0).put("samples", lag.size())
                .put("not_seen_within_30s", lost.get());
    }

    private void rebuild(BenchNode node, int rows, PrintWriter out, ObjectNode root) throws Exception {
        String value = "x".repeat(200);
        double plainRate = insert(node, "INSERT INTO bench_rebuild.plain (key, tid, length, value) VALUES (?, ?, ?, ?)", rows, value);
        out.printf(Locale.ROOT, "unindexed inserts: %d rows at %.0f rows/s%n", rows, plainRate);
        insert(node, "INSERT INTO bench_rebuild.revisions (key, tid, length, value) VALUES (?, ?, ?, ?)", rows, value);
        Thread.sleep(5000);
        node.ddl("TRUNCATE bench_rebuild.idx_revisions_by_length_ever");
        Jobs jobs = new Jobs(node.session, GsiConfig.defaults());
        RebuildResult result = jobs.rebuild("bench_rebuild", "revisions", "by_length", RebuildOptions.defaults(), ProgressListener.NONE);
        out.printf(Locale.ROOT, "rebuild: %d rows in %.1f s, %.0f rows/s = %.2f of the unindexed insert rate (%s)%n", result.rows(),
                result.elapsed().toMillis() / 1000.0, result.rowsPerSecond(), result.rowsPerSecond() / plainRate, result.state());
        out.flush();
        root.putObject("rebuild").put("rows", result.rows()).put("rows_per_s", Math.round(result.rowsPerSecond()))
                .put("unindexed_insert_rows_per_s", Math.round(plainRate))
                .put("ratio", Math.round(result.rowsPerSecond() / plainRate * 100) / 100.0);
    }

    private record Sample(BigInteger oldLength, String key, UUID tid, long ackedNanos) {}

    /** Polls every pending sample every {@value #POLL_MILLIS} ms until its old entry's _deleted is the sample's tid (or 30 s pass). */
    static final int SAFE_SAMPLE_MILLIS = 50;

    /** How far the service's safe time is behind now, every {@link #SAFE_SAMPLE_MILLIS} while the load runs (unknown: not counted). */
    private static void sampleSafeTime(GsiServer server, boolean nodeMode, Latencies lag, java.util.concurrent.atomic.AtomicBoolean writing) {
        while (writing.get()) {
            io.cassandragsi.repair.queue.SafeTime.Reading r = server.service().consumer().safeTime();
            Long behind = r.lagMillis(nodeMode ? io.cassandragsi.schema.Maintenance.NODE : io.cassandragsi.schema.Maintenance.SERVICE);
            if (behind != null) {
                synchronized (lag) {
                    lag.add(TimeUnit.MILLISECONDS.toNanos(behind));
                }
            }
            try {
                Thread.sleep(SAFE_SAMPLE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void poll(BenchNode node, PreparedStatement deleted, java.util.Queue<Sample> pending, Latencies lag, AtomicLong lost,
            java.util.concurrent.atomic.AtomicBoolean writing) {
        java.util.List<Sample> open = new java.util.ArrayList<>();
        while (writing.get() || !pending.isEmpty() || !open.isEmpty()) {
            for (Sample s; (s = pending.poll()) != null;) {
                open.add(s);
            }
            java.util.List<java.util.concurrent.CompletableFuture<Boolean>> checks = new java.util.ArrayList<>();
            for (Sample s : open) {
                checks.add(node.session.executeAsync(deleted.bind(s.oldLength(), s.key())).toCompletableFuture()
                        .thenApply(rs -> {
                            Row row = rs.one();
                            return row != null && s.tid().equals(row.getUuid(0));
                        }));
            }
            long now = System.nanoTime();
            java.util.List<Sample> still = new java.util.ArrayList<>();
            for (int j = 0; j < open.size(); j++) {
                Sample s = open.get(j);
                boolean seen;
                try {
                    seen = checks.get(j).join();
                } catch (RuntimeException e) {
                    seen = false;
                }
                if (seen) {
                    lag.add(now - s.ackedNanos());
                } else if (now - s.ackedNanos() > TimeUnit.SECONDS.toNanos(30)) {
                    lost.incrementAndGet();
                } else {
                    still.add(s);
                }
            }
            open = still;
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Inserts {@code rows} rows, 128 in flight; returns rows/s. */
    private static double insert(BenchNode node, String cql, int rows, String value) throws InterruptedException {
        PreparedStatement ps = node.session.prepare(cql);
        Semaphore inFlight = new Semaphore(128);
        long t0 = System.nanoTime();
        for (int i = 0; i < rows; i++) {
            inFlight.acquire();
            node.session.executeAsync(ps.bind("key-" + (i % KEYS), Uuids.timeBased(), BigInteger.valueOf(i % 1000), value))
                    .whenComplete((r, e) -> inFlight.release());
        }
        inFlight.acquire(128);
        return rows / ((System.nanoTime() - t0) / 1e9);
    }
}
