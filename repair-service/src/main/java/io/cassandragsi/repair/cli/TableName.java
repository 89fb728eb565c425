package io.cassandragsi.repair.cli;

/** A {@code KEYSPACE.TABLE} command argument. */
public record TableName(String keyspace, String table) {
    /** Splits at the first dot; anything else is a one-line command failure. */
    public static TableName parse(String arg) {
        int dot = arg.indexOf('.');
        if (dot <= 0 || dot == arg.length() - 1) {
            throw new CommandFailedException("'" + arg + "' is not KEYSPACE.TABLE");
        }
        return new TableName(arg.substring(0, dot), arg.substring(dot + 1));
    }
}
