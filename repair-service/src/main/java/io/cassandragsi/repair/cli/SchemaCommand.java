package io.cassandragsi.repair.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code gsi schema ...}: schema management. Add subcommands to {@code subcommands}. */
@Command(name = "schema", mixinStandardHelpOptions = true, description = "Manage the schema of indexed tables.",
        subcommands = {SchemaApplyCommand.class})
public final class SchemaCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: schema apply [FILE...]");
    }
}
