package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cassandragsi.repair.cli.GsiCommand;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.ProgressListener;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.schema.CqlGenerator;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench bulk}: the rebuild of a whole index by the repair service's job (the code path
 * of {@code ./gsi rebuild}, in this JVM) against the Spark job ({@code SparkJobs.rebuild} in Spark
 * local mode on every core, in a child JVM), on the same versioned table of each size, in one run
 * (docs/performance.md, "Bulk rebuild: Spark against the service"; issue 38).
 *
 * <p>The table ({@link BenchSchema}, one index) is loaded without its trigger, by asynchronous
 * prepared single-row inserts, {@value #VERSIONS} versions per key, up to each size in turn, then
 * flushed and compacted; before each rebuild the index tables are truncated and the node's
 * compactions awaited, so that each rebuild writes every entry into an empty index and neither
 * the load nor the other rebuild is measured. Before any measurement the service rebuilds a table
 * of {@value #WARM_UP_ROWS} rows ({@value #WARM_UP_KEYSPACE}) {@value #WARM_UP_ROUNDS} times, so
 * that the node's own JIT compiler has compiled its scan and write paths (a fresh node otherwise
 * makes whichever rebuild comes first look dearer); each Spark JVM rebuilds that table once,
 * unmeasured, before its measured rebuild: the JIT compiler's work in a fresh JVM is a fixed cost
 * per executor, printed apart, not a cost per row.
 */
@Command(name = "bulk", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Rebuild rows/s of the repair service's rebuild and of the Spark rebuild (local[*], child JVM) on the same"
                + " versioned table, per size, with the node's CPU per row; one local node that this command starts."
                + " Writes target/bench/bulk.json.", "Takes about 15 minutes; --quick about 6."})
public final class BenchBulkCommand implements Callable<Integer> {
    static final String KEYSPACE = "bench_bulk";
    /** The small table each job's JVM rebuilds first, unmeasured, so that the JIT compiler is not in the figures. */
    static final String WARM_UP_KEYSPACE = "bench_bulk_warmup";
    static final long WARM_UP_ROWS = 100_000;
    /** Rebuilds of the warm-up table by the service before any measurement: the node's read and write paths get compiled too. */
    static final int WARM_UP_ROUNDS = 3;
    static final String INDEX = "by_a";
    static final int VERSIONS = 10;
    static final int IN_FLIGHT = 256;
    static final List<Long> SIZES = List.of(100_000L, 1_000_000L);
    static final List<Long> QUICK_SIZES = List.of(20_000L, 100_000L);

    @Option(names = "--rows", split = ",", paramLabel = "N", description = "Table sizes, ascending (default: 100000,1000000).")
    List<Long> rows;

    @Option(names = "--quick", description = "Sizes 20000,100000 unless --rows is given.")
    boolean quick;

    @Option(names = "--splits", paramLabel = "N", defaultValue = "0",
            description = "Token ranges of both rebuilds (default 0: each job's own automatic count).")
    int splits;

    @Option(names = "--spark-jvm-option", paramLabel = "OPTION",
            description = "One more option for the Spark child JVM, e.g. -XX:StartFlightRecording=filename=spark.jfr to profile it.")
    List<String> sparkJvmOptions = new ArrayList<>();

    @Option(names = "--spark-conf", paramLabel = "KEY=VALUE", description = "One more Spark setting of the Spark rebuild, e.g."
            + " spark.cassandra.connection.factory=NAME.")
    java.util.Map<String, String> sparkConf = new java.util.LinkedHashMap<>();

    @Option(names = "--compare-spark-conf", paramLabel = "KEY=VALUE", description = "With it, a third rebuild per size: Spark again"
            + " with these settings too (variant spark-conf), to measure what a setting changes in the same run.")
    java.util.Map<String, String> compareConf = new java.util.LinkedHashMap<>();

    @CommandLine.Mixin
    NodeOptions nodeOptions;

    @Spec
    CommandLine.Model.CommandSpec spec;

