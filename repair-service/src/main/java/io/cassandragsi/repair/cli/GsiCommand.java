package io.cassandragsi.repair.cli;

import io.cassandragsi.conf.LocalClusterException;
import io.cassandragsi.repair.config.CassandraUnavailableException;
import io.cassandragsi.repair.config.ConfigException;
import io.cassandragsi.repair.schema.SchemaApplyException;
import io.cassandragsi.repair.store.MissingTableException;
import io.cassandragsi.schema.DefinitionException;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code gsi} command line (docs/design.md section 10). Exit codes: 0 success, 1 failure, 2 usage
 * error. A failure prints one line starting with {@code error:}; {@code --verbose} adds the stack
 * trace and debug logging.
 *
 * <p>To add a subcommand, add its class to {@code subcommands} below. A module outside the product
 * jar adds its own with {@link #commandLine(Object...)} (the bench module's {@code BenchMain} adds
 * {@code bench}).
 */
@Command(
        name = "gsi",
        mixinStandardHelpOptions = true,
        versionProvider = GsiCommand.Version.class,
        description = "Global secondary indexes for Apache Cassandra 5.0.",
        subcommands = {SchemaCommand.class, UpCommand.class, NodeCommand.class, ServeCommand.class, QueryCommand.class, CqlCommand.class,
            RebuildCommand.class, CheckCommand.class, StatusCommand.class, SparkCommand.class,
            CommandLine.HelpCommand.class},
        footer = {"", "Benchmarks: ./gsi bench write|read|repair (see ./gsi bench --help)."})
public final class GsiCommand implements Runnable {
    public static final int OK = CommandLine.ExitCode.OK;
    public static final int FAILURE = CommandLine.ExitCode.SOFTWARE;
    public static final int USAGE = CommandLine.ExitCode.USAGE;

    @Spec
    CommandSpec spec;

    @CommandLine.Mixin
    Verbosity verbosity;

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns the exit code (tests call this instead of {@link #main}). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /**
     * The {@code gsi} command line, with {@code extra} subcommands (instances of {@code @Command}
     * classes) after the standard ones; exceptions, exit codes and enum parsing apply to them too.
     */
    public static CommandLine commandLine(Object... extra) {
        CommandLine cl = new CommandLine(new GsiCommand());
        for (Object subcommand : extra) {
            cl.addSubcommand(subcommand);
        }
        cl.setExecutionExceptionHandler(GsiCommand::handle);
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        return cl;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
    }

    private static int handle(Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
        PrintWriter err = cmd.getErr();
        err.println("error: " + message(e));
        if (Verbosity.isVerbose()) {
            e.printStackTrace(err);
        } else if (!isExpected(e)) {
            err.println("(run with --verbose for the stack trace)");
        }
        err.flush();
        return FAILURE;
    }

    /** Failures that are the user's or the environment's, fully described by their message. */
    private static boolean isExpected(Throwable e) {
        return e instanceof CommandFailedException || e instanceof ConfigException || e instanceof DefinitionException
                || e instanceof SchemaApplyException || e instanceof CassandraUnavailableException
                || e instanceof LocalClusterException || e instanceof IllegalArgumentException || e instanceof MissingTableException;
    }

    private static String message(Throwable e) {
        if (isExpected(e) && e.getMessage() != null) {
            return e.getMessage();
        }
        return "unexpected " + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** The version the build wrote ({@link io.cassandragsi.schema.BuildVersion}; docs/deployment.md, Versions). */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"gsi " + io.cassandragsi.schema.BuildVersion.get()};
        }
    }
}
