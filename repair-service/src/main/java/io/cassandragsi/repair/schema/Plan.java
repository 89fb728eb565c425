package io.cassandragsi.repair.schema;

import io.cassandragsi.schema.CqlGenerator.Statement;
import java.util.List;

/**
 * What {@code schema apply} would do: the statements in order, warnings (things left alone on
 * purpose), errors (things it refuses; when there is any, nothing is executed) and the indexes that
 * may need a rebuild because they were created or extended on a base table that existed before.
 */
public record Plan(List<Statement> statements, List<String> warnings, List<String> errors, List<RebuildCandidate> rebuildCandidates) {

    public Plan {
        statements = List.copyOf(statements);
        warnings = List.copyOf(warnings);
        errors = List.copyOf(errors);
        rebuildCandidates = List.copyOf(rebuildCandidates);
    }

    public boolean hasErrors() {
        return !errors.isEmpty();
    }

    public boolean isEmpty() {
        return statements.isEmpty();
    }

    /**
     * An index that existing base rows are missing from when the base table holds rows: it was
     * created on an existing table, or its index table gained projection columns.
     */
    public record RebuildCandidate(String keyspace, String table, String index, String firstPartitionKeyColumn, String reason) {
        public String command() {
            return "./gsi rebuild " + keyspace + "." + table + " " + index;
        }
    }
}
