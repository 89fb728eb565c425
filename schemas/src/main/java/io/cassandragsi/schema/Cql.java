package io.cassandragsi.schema;

/** Small helpers to write CQL text safely. */
public final class Cql {
    private Cql() {}

    /** Double-quotes an identifier, doubling any embedded double quote. */
    public static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /** A CQL string literal, single quotes doubled. */
    public static String literal(String text) {
        return '\'' + text.replace("'", "''") + '\'';
    }

    /** keyspace.table, both quoted. */
    public static String qualified(String keyspace, String table) {
        return quote(keyspace) + '.' + quote(table);
    }
}
