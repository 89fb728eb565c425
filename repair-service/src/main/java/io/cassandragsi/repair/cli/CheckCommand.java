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
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/** {@code gsi check KEYSPACE.TABLE [INDEX] [--fix]}: exit 0 clean, 3 drift found, 1 failure (DESIGN.md section 5). */
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

    @Parameters(index = "0", paramLabel = "KEYSPACE.TABLE")
    String table;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INDEX", description = "The index (default: every index of the table).")
    String index;

    @Option(names = "--fix", description = "Rewrite missing and stale entries, delete orphans.")
    boolean fix;

    @Option(names = "--parallelism", paramLabel = "N", description = "Token ranges read at once (default: cores, at least 2).")
    Integer parallelism;

    @Option(names = "--splits", paramLabel = "N", description = "Token ranges per pass (default: 4 per worker and node, at least 32).")
    Integer splits;

    @Option(names = "--examples", paramLabel = "N", defaultValue = "5", description = "Examples shown per kind of finding (default: ${DEFAULT-VALUE}).")
    int examples;

    @Option(names = "--no-progress", description = "No progress bar or progress lines.")
    boolean noProgress;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TableName target = TableName.parse(table);
        CheckOptions options = CheckOptions.defaults().withFix(fix).withExamples(examples);
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
            JobHandle<CheckResult> handle = jobs.startCheck(target.keyspace(), target.table(), index, options, ProgressListener.NONE);
            ProgressDisplay display = new ProgressDisplay("check", handle::progress, err, !noProgress, true);
            CheckResult r;
            try {
                r = JobCommands.await(handle, err);
            } finally {
                display.close();
            }
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
