package io.cassandragsi.repair.schema;

import java.util.List;

/** {@code schema apply} refused or failed; the message lists every problem, one per line. */
public class SchemaApplyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    public SchemaApplyException(List<String> problems, String suffix) {
        super(format(problems, suffix));
        this.problems = List.copyOf(problems);
    }

    public SchemaApplyException(String problem, Throwable cause) {
        super(problem, cause);
        this.problems = List.of(problem);
    }

    private static String format(List<String> problems, String suffix) {
        if (problems.size() == 1) {
            return problems.get(0) + suffix;
        }
        StringBuilder sb = new StringBuilder(problems.size() + " problems" + suffix + ":");
        for (String p : problems) {
            sb.append("\n  - ").append(p);
        }
        return sb.toString();
    }

    public List<String> problems() {
        return problems;
    }
}