    /** The sizes to measure: {@code --rows}, or the defaults; rejected unless positive and strictly ascending. */
    List<Long> sizes() {
        List<Long> s = rows != null ? rows : quick ? QUICK_SIZES : SIZES;
        for (int i = 0; i < s.size(); i++) {
            if (s.get(i) < 1 || (i > 0 && s.get(i) <= s.get(i - 1))) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--rows must be positive and ascending, not " + s);
            }
        }
        return s;
    }

    @Override
    public Integer call() throws Exception {
        List<Long> sizes = sizes();
        PrintWriter out = spec.commandLine().getOut();
        Path home = Path.of(System.getProperty("gsi.home", ".")).toAbsolutePath().normalize();
        Path log = home.resolve("target/bench/bulk-spark.log");
        Files.deleteIfExists(log);
        List<BulkReport.Size> done = new ArrayList<>();
        try (BenchNode node = nodeOptions.start(home, "target/bench/bulk-node", out);
                NodeProbe probe = NodeProbe.attach("node0", node.cluster.address(0).getHostAddress(), node.cluster.nodeDir(0),
                        node.cluster.jmxPort(0))) {
            for (String keyspace : List.of(WARM_UP_KEYSPACE, KEYSPACE)) {
                node.apply(BenchSchema.definition(keyspace, 1));
                node.ddl("DROP TRIGGER IF EXISTS " + CqlGenerator.TRIGGER_NAME + " ON " + keyspace + "." + BenchSchema.TABLE);
            }
            load(node, WARM_UP_KEYSPACE, 0, WARM_UP_ROWS);
            Jobs jobs = new Jobs(node.session, GsiConfig.defaults());
            for (int round = 1; round <= WARM_UP_ROUNDS; round++) {
                long t0 = System.nanoTime();
                jobs.rebuild(WARM_UP_KEYSPACE, BenchSchema.TABLE, INDEX, RebuildOptions.defaults(), ProgressListener.NONE);
                out.printf(Locale.ROOT, "warm-up %d/%d: the service rebuilt %d rows of %s in %.1f s%n", round, WARM_UP_ROUNDS, WARM_UP_ROWS,
                        WARM_UP_KEYSPACE, (System.nanoTime() - t0) / 1e9);
                out.flush();
            }
            long loaded = 0;
            for (long size : sizes) {
                double rate = load(node, KEYSPACE, loaded, size);
                loaded = size;
                probe.flush(KEYSPACE);
                probe.awaitCompactions(Duration.ofMinutes(10));
                out.printf(Locale.ROOT, "loaded %d rows (%.0f rows/s, without the trigger), flushed and compacted%n", size, rate);
                out.flush();
                settle(node, probe, KEYSPACE);
                BulkMeter meter = BulkMeter.start(probe.pid());
                RebuildOptions options = RebuildOptions.defaults();
                options = new RebuildOptions(null, false, options.parallelism(), splits, options.maxInFlight(), options.pageSize());
                RebuildResult r = jobs.rebuild(KEYSPACE, BenchSchema.TABLE, INDEX, options, ProgressListener.NONE);
                BulkRun service = meter.stop("service", r.rows(), r.writes(), options.parallelism());
                print(out, service);
                BulkRun spark = spark(home, node, probe, sparkConf, "spark", log, out);
                BulkRun other = null;
                if (!compareConf.isEmpty()) {
                    java.util.Map<String, String> both = new java.util.LinkedHashMap<>(sparkConf);
                    both.putAll(compareConf);
                    other = spark(home, node, probe, both, "spark-conf", log, out);
                }
                done.add(new BulkReport.Size(size, service, spark, other));
            }
        }
        out.println();
        out.print(BulkReport.format(done));
        write(home.resolve("target/bench/bulk.json"), done);
        out.println("wrote target/bench/bulk.json (the Spark log: target/bench/bulk-spark.log)");
        return GsiCommand.OK;
    }

    /** The Spark rebuild in a child JVM with {@code conf}, after its warm-up, from empty index tables. */
    private BulkRun spark(Path home, BenchNode node, NodeProbe probe, java.util.Map<String, String> conf, String variant, Path log,
            PrintWriter out) throws Exception {
        settle(node, probe, KEYSPACE);
        settle(node, probe, WARM_UP_KEYSPACE);
        List<BulkRun> runs = SparkRebuildProcess.run(home, sparkArgs(node, probe.pid(), conf, variant), sparkJvmOptions, log);
        BulkRun warmUp = runs.get(0);
        out.printf(Locale.ROOT, "warm-up: a fresh Spark JVM rebuilt %d rows of %s in %.1f s, %.1f us of its CPU per row (JIT compiler"
                + " included)%n", warmUp.rows(), WARM_UP_KEYSPACE, warmUp.seconds(), warmUp.jobMicrosPerRow());
        BulkRun spark = runs.get(runs.size() - 1);
        print(out, spark);
        return spark;
    }

    private List<String> sparkArgs(BenchNode node, long nodePid, java.util.Map<String, String> conf, String variant) {
        InetSocketAddress cp = node.cluster.contactPoints().get(0);
        List<String> args = new ArrayList<>();
        conf.forEach((k, v) -> args.add("--conf=" + k + "=" + v));
        args.add("--variant=" + variant);
        args.addAll(List.of(KEYSPACE, BenchSchema.TABLE, INDEX, "--host", cp.getHostString(), "--port", String.valueOf(cp.getPort()), "--dc",
                node.cluster.localDatacenter(), "--node-pid", String.valueOf(nodePid), "--splits", String.valueOf(splits),
                "--warm-up-keyspace", WARM_UP_KEYSPACE));
        return args;
    }

    private static void print(PrintWriter out, BulkRun r) {
        out.printf(Locale.ROOT, "%s rebuild: %d rows, %d writes in %.1f s: %.0f rows/s, %.0f rows/s per core (%d cores); node %.1f us/row,"
                + " job %.1f us/row%n", r.variant(), r.rows(), r.writes(), r.seconds(), r.rowsPerSecond(), r.rowsPerSecondPerCore(), r.cores(),
                r.nodeMicrosPerRow(), r.jobMicrosPerRow());
        out.flush();
    }

    /** Empties the index tables and waits for the node's compactions: each rebuild starts from the same state. */
    private static void settle(BenchNode node, NodeProbe probe, String keyspace) throws InterruptedException {
        for (Row row : node.session.execute("SELECT table_name FROM system_schema.tables WHERE keyspace_name = '" + keyspace + "'")) {
            String table = row.getString(0);
            if (table.startsWith("idx_")) {
                node.ddl("TRUNCATE " + keyspace + "." + table);
            }
        }
        probe.awaitCompactions(Duration.ofMinutes(10));
    }

    /** Inserts rows {@code from} to {@code to} (exclusive), {@value #IN_FLIGHT} in flight; returns rows/s. */
    private static double load(BenchNode node, String keyspace, long from, long to) throws InterruptedException {
        PreparedStatement insert = node.session.prepare("INSERT INTO " + keyspace + "." + BenchSchema.TABLE + " (key, tid, a, value) VALUES (?, ?, ?, ?)");
        String value = "x".repeat(100);
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        long t0 = System.nanoTime();
        for (long i = from; i < to && failed.get() == null; i++) {
            inFlight.acquire();
            node.session.executeAsync(insert.bind("key-" + i / VERSIONS, Uuids.timeBased(), "a-" + (i * 7919 % 1000), value))
                    .whenComplete((r, e) -> {
                        if (e != null) {
                            failed.compareAndSet(null, e);
                        }
                        inFlight.release();
                    });
        }
        inFlight.acquire(IN_FLIGHT);
        inFlight.release(IN_FLIGHT);
        if (failed.get() != null) {
            throw new IllegalStateException("loading the table failed: " + failed.get(), failed.get());
        }
        return (to - from) / ((System.nanoTime() - t0) / 1e9);
    }

    private void write(Path file, List<BulkReport.Size> sizes) throws java.io.IOException {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        ArrayNode runs = root.putArray("runs");
        for (BulkReport.Size s : sizes) {
            for (BulkRun r : s.runs()) {
                runs.addObject().put("variant", r.variant()).put("rows", r.rows()).put("writes", r.writes())
                        .put("seconds", Math.round(r.seconds() * 10) / 10.0).put("rows_per_s", Math.round(r.rowsPerSecond()))
                        .put("rows_per_s_per_core", Math.round(r.rowsPerSecondPerCore())).put("cores", r.cores())
                        .put("node_cpu_us_per_row", Math.round(r.nodeMicrosPerRow() * 10) / 10.0)
                        .put("job_cpu_us_per_row", Math.round(r.jobMicrosPerRow() * 10) / 10.0)
                        .put("busy_cores", Math.round(r.busyCores() * 100) / 100.0);
            }
        }
        root.putObject("config").put("versions_per_key", VERSIONS).put("indexes", 1).put("nodes", 1).put("splits", splits)
                .put("load_in_flight", IN_FLIGHT)
                .put("warm_up_rows", WARM_UP_ROWS)
                .put("warm_up_rounds", WARM_UP_ROUNDS);
        root.putPOJO("spark_conf", sparkConf).putPOJO("compare_spark_conf", compareConf);
        Files.createDirectories(file.getParent());
        Files.writeString(file, mapper.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }
}
