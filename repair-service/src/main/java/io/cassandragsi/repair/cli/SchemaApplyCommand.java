package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.schema.SchemaApplier;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gsi schema apply [FILE...] [--dry-run]}. */
@Command(name = "apply", mixinStandardHelpOptions = true,
        description = {
            "Create or evolve the keyspaces, base tables, index tables and triggers of the given definitions,"
                    + " and the project keyspace with its tables (work queue, checkpoints, leases, instances, jobs)."
                    + " Validates every definition and compares with the live schema first; on any problem nothing"
                    + " is changed. Running it again is a no-op.",
            "A directory stands for the *.json files in it. Without files: the project keyspace alone."})
public final class SchemaApplyCommand implements Callable<Integer> {
    @Parameters(arity = "0..*", paramLabel = "FILE", description = "Definition files (JSON) or directories of them.")
    List<Path> files;

    @Option(names = "--dry-run",
            description = "Print the CQL that would run, with the purpose of each statement, and change nothing.")
    boolean dryRun;

    @Option(names = "--replication", paramLabel = "CQL_MAP", defaultValue = SchemaApplier.DEFAULT_REPLICATION,
            description = "Replication of keyspaces that have to be created (default: ${DEFAULT-VALUE}).")
    String replication;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        new SchemaApplier(connection.load(), spec.commandLine().getOut(), spec.commandLine().getErr()).apply(expand(files == null ? List.of() : files), replication, dryRun);
        return GsiCommand.OK;
    }

    /** Files as given; directories replaced by their *.json files in name order. */
    static List<Path> expand(List<Path> paths) {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    List<Path> json = s.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList();
                    if (json.isEmpty()) {
                        throw new CommandFailedException(p + ": directory holds no *.json definition files");
                    }
                    out.addAll(json);
                } catch (IOException e) {
                    throw new CommandFailedException(p + ": cannot list directory: " + e.getMessage(), e);
                }
            } else if (!Files.isRegularFile(p)) {
                throw new CommandFailedException(p + ": no such file");
            } else {
                out.add(p);
            }
        }
        return out;
    }
}
