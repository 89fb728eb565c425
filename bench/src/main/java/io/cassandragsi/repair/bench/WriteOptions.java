package io.cassandragsi.repair.bench;

import io.cassandragsi.schema.QueueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options of {@code gsi bench write} and the settings of one run they make ({@link BenchWriteCommand}). */
final class WriteOptions {
    static final int DEFAULT_PHASE_SECONDS = 45;
    static final int DEFAULT_ROUNDS = 3;
    static final int DEFAULT_WARMUP_SECONDS = 20;
    static final int DEFAULT_SETTLE_SECONDS = 60;
    static final int QUICK_PHASE_SECONDS = 10;
    static final int QUICK_ROUNDS = 2;
    static final int QUICK_WARMUP_SECONDS = 10;
    static final int QUICK_SETTLE_SECONDS = 20;

    @Option(names = "--quick", description = "Short run: warm-up 10 s, 2 rounds of 10 s phases, compaction wait at most 20 s.")
    boolean quick;

    @Option(names = "--phase-seconds", paramLabel = "S",
            description = "Length of each measured phase (default: " + DEFAULT_PHASE_SECONDS + ", --quick: " + QUICK_PHASE_SECONDS + ").")
    Integer phaseSeconds;

    @Option(names = "--rounds", paramLabel = "N",
            description = "Measured rounds over all variants (default: " + DEFAULT_ROUNDS + ", --quick: " + QUICK_ROUNDS + ").")
    Integer rounds;

    @Option(names = "--warmup-seconds", paramLabel = "S",
            description = "Length of each phase of the warm-up round; 0 skips it (default: " + DEFAULT_WARMUP_SECONDS
                    + ", --quick: " + QUICK_WARMUP_SECONDS + ").")
    Integer warmupSeconds;

    @Option(names = "--variants", paramLabel = "LIST",
            description = "Comma-separated variants in the order of a round (default: unindexed,gsi-1,gsi-3,gsi-1-e2e,gsi-3-e2e,"
                    + "gsi-1-node-e2e,gsi-1-eventual,gsi-1-eventual-e2e,mv,mv-3,sai,logged-batch,unindexed-u,gsi-1-u,mv-u,"
                    + "gsi-1-u-node-e2e,gsi-1-u-eventual-e2e;"
                    + " also gsi-1-u-e2e, the unversioned table in service mode, end to end; the profiling aids trigger-only, the trigger installed on a table without index tables, and"
                    + " batch-as-trigger, a client logged batch of exactly the mutations gsi-1's trigger adds; on the unversioned"
                    + " table rows-table-u, the base row and gsi-1-u's rows-table row in one mutation, and batch-as-trigger-u, a"
                    + " client logged batch of what gsi-1-u's trigger adds).")
    String variants;

    @Option(names = "--settle-seconds", paramLabel = "S",
            description = "Longest wait for compactions after each phase's flush (default: " + DEFAULT_SETTLE_SECONDS
                    + ", --quick: " + QUICK_SETTLE_SECONDS + ").")
    Integer settleSeconds;

    @Option(names = "--in-flight", paramLabel = "N", defaultValue = "128",
            description = "Writes in flight (default: ${DEFAULT-VALUE}).")
    int inFlight;

    @Option(names = "--keys", paramLabel = "N", defaultValue = "20000",
            description = "Distinct partition keys, the same for every variant; on the unversioned table of the -u variants"
                    + " a write of a key written before overwrites its row (default: ${DEFAULT-VALUE}).")
    int keys;

    @Option(names = "--indexed-values", paramLabel = "N", defaultValue = "1000",
            description = "Distinct values of each indexed column (default: ${DEFAULT-VALUE}).")
    int indexedValues;

