package io.cassandragsi.repair.cli;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What {@code gsi rebuild} and {@code gsi check} are asked the same way: the table and index,
 * how the work is split over token ranges, and whether progress shows.
 */
final class JobOptions {
    @Parameters(index = "0", paramLabel = "KEYSPACE.TABLE")
    String table;

    @Parameters(index = "1", arity = "0..1", paramLabel = "INDEX", description = "The index (default: every index of the table).")
    String index;

    @Option(names = "--parallelism", paramLabel = "N", description = "Token ranges worked on at once (default: cores, at least 2).")
    Integer parallelism;

    @Option(names = "--splits", paramLabel = "N",
            description = "Token ranges the job (a check: each pass) is split into (default: 4 per worker and node, at least 32).")
    Integer splits;

    @Option(names = "--no-progress", description = "No progress bar or progress lines.")
    boolean noProgress;

    TableName target() {
        return TableName.parse(table);
    }

    /** "TABLE INDEX" or "TABLE (every index)", as the commands name their target. */
    String describe() {
        return table + " " + (index == null ? "(every index)" : index);
    }
}
