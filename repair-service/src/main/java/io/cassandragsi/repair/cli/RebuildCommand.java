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
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code gsi rebuild KEYSPACE.TABLE [INDEX] [--resume] [--job-id ID] [--parallelism N]} (docs/design.md section 10). */
@Command(name = "rebuild", mixinStandardHelpOptions = true,
        description = {
            "Backfill an index (or every index of the table) from all stored base versions, writing each entry at its version's"
                    + " TS: safe while writes continue. Progress is recorded per token range in the project keyspace's jobs table:"
                    + " after Ctrl-C or a crash, run again with --resume (or --job-id ID) to skip the finished ranges.",
            "Rebuild adds and corrects entries; entries no version explains are removed by check --fix."})
public final class RebuildCommand implements Callable<Integer> {
    @Mixin
    JobOptions job;

    @Option(names = "--resume", description = "Resume the latest unfinished rebuild of this table and index.")
    boolean resume;

    @Option(names = "--job-id", paramLabel = "ID", description = "Name of the job: resumes it when it exists (printed at the start of every rebuild).")
    String jobId;

    @Option(names = "--max-in-flight", paramLabel = "N", description = "Index writes outstanding at once (default: ${DEFAULT-VALUE}).",
            defaultValue = "256")
    int maxInFlight;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TableName target = job.target();
        RebuildOptions options = RebuildOptions.defaults().withResume(resume).withJobId(jobId).withMaxInFlight(maxInFlight);
        if (job.parallelism != null) {
            options = options.withParallelism(job.parallelism);
        }
        if (job.splits != null) {
            options = options.withSplits(job.splits);
        }
        GsiConfig config = connection.load();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (CqlSession session = ConnectionOptions.open(config)) {
            Jobs jobs = new Jobs(session, config);
            JobHandle<RebuildResult> handle = jobs.startRebuild(target.keyspace(), target.table(), job.index, options, ProgressListener.NONE);
            out.println("rebuild " + handle.id() + " of " + job.describe() + " (resume with: gsi rebuild " + job.table
                    + (job.index == null ? "" : " " + job.index) + " --job-id " + handle.id() + ")");
            out.flush();
            RebuildResult r = JobCommands.follow(handle, job, err, false);
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