    @Option(names = "--value-bytes", paramLabel = "N", defaultValue = "200",
            description = "Size of the value column (default: ${DEFAULT-VALUE}).")
    int valueBytes;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "20250101",
            description = "Seed of the generated writes (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--queue-shards", paramLabel = "N", defaultValue = "" + QueueLayout.DEFAULT_SHARDS,
            description = "Shards of the work queue gsi.queue the trigger variants write a marker to per write; markers of"
                    + " a 10-s bucket share one partition per shard (default: ${DEFAULT-VALUE}, as gsi schema apply makes it).")
    int queueShards;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "1, or 3: a local three-node cluster (node i on the address of --address plus i), keyspaces at RF=3,"
                    + " every write and read at LOCAL_QUORUM for every variant; results in target/bench/write-3.json. The nodes"
                    + " share this machine's cores, so the figures measure the cluster's total CPU per write, which is what its"
                    + " size depends on (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--address", paramLabel = "IP", defaultValue = "127.0.0.1",
            description = "Address of the (first) node; must be free (default: ${DEFAULT-VALUE}).")
    String address;

    @Option(names = "--jmx-port", paramLabel = "PORT", defaultValue = "7199",
            description = "JMX port of the node on 127.0.0.1; must be free (default: ${DEFAULT-VALUE}).")
    int jmxPort;

    @Option(names = "--heap", paramLabel = "SIZE", defaultValue = "1G",
            description = "Heap of the node (default: ${DEFAULT-VALUE}).")
    String heap;

    @Option(names = "--node-option", paramLabel = "OPTION",
            description = "A JVM option of the node(s), repeatable: the in-node maintainer's settings, for one, such as"
                    + " -Dgsi.maintainer.settle_ms=50 (docs/design.md section 7.8).")
    List<String> nodeOptions = new java.util.ArrayList<>();

    @Option(names = "--work", paramLabel = "DIR",
            description = "Directory of the node's data and logs; its node0/ is wiped at start (default: target/bench/node"
                    + " in the repository).")
    Path work;

    @Option(names = "--profile-service",
            description = "Record the repair service of the -e2e variants with JFR (its work directory's service/*.jfr) and print"
                    + " where its CPU goes: by library, thread pool and our methods, in us per marker.")
    boolean profileService;

    @Option(names = "--profile-node",
            description = "Record the node(s) with JFR from their start (node.jfr in each node's directory) and print, once they"
                    + " stopped, where their CPU went over the whole run: by thread pool, and by the CQL statements and"
                    + " StorageProxy paths on the stack. Run one variant to see its cost alone.")
    boolean profileNode;

    @Option(names = "--out", paramLabel = "FILE",
            description = "Where to write the results (default: target/bench/write.json in the repository).")
    Path out;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** The settings of one run, after --quick and the explicit options are combined. */
    record Settings(List<Variant> variants, int rounds, int phaseSeconds, int warmupSeconds, int settleSeconds) {
        /** A rough estimate of the run's length, for the first line printed. */
        Duration estimate() {
            long perPhaseOverhead = 3; // flush, compaction wait, JMX
            long phases = (long) variants.size() * (rounds + (warmupSeconds > 0 ? 1 : 0));
            long seconds = 40 + (long) variants.size() * ((long) rounds * phaseSeconds + warmupSeconds) + phases * perPhaseOverhead;
            // an end-to-end phase also starts the service (about 8 s) and waits for it to drain (about 1.5 phases)
            long e2e = variants.stream().filter(Variant::e2e).count();
            seconds += e2e * (rounds * (8 + 3L * phaseSeconds / 2) + (warmupSeconds > 0 ? 8 + 3L * warmupSeconds / 2 : 0));
            return Duration.ofSeconds(seconds);
        }
    }

    Settings settings() {
        List<Variant> list;
        try {
            list = variants == null ? Variant.defaults() : Variant.parseList(variants);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--variants: " + e.getMessage());
        }
        Settings s = new Settings(list,
                orDefault(rounds, quick ? QUICK_ROUNDS : DEFAULT_ROUNDS),
                orDefault(phaseSeconds, quick ? QUICK_PHASE_SECONDS : DEFAULT_PHASE_SECONDS),
                orDefault(warmupSeconds, quick ? QUICK_WARMUP_SECONDS : DEFAULT_WARMUP_SECONDS),
                orDefault(settleSeconds, quick ? QUICK_SETTLE_SECONDS : DEFAULT_SETTLE_SECONDS));
        positive("--rounds", s.rounds());
        positive("--phase-seconds", s.phaseSeconds());
        positive("--in-flight", inFlight);
        positive("--keys", keys);
        positive("--indexed-values", indexedValues);
        positive("--value-bytes", valueBytes);
        positive("--queue-shards", queueShards);
        if (nodes != 1 && nodes != 3) {
            throw new ParameterException(spec.commandLine(), "--nodes must be 1 or 3, got " + nodes);
        }
        if (s.warmupSeconds() < 0 || s.settleSeconds() < 0) {
            throw new ParameterException(spec.commandLine(), "--warmup-seconds and --settle-seconds cannot be negative");
        }
        return s;
    }

    private static int orDefault(Integer value, int fallback) {
        return value == null ? fallback : value;
    }

    private void positive(String option, int value) {
        if (value < 1) {
            throw new ParameterException(spec.commandLine(), option + " must be at least 1, got " + value);
        }
    }
}
