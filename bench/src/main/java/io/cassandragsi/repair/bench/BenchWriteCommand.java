package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.cli.CommandFailedException;
import io.cassandragsi.repair.cli.GsiCommand;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench write}: indexed write throughput relative to an unindexed table, on one local
 * node the command starts itself, in one run on the same data (docs/design.md section 11).
 *
 * <p>Each variant gets its own keyspace, created fresh. A warm-up round writes every variant once,
 * then the measured rounds interleave the variants (A, B, C, ..., then again), each phase writing
 * the same generated sequence for a fixed time. After every phase the variant's tables, the work
 * queue and the batchlog are flushed and the command waits for compactions to finish, so every
 * phase starts with empty memtables and no compaction running; the node's CPU during that flush
 * and wait is reported separately ({@code +flush}).
 */
@Command(name = "write", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Measure indexed write throughput on one local Cassandra 5.0 node that this command starts (and stops):"
                    + " unindexed, gsi-1, gsi-3 (our trigger, work-queue marker included), gsi-1-e2e and gsi-3-e2e (the same with"
                    + " the repair service in its own JVM, each phase lasting until it has drained), gsi-1-node-e2e (the table in"
                    + " node mode: the in-node maintainer does the plain diffs), gsi-1-eventual and gsi-1-eventual-e2e (eventual"
                    + " indexing: nothing added to the write, the node writes the entries after it), mv, mv-3, sai, logged-batch on a"
                    + " versioned table, and unindexed-u, gsi-1-u, mv-u, gsi-1-u-node-e2e, gsi-1-u-eventual-e2e on an unversioned one (writes overwrite existing rows);"
                    + " same data, same run, interleaved rounds. Prints writes/s, the ratio to unindexed (to unindexed-u for"
                    + " the -u variants; paired by round) and node CPU per write, and writes target/bench/write.json.",
            "Takes about 75 minutes (per variant: warm-up 20 s + 3 rounds of 45 s, and the -e2e variants' drains); --quick about 18 minutes"
                    + " (warm-up 10 s + 2 rounds of 10 s: fine for a smoke test, noisy as a measurement). Other load on"
                    + " the machine shows in the results: the progress lines report it as 'other load'."})
public final class BenchWriteCommand implements Callable<Integer> {
    static final String TRIGGER_JAR = "trigger/target/cassandra-gsi-trigger.jar";
    private static final Duration DRAIN = Duration.ofSeconds(30);
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(60);
    private static final int VERIFY_WRITES = 20;

    @picocli.CommandLine.Mixin
    WriteOptions o;

    @Spec
    CommandSpec spec;

    /** Per -u variant: the keys its writes so far were sent to (the rows they created or overwrote). */
    private final Map<Variant, WriteSequence.KeysWritten> keysWritten = new EnumMap<>(Variant.class);
    /** Per -u variant, over the measured rounds: writes sent that overwrote an existing row, and writes sent. */
    private final Map<Variant, long[]> overwrites = new EnumMap<>(Variant.class);

    /** Where and how the end-to-end variants' repair service connects; set once the node is up. */
    private CqlSession benchSession;
    private Path serviceDir;
    private List<java.net.InetSocketAddress> contactPoints;
    private String datacenter;

