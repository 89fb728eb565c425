package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.JobHandle;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.ProgressListener;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code gsi rebuild KEYSPACE.TABLE [INDEX] [--resume] [--job-id ID] [--parallelism N]} (DESIGN.md section 5). */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
        description = {
            "Backfill an index (or every index of the table) from all stored base versions, writing each entry at its version's"
                    + " TS: safe while writes continue. Progress is recorded per token range in the project keyspace's jobs table:"
                    + " after Ctrl-C or a crash, run again with --resume (or --job-id ID) to skip the finished ranges.",
            "Rebuild adds and corrects entries; entries no version explains are removed by check --fix."})
public final class RebuildCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "KEYSPACE.TABLE")
    String table;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INDEX", description = "The index (default: every index of the table).")
    String index;

    @Option(names = "--resume", description = "Resume the latest unfinished rebuild of this table and index.")
    boolean resume;

    @Option(names = "--job-id", paramLabel = "ID", description = "Name of the job: resumes it when it exists (printed at the start of every rebuild).")
    String jobId;

    @Option(names = "--parallelism", paramLabel = "N", description = "Token ranges streamed at once (default: cores, at least 2).")
    Integer parallelism;

    @Option(names = "--splits", paramLabel = "N", description = "Token ranges of a new job (default: 4 per worker and node, at least 32).")
    Integer splits;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "Index writes outstanding at once (default: ${DEFAULT-VALUE}).",
            defaultValue = "256")
    int maxInFlight;

    @Option(names = "--no-progress", description = "No progress bar or progress lines.")
    boolean noProgress;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TableName target = TableName.parse(table);
        RebuildOptions options = RebuildOptions.defaults().withResume(resume).withJobId(jobId).withMaxInFlight(maxInFlight);
        if (parallelism != null) {
            options = options.withParallelism(parallelism);
        }
        if (splits != null) {
            options = options.withSplits(splits);
        }
        GsiConfig config = connection.load();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (CqlSession session = ConnectionOptions.open(config)) {
            Jobs jobs = new Jobs(session, config);
            JobHandle<RebuildResult> handle = jobs.startRebuild(target.keyspace(), target.table(), index, options, ProgressListener.NONE);
            out.println("rebuild " + handle.id() + " of " + table + " " + (index == null ? "(every index)" : index)
                    + " (resume with: gsi rebuild " + table + (index == null ? "" : " " + index) + " --job-id " + handle.id() + ")");
            out.flush();
            ProgressDisplay display = new ProgressDisplay("rebuild", handle::progress, err, !noProgress, false);
            RebuildResult r;
            try {
                r = JobCommands.await(handle, err);
            } finally {
                display.close();
            }
            out.println(r.summary());
            out.flush();
            return switch (r.state()) {
                case DONE -> CommandLine.ExitCode.OK;
                case CANCELLED -> throw new CommandFailedException("rebuild " + r.jobId() + " stopped after " + r.rangesDone() + "/"
                        + r.rangesTotal() + " ranges; resume with --job-id " + r.jobId());
                default -> throw new CommandFailedException("rebuild " + r.jobId() + " failed: " + r.message() + "; resume with --job-id "
                        + r.jobId());
            };
        }
    }
}
