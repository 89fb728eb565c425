package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.jobs.CheckOptions;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.JobHandle;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.ProgressListener;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code gsi check KEYSPACE.TABLE [INDEX] [--fix]}: exit 0 clean, 3 drift found, 1 failure (docs/design.md section 10). */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {
            "Compare an index (or every index of the table) with the base table: missing entries, stale entries (wrong _tid,"
                    + " _deleted or projections) and orphans (entries no base version explains). An observed _deleted that is a"
                    + " later non-matching version is what late versions legitimately leave; it is counted as approximate, not drift.",
            "With --fix, missing and stale entries are rewritten at their versions' TS and orphans deleted; a second check"
                    + " then reports no drift. Exit code 3 when drift was found (also when it was fixed)."},
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:no drift", "1:the check failed", "2:usage error", "3:drift found"})
public final class CheckCommand implements Callable<Integer> {
    public static final int DRIFT = 3;

    @Mixin
    JobOptions job;

    @Option(names = "--fix", description = "Rewrite missing and stale entries, delete orphans.")
    boolean fix;

    @Option(names = "--examples", paramLabel = "N", defaultValue = "5", description = "Examples shown per kind of finding (default: ${DEFAULT-VALUE}).")
    int examples;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TableName target = job.target();
        CheckOptions options = CheckOptions.defaults().withFix(fix).withExamples(examples);
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
            JobHandle<CheckResult> handle = jobs.startCheck(target.keyspace(), target.table(), job.index, options, ProgressListener.NONE);
            CheckResult r = JobCommands.follow(handle, job, err, true);
            out.println(r.summary());
            out.flush();
            if (r.state() == JobState.FAILED) {
                throw new CommandFailedException("check " + r.jobId() + " failed: " + r.message());
            }
            if (r.state() == JobState.CANCELLED) {
                throw new CommandFailedException("check " + r.jobId() + " was stopped before the end; its counts are partial");
            }
            return r.drift() ? DRIFT : CommandLine.ExitCode.OK;
        }
    }
}
