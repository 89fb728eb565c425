package io.cassandragsi.repair.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench ...}: benchmarks on a local node that the command starts itself (docs/design.md
 * section 11: performance is measured by a benchmark, never by a timed test). Add subcommands to
 * {@code subcommands}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Benchmarks against a local Cassandra 5.0 node started for the purpose.",
        subcommands = {BenchWriteCommand.class, BenchReadCommand.class, BenchRepairCommand.class, BenchBucketCommand.class,
            BenchBulkCommand.class})
public final class BenchCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: bench write [--quick]");
    }
}
