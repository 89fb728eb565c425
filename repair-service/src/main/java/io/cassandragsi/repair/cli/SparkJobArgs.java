package io.cassandragsi.repair.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * What a job on Spark is asked (docs/design.md section 9.5), the same in {@code gsi spark ...
 * --print} and in the Spark application it prints the line of: a picocli mixin of both.
 */
public final class SparkJobArgs {
    public enum Kind {
        rebuild, check
    }

    @Parameters(index = "0", paramLabel = "rebuild|check")
    public Kind kind;

    @Parameters(index = "1", paramLabel = "KEYSPACE.TABLE")
    public String table;

    @Parameters(index = "2", arity = "0..1", paramLabel = "INDEX", description = "The index (default: every index of the table).")
    public String index;

    @Option(names = "--fix", description = "check: rewrite missing and stale entries, delete orphans.")
    public boolean fix;

    @Option(names = "--splits", paramLabel = "N", defaultValue = "0",
            description = "Token ranges (Spark tasks) the ring is cut into (default: 4 per core of the application, at least 32).")
    public int splits;

    @Option(names = "--rows-per-second", paramLabel = "N", defaultValue = "0",
            description = "Base versions and index entries each Spark task reads per second at most (default: no cap).")
    public double rowsPerSecond;

    /** The table, after the values are checked; a bad one fails naming the option. */
    public TableName target() {
        if (fix && kind != Kind.check) {
            throw new IllegalArgumentException("--fix is an option of check, not of rebuild");
        }
        if (splits < 0 || splits > 65_536) {
            throw new IllegalArgumentException("--splits must be from 1 to 65536 (0: automatic), not " + splits);
        }
        if (!(rowsPerSecond >= 0)) {
            throw new IllegalArgumentException("--rows-per-second must be positive (0: no cap), not " + rowsPerSecond);
        }
        return TableName.parse(table);
    }

    /** These arguments as the application takes them. */
    public List<String> toArgs() {
        List<String> out = new ArrayList<>(List.of(kind.name(), table));
        if (index != null) {
            out.add(index);
        }
        if (fix) {
            out.add("--fix");
        }
        if (splits > 0) {
            out.addAll(List.of("--splits", String.valueOf(splits)));
        }
        if (rowsPerSecond > 0) {
            out.addAll(List.of("--rows-per-second", rowsPerSecond == Math.rint(rowsPerSecond) ? String.valueOf((long) rowsPerSecond)
                    : String.valueOf(rowsPerSecond)));
        }
        return out;
    }

    /** "check ks.table index", as the application names itself. */
    public String describe() {
        return "gsi " + kind + " " + table + (index == null ? "" : " " + index);
    }
}