    @Override
    public Integer call() throws Exception {
        WriteOptions.Settings settings = o.settings();
        PrintWriter pw = spec.commandLine().getOut();
        Path home = home();
        Path triggerJar = home.resolve(TRIGGER_JAR);
        if (!Files.isRegularFile(triggerJar)) {
            throw new CommandFailedException("trigger jar not found: " + triggerJar + " (build it with `mvn -DskipTests install`"
                    + " in " + home + "; ./gsi does that when sources change)");
        }
        Path workDir = (o.work == null ? home.resolve("target/bench/node") : o.work).toAbsolutePath().normalize();
        Path outFile = (o.out == null ? home.resolve(o.nodes == 1 ? "target/bench/write.json" : "target/bench/write-" + o.nodes + ".json") : o.out)
                .toAbsolutePath().normalize();
        for (Variant baseline : List.of(Variant.UNINDEXED, Variant.UNINDEXED_U)) {
            if (!settings.variants().contains(baseline) && settings.variants().stream().anyMatch(v -> v.unindexed() == baseline)) {
                pw.println("note: " + baseline.label() + " is not among the variants, so there are no ratios to it");
            }
        }
        pw.printf(Locale.ROOT, "bench write: %s; warm-up %d s, %d round(s) of %d s phases; about %d minutes%n",
                String.join(", ", settings.variants().stream().map(Variant::label).toList()),
                settings.warmupSeconds(), settings.rounds(), settings.phaseSeconds(),
                Math.max(1, Math.round(settings.estimate().toSeconds() / 60.0)));
        if (o.nodes == 1) {
            pw.println("starting a Cassandra node on " + o.address + " (JMX 127.0.0.1:" + o.jmxPort + ", heap " + o.heap + ") in " + workDir + "...");
        } else {
            pw.println("starting " + o.nodes + " Cassandra nodes from " + o.address + " (JMX 127.0.0.1:" + o.jmxPort + "+, heap " + o.heap + " each) in "
                    + workDir + "; RF=" + o.nodes + ", LOCAL_QUORUM. The nodes share this machine: the figures are the cluster's total CPU"
                    + " per write...");
        }
        pw.flush();

        Files.createDirectories(workDir);
        LocalCluster.Builder clusterBuilder = LocalCluster.builder()
                .nodes(o.nodes)
                .workDir(workDir)
                .firstAddress(o.address)
                .jmxPortBase(o.jmxPort)
                .heap(o.heap)
                .clusterName("gsi-bench")
                .triggerJar(triggerJar);
        o.nodeOptions.forEach(clusterBuilder::jvmOption);
        if (o.profileNode) {
            // the node's working directory is its own: each node writes its own node.jfr when it stops
            clusterBuilder.jvmOption("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=" + NODE_RECORDING);
        }
        LocalCluster cluster = clusterBuilder.build();
        try (cluster) {
            cluster.start();
            try (CqlSession session = openSession(cluster);
                    ClusterProbe probe = ClusterProbe.attach(cluster)) {
                String release = Optional.ofNullable(session.execute("SELECT release_version FROM system.local").one())
                        .map(r -> r.getString(0)).orElse("?");
                pw.println((o.nodes == 1 ? "node up: Cassandra " + release + ", pid " : o.nodes + " nodes up: Cassandra " + release + ", pids ")
                        + probe.pids().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", ")) + "; creating "
                        + settings.variants().size() + " keyspaces...");
                pw.flush();
                createSchema(session, settings.variants(), o.queueShards, o.nodes);
                benchSession = session;
                serviceDir = workDir.resolve("service");
                contactPoints = cluster.contactPoints();
                datacenter = cluster.localDatacenter();
                Instant startedAt = Instant.now();
                List<PhaseResult> phases = run(session, cluster, probe, settings, pw);
                Map<String, Object> config = config(settings, release, startedAt, Instant.now(), workDir);
                WriteReport report = WriteReport.of(settings.variants(), phases, config);
                pw.println();
                pw.print(report.table());
                if (o.nodes > 1) {
                    pw.println("(" + o.nodes + " nodes on this machine, RF=" + o.nodes + ", LOCAL_QUORUM: node us/w is summed over the nodes, the"
                            + " cluster's total CPU per write; writes/s is what this machine's cores sustain, not a real cluster's rate)");
                }
                if (!overwrites.isEmpty()) {
                    pw.println("-u writes that overwrote an existing row (measured rounds): " + String.join(", ",
                            overwriteShares().entrySet().stream().map(e -> String.format(Locale.ROOT, "%s %.1f %%", e.getKey(),
                                    100 * e.getValue())).toList()));
                }
                if (o.profileService) {
                    printProfile(phases, pw);
                }
                Files.createDirectories(outFile.getParent());
                Files.writeString(outFile, report.jsonText(), StandardCharsets.UTF_8);
                pw.println("results: " + outFile);
                pw.println(o.nodes == 1 ? "stopping the node..." : "stopping the nodes...");
                pw.flush();
            }
        }
        if (o.profileNode) {
            List<Path> files = new ArrayList<>();
            for (int i = 0; i < o.nodes; i++) {
                Path f = cluster.nodeDir(i).resolve(NODE_RECORDING);
                if (Files.isRegularFile(f)) {
                    files.add(f);
                }
            }
            pw.println();
            if (files.isEmpty()) {
                pw.println("no node recording (" + NODE_RECORDING + " in the node directories): did the nodes stop cleanly?");
            } else {
                pw.print(ServiceProfile.format("Node CPU profile over the whole run", ServiceProfile.read(files, ServiceProfile::nodePaths), 0, 15));
                pw.println("(recordings: " + String.join(", ", files.stream().map(Path::toString).toList()) + ")");
            }
            pw.flush();
        }
        return GsiCommand.OK;
    }

    private static final String NODE_RECORDING = "node.jfr";

    private CqlSession openSession(LocalCluster cluster) {
        return CqlSession.builder()
                .addContactPoints(cluster.contactPoints())
                .withLocalDatacenter(cluster.localDatacenter())
                .withConfigLoader(DriverConfigLoader.programmaticBuilder()
                        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, Duration.ofSeconds(10))
                        // every variant, MV and SAI included, writes and reads at LOCAL_QUORUM (one replica on one node)
                        .withString(DefaultDriverOption.REQUEST_CONSISTENCY, "LOCAL_QUORUM")
                        .withInt(DefaultDriverOption.CONNECTION_MAX_REQUESTS, Math.max(1024, o.inFlight * 2))
                        // the client shares the machine with the node: no schema metadata to keep up to date
                        .withBoolean(DefaultDriverOption.METADATA_SCHEMA_ENABLED, false)
                        .withBoolean(DefaultDriverOption.REQUEST_LOG_WARNINGS, false)
                        .build())
                .build();
    }

    private static void createSchema(CqlSession session, List<Variant> variants, int queueShards, int rf) {
        // before the variants' statements, which create the queue only if it does not exist
        for (String cql : BenchSchema.projectStatements(queueShards, rf)) {
            ddl(session, cql);
        }
        for (Variant v : variants) {
            ddl(session, "DROP KEYSPACE IF EXISTS " + v.keyspace());
            for (String cql : BenchSchema.statements(v, rf)) {
                ddl(session, cql);
            }
        }
    }

    /**
     * Runs one schema statement and waits until every node has it: the next statement may go to
     * another node, and this session keeps no schema metadata (which would make the driver wait).
     */
    private static void ddl(CqlSession session, String cql) {
        session.execute(SimpleStatement.newInstance(cql).setTimeout(DDL_TIMEOUT));
        if (!session.checkSchemaAgreement()) {
            throw new CommandFailedException("the nodes did not agree on the schema after: " + cql);
        }
    }

    private List<PhaseResult> run(CqlSession session, LocalCluster cluster, ClusterProbe probe, WriteOptions.Settings settings, PrintWriter pw)
            throws InterruptedException {
        WriteLoad load = new WriteLoad(session, o.inFlight);
        Map<Variant, WriteLoad.Writer> writers = new EnumMap<>(Variant.class);
        for (Variant v : settings.variants()) {
            writers.put(v, load.writer(v));
        }
        List<PhaseResult> results = new ArrayList<>();
        int firstRound = settings.warmupSeconds() > 0 ? 0 : 1;
        for (int round = firstRound; round <= settings.rounds(); round++) {
            int seconds = round == 0 ? settings.warmupSeconds() : settings.phaseSeconds();
            // round 0 (warm-up) and round 1 share a sequence: warm-up is not measured
            WriteSequence sequence = new WriteSequence(o.seed + Math.max(round, 1), o.keys, o.indexedValues, o.valueBytes);
            for (Variant v : settings.variants()) {
                PhaseResult r = phase(load, writers.get(v), v, round, sequence, seconds, settings, probe);
                results.add(r);
                pw.println(WriteReport.progressLine(r, settings.rounds()));
                pw.flush();
                for (int node = 0; node < cluster.size(); node++) {
                    if (!cluster.isRunning(node)) {
                        throw new CommandFailedException("node" + node + " exited during the benchmark; see its log " + cluster.nodeLog(node));
                    }
                }
                if (r.writes() == 0) {
                    throw new CommandFailedException("no write of " + v.label() + " succeeded in " + seconds + " s"
                            + (r.firstError() == null ? "" : "; first error: " + r.firstError()));
                }
                if (round == firstRound) {
                    verify(session, v, sequence);
                }
            }
        }
        return results;
    }

    /**
     * Fails unless every {@link BenchSchema#probes probe} of the variant finds one of the first
     * {@value #VERIFY_WRITES} writes of the phase just run (one of them may have failed): a variant
     * whose index is not maintained would measure nothing.
     */
    private static void verify(CqlSession session, Variant v, WriteSequence sequence) {
        for (BenchSchema.Probe probe : BenchSchema.probes(v)) {
            boolean found = false;
            for (int i = 0; i < VERIFY_WRITES && !found; i++) {
                found = session.execute(SimpleStatement.newInstance(probe.cql(), sequence.at(i).column(probe.column()))).one() != null;
            }
            if (!found) {
                throw new CommandFailedException(v.label() + ": `" + probe.cql() + "` found none of the first " + VERIFY_WRITES
                        + " writes of the phase: the variant does not maintain its index"
                        + (v.indexedByTrigger() ? " (is the trigger jar installed and current?)" : ""));
            }
        }
    }

    private PhaseResult phase(WriteLoad load, WriteLoad.Writer writer, Variant v, int round, WriteSequence sequence, int seconds,
            WriteOptions.Settings settings, ClusterProbe probe) throws InterruptedException {
        int cores = Runtime.getRuntime().availableProcessors();
        long[] cpu = new long[4];
        long[] mismatches = new long[2]; // over the same window as the node's CPU
        // the end-to-end variants: the repair service in its own JVM, reading the queue from now on (the
        // markers of the other variants' phases are not its work), stopped once it has drained this phase's
        ServiceProcess service = v.e2e() ? startService() : null;
        double serviceIdleRate = service == null ? 0 : idleRate(service);
        long serviceCpu0 = service == null ? 0 : service.cpuNanos();
        long[] node0 = v.nodeMode() ? probe.maintainers() : new long[8];
        List<Optional<long[]>> machine = new ArrayList<>(2);
        Instant[] times = new Instant[2];
        WriteLoad.Counts counts = load.run(writer, sequence, Duration.ofSeconds(seconds), DRAIN, new WriteLoad.Window() {
            @Override
            public void opened() {
                times[0] = Instant.now();
                machine.add(NodeProbe.machineJiffies());
                cpu[0] = probe.nodeCpuNanos();
                mismatches[0] = probe.digestMismatches();
                cpu[2] = NodeProbe.clientCpuNanos();
            }

            @Override
            public void closed() {
                cpu[1] = probe.nodeCpuNanos();
                mismatches[1] = probe.digestMismatches();
                cpu[3] = NodeProbe.clientCpuNanos();
                machine.add(NodeProbe.machineJiffies());
                times[1] = Instant.now();
            }
        });
        if (v.unversioned()) {
            long overwrote = keysWritten.computeIfAbsent(v, x -> new WriteSequence.KeysWritten()).record(sequence, counts.issued());
            if (round > 0) {
                long[] tally = overwrites.computeIfAbsent(v, x -> new long[2]);
                tally[0] += overwrote;
                tally[1] += counts.issued();
            }
        }
        double drain = 0;
        long serviceCpu = 0;
        long serviceIdle = 0;
        if (service != null) {
            try (service) {
                drain = service.awaitDrained(Duration.ofMinutes(5));
                if (v.nodeMode()) {
                    drain += probe.awaitMaintainers(Duration.ofMinutes(5)); // the node's backlog too (most of the work)
                    drain += service.awaitDrained(Duration.ofMinutes(5)); // and what it handed off meanwhile
                }
                serviceCpu = service.cpuNanos() - serviceCpu0;
                serviceIdle = (long) (serviceIdleRate * (counts.nanos() / 1e9 + drain));
                cpu[1] = probe.nodeCpuNanos(); // the node's work for the service is part of the write's cost
                mismatches[1] = probe.digestMismatches();
                times[1] = Instant.now();
            }
        }
        if (service == null && v.nodeMode()) {
            probe.awaitMaintainers(Duration.ofMinutes(5)); // the write alone: the maintainer's backlog is not the next phase's
        }
        long[] node1 = v.nodeMode() ? probe.maintainers() : new long[8];
        if (v.nodeMode()) {
            System.out.printf(java.util.Locale.ROOT, "  (node maintainers: retried %,d, read with others %,d, on this node's replica alone: reads %,d, writes %,d;"
                    + " writes refused by a full maintainer, their markers in the service's shards: %,d)%n",
                    node1[3] - node0[3], node1[4] - node0[4], node1[5] - node0[5], node1[6] - node0[6], node1[7] - node0[7]);
        }
        long flushStart = System.nanoTime();
        long flushCpu0 = probe.nodeCpuNanos();
        for (String target : BenchSchema.flushTargets(v)) {
            probe.flush(target);
        }
        boolean settled = probe.awaitCompactions(Duration.ofSeconds(settings.settleSeconds()));
        long flushCpu = probe.nodeCpuNanos() - flushCpu0;
        double flushSeconds = (System.nanoTime() - flushStart) / 1e9;
        if (service != null) {
            machine.set(1, NodeProbe.machineJiffies());
        }
        return new PhaseResult(v, round, times[0], times[1], counts.nanos() / 1e9 + drain, counts.writes(), counts.errors(),
                cpu[1] - cpu[0], flushCpu, flushSeconds, settled, cpu[3] - cpu[2],
                NodeProbe.busyCores(machine.get(0), machine.get(1), cores), counts.firstError(), serviceCpu, drain, mismatches[1] - mismatches[0],
                node1[2] - node0[2], node1[1] - node0[1], serviceIdle);
    }

    /** Seconds a freshly started service settles, then is measured idle, before an end-to-end phase. */
    private static final int SERVICE_SETTLE_SECONDS = 3;
    private static final int SERVICE_IDLE_SECONDS = 5;

    /**
     * The service's CPU a second (ns) with no writes, over {@value #SERVICE_IDLE_SECONDS} s once it
     * has settled: its polling, and what is left of a fresh JVM's compiling (docs/performance.md,
     * "The repair service when idle").
     */
    private static double idleRate(ServiceProcess service) throws InterruptedException {
        Thread.sleep(SERVICE_SETTLE_SECONDS * 1000L);
        long cpu0 = service.cpuNanos();
        long t0 = System.nanoTime();
        Thread.sleep(SERVICE_IDLE_SECONDS * 1000L);
        return (service.cpuNanos() - cpu0) / ((System.nanoTime() - t0) / 1e9);
    }

    /** Starts the repair service for an end-to-end phase, its shards' checkpoints moved to now first. */
    private ServiceProcess startService() {
        io.cassandragsi.repair.store.CheckpointsTable tables = new io.cassandragsi.repair.store.CheckpointsTable(benchSession,
                BenchSchema.PROJECT_KEYSPACE);
        Instant now = Instant.now();
        for (int shard = 0; shard < o.queueShards; shard++) {
            tables.checkpoint(shard, now, "bench");
        }
        Path recording = o.profileService ? serviceDir.resolve("service-" + (++recordings) + ".jfr") : null;
        return ServiceProcess.start(home(), serviceDir, contactPoints, datacenter, recording);
    }

    private int recordings;

    /** The JFR breakdown of the services of the end-to-end phases, with their CPU per write (one marker each). */
    private void printProfile(List<PhaseResult> phases, PrintWriter pw) {
        List<Path> files = new ArrayList<>();
        for (int i = 1; i <= recordings; i++) {
            Path f = serviceDir.resolve("service-" + i + ".jfr");
            if (Files.isRegularFile(f)) {
                files.add(f);
            }
        }
        long cpu = 0;
        long writes = 0;
        for (PhaseResult r : phases) {
            cpu += r.serviceCpuNanos();
            writes += r.variant().e2e() ? r.writes() : 0;
        }
        pw.println();
        if (files.isEmpty()) {
            pw.println("no service recording in " + serviceDir + " (no -e2e variant ran, or the service did not stop cleanly)");
            return;
        }
        pw.print(ServiceProfile.format("Service CPU profile", ServiceProfile.read(files, ServiceProfile::ours), writes == 0 ? 0 : cpu / 1e3 / writes, 15));
        pw.println("(recordings: " + serviceDir + "/service-*.jfr; open them with JDK Mission Control or `jfr print`)");
    }

    private Map<String, Object> config(WriteOptions.Settings s, String release, Instant started, Instant finished, Path workDir) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("variants", s.variants().stream().map(Variant::label).toList());
        c.put("rounds", s.rounds());
        c.put("phase_seconds", s.phaseSeconds());
        c.put("warmup_seconds", s.warmupSeconds());
        c.put("quick", o.quick);
        c.put("keys", o.keys);
        c.put("indexed_values", o.indexedValues);
        c.put("value_bytes", o.valueBytes);
        c.put("in_flight", o.inFlight);
        c.put("seed", o.seed);
        c.put("queue_shards", o.queueShards);
        c.put("order", "interleaved: every round writes each variant once, in the order of 'variants'; warm-up round first");
        c.put("ratio", "per round: writes/s of the variant over unindexed's (unindexed-u's for the -u variants) in the same round;"
                + " reported: geometric mean over rounds; 'ratios' pairs other variants the same way");
        c.put("cpu_us_per_write", "CPU time (user+system, /proc/<pid>/stat) of the Cassandra process(es, summed) during the phase over the"
                + " writes acknowledged in it");
        c.put("between_phases", "flush (StorageService.forceKeyspaceFlush over JMX) of the variant's keyspace, gsi.queue for the"
                + " trigger variants and system.batches, then wait until no compaction runs or is pending (at most "
                + s.settleSeconds() + " s); the node's CPU in that time is flush_cpu_us_per_write");
        c.put("writes", "every write is a new version: INSERT of (key, tid, a, b, c, value) with a fresh timeuuid tid;"
                + " key, a, b, c and value drawn uniformly from the seeded sequence, the same for every variant of a round;"
                + " the -u variants write the same sequence to the unversioned table items (key PRIMARY KEY, a, b, c, value), where"
                + " a write of a key written before (in the warm-up or an earlier phase too) overwrites its row");
        if (!overwrites.isEmpty()) {
            c.put("overwrite_share", overwriteShares());
        }
        c.put("nodes", o.nodes);
        c.put("address", o.address);
        c.put("heap", o.heap);
        c.put("node_options", o.nodeOptions);
        c.put("cassandra", release);
        c.put("replication", BenchSchema.replication(o.nodes));
        c.put("consistency", "LOCAL_QUORUM for every write and read of every variant");
        if (o.nodes > 1) {
            c.put("cpu", "the nodes share this machine: node CPU is summed over them, so the figures are the cluster's total CPU"
                    + " per write, which is what a cluster's size depends on, not the latency or throughput of a real cluster");
        }
        c.put("cores", Runtime.getRuntime().availableProcessors());
        c.put("client", "the load generator runs on the same machine as the node (DataStax Java driver 4, async)");
        c.put("work_dir", workDir.toString());
        c.put("started", started.toString());
        c.put("finished", finished.toString());
        return c;
    }

    /** Per -u variant measured: the share of its writes sent in the measured rounds that overwrote an existing row. */
    private Map<String, Double> overwriteShares() {
        Map<String, Double> out = new LinkedHashMap<>();
        overwrites.forEach((v, t) -> out.put(v.label(), t[1] == 0 ? 0.0 : Math.round(10_000.0 * t[0] / t[1]) / 10_000.0));
        return out;
    }

    private static Path home() {
        String home = System.getProperty("gsi.home");
        return Path.of(home == null ? "." : home).toAbsolutePath().normalize();
    }
}
