package io.cassandragsi.spark;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.cassandragsi.repair.cli.SparkJobArgs;
import io.cassandragsi.repair.cli.TableName;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.RebuildResult;
import java.util.concurrent.Callable;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Mixin;

/**
 * The Spark application's main class (docs/design.md section 9.5): {@code rebuild|check
 * KEYSPACE.TABLE [INDEX] [--fix]}, run by {@code spark-submit} (the line {@code gsi spark ...
 * --print} prints). Exit codes as {@code gsi check}: 0 clean, 3 drift found, 1 failure, 2 usage
 * error.
 */
@Command(name = "gsi-spark", mixinStandardHelpOptions = true, description = "Rebuild or check an index on Spark.")
public final class GsiSpark implements Callable<Integer> {
    public static final int DRIFT = 3;

    @Mixin
    SparkJobArgs job;

    @Option(names = "--examples", paramLabel = "N", defaultValue = "5", description = "check: examples shown per kind of finding.")
    int examples;

    @Option(names = "--project-keyspace", paramLabel = "NAME", defaultValue = "gsi", description = "The project keyspace (default: gsi).")
    String projectKeyspace;

    @Option(names = "--read-consistency", paramLabel = "LEVEL", defaultValue = "LOCAL_QUORUM")
    DefaultConsistencyLevel read;

    @Option(names = "--write-consistency", paramLabel = "LEVEL", defaultValue = "LOCAL_QUORUM")
    DefaultConsistencyLevel write;

    @Option(names = "--max-in-flight", paramLabel = "N", defaultValue = "256", description = "Reads or writes outstanding per task.")
    int maxInFlight;

    @Option(names = "--page-size", paramLabel = "N", defaultValue = "1000", description = "Rows per page of a range scan.")
    int pageSize;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec command;

    public static void main(String[] args) {
        CommandLine cl = new CommandLine(new GsiSpark()).setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler((e, cmd, parsed) -> {
            cmd.getErr().println("error: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
            return CommandLine.ExitCode.SOFTWARE;
        });
        System.exit(cl.execute(args));
    }

    /** The job the arguments ask for (bad values fail here, naming the option). */
    SparkJobs.Spec spec() {
        TableName t = job.target();
        return new SparkJobs.Spec(t.keyspace(), t.table(), job.index, projectKeyspace, read, write, job.splits, maxInFlight, pageSize,
                job.rowsPerSecond);
    }

    @Override
    public Integer call() {
        SparkJobs.Spec spec;
        try {
            spec = spec();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(command.commandLine(), e.getMessage());
        }
        SparkSession spark = SparkSession.builder().appName(job.describe()).getOrCreate();
        try {
            if (job.kind == SparkJobArgs.Kind.rebuild) {
                RebuildResult r = SparkJobs.rebuild(spark, spec);
                System.out.println(r.summary());
                return CommandLine.ExitCode.OK;
            }
            CheckResult r = SparkJobs.check(spark, spec, job.fix, examples);
            System.out.println(r.summary());
            return r.drift() ? DRIFT : CommandLine.ExitCode.OK;
        } finally {
            spark.stop();
        }
    }
}
