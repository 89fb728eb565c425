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
 * Spark local mode on every core ({@code local[*]}), measured by {@link BulkMeter} from the session's
 * creation excluded to the job's end, printed as one JSON {@link BulkRun} on standard output
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

    public static void main(String[] args) {
        System.exit(new CommandLine(new SparkRebuildRun()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        SparkSession spark = SparkSession.builder().master("local[*]").appName("gsi bench bulk").config("spark.ui.enabled", "false")
                .config("spark.cassandra.connection.host", host).config("spark.cassandra.connection.port", String.valueOf(port))
                .config("spark.cassandra.connection.localDC", dc).getOrCreate();
        try {
            int cores = spark.sparkContext().defaultParallelism();
            BulkMeter meter = BulkMeter.start(nodePid);
            RebuildResult r = SparkJobs.rebuild(spark, SparkJobs.Spec.of(keyspace, table, index).withSplits(splits));
            BulkRun run = meter.stop("spark", r.rows(), r.writes(), cores);
            System.out.println(new ObjectMapper().writeValueAsString(run));
            return 0;
        } finally {
            spark.stop();
        }
    }
}
