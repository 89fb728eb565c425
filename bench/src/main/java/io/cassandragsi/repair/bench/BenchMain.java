package io.cassandragsi.repair.bench;

import io.cassandragsi.repair.cli.GsiCommand;
import picocli.CommandLine;

/**
 * The {@code gsi} command line with {@code bench} added: what {@code ./gsi bench ...} runs, with
 * the product jar ({@code repair-service/target/gsi.jar}) on the classpath. The benchmarks live
 * in their own module so that the product jar does not carry them; every other command behaves
 * here as in the product jar (same options, error handling and exit codes).
 */
public final class BenchMain {
    private BenchMain() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return GsiCommand.commandLine(new BenchCommand());
    }
}
