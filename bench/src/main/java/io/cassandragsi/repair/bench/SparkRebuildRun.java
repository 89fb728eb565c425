package io.cassandragsi.repair.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.spark.SparkJobs;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The Spark side of {@code gsi bench bulk}, run in a child JVM that {@link SparkRebuildProcess}
 * starts with Spark on its classpath and Spark's Java 17 options: {@link SparkJobs#rebuild} in
 * Spark local mode on every core ({@code local[*]}), first of a small warm-up table if given, then of
 * the table, each measured by {@link BulkMeter} (the session's creation excluded) and printed as one
 * JSON {@link BulkRun} line on standard output
 * (docs/performance.md, "Bulk rebuild: Spark against the service"). Not loaded by the bench JVM,
 * which has no Spark.
 */
@Command(name = "spark-rebuild-run")
public final class SparkRebuildRun implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "KEYSPACE")
    String keyspace;

    @Parameters(index = "1", paramLabel = "TABLE")
    String table;

    @Parameters(index = "2", paramLabel = "INDEX")
    String index;

    @Option(names = "--host", required = true)
    String host;

    @Option(names = "--port", defaultValue = "9042")
    int port;

    @Option(names = "--dc", required = true)
    String dc;

    @Option(names = "--node-pid", required = true)
    long nodePid;

    @Option(names = "--splits", defaultValue = "0", description = "0: SparkJobs' automatic split count.")
    int splits;

    @Option(names = "--warm-up-keyspace", description = "A table rebuilt first, its run printed first (the JIT compiler's share).")
    String warmUpKeyspace;

    @Option(names = "--conf", paramLabel = "KEY=VALUE", description = "More Spark settings.")
    java.util.Map<String, String> conf = new java.util.LinkedHashMap<>();

    @Option(names = "--variant", defaultValue = "spark", description = "The measured run's name.")
    String variant;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SparkRebuildRun()).execute(args));
    }

    /** Rebuilds the table in {@code ks}, measured, and prints the run as one JSON line. */
    private void rebuild(SparkSession spark, String ks, String variant) throws java.io.IOException {
        int cores = spark.sparkContext().defaultParallelism();
        BulkMeter meter = BulkMeter.start(nodePid);
        RebuildResult r = SparkJobs.rebuild(spark, SparkJobs.Spec.of(ks, table, index).withSplits(splits));
        BulkRun run = meter.stop(variant, r.rows(), r.writes(), cores);
        System.out.println(new ObjectMapper().writeValueAsString(run));
    }

    @Override
    public Integer call() throws Exception {
        SparkSession.Builder builder = SparkSession.builder();
        conf.forEach(builder::config);
        SparkSession spark = builder.master("local[*]").appName("gsi bench bulk").config("spark.ui.enabled", "false")
                .config("spark.cassandra.connection.host", host).config("spark.cassandra.connection.port", String.valueOf(port))
                .config("spark.cassandra.connection.localDC", dc).getOrCreate();
        try {
            if (warmUpKeyspace != null) {
                rebuild(spark, warmUpKeyspace, "spark-warm-up");
            }
            rebuild(spark, keyspace, variant);
            return 0;
        } finally {
            spark.stop();
        }
    }
}
