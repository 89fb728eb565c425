package io.cassandragsi.client;

/**
 * A definition given to {@link GsiClient.Builder#definitions} that cannot be read, or that does not
 * match what Cassandra's schema serves (the definitions in the index tables' comments, docs/design.md
 * section 3.6). The message names the file or table, the index and the attribute.
 */
public final class GsiDefinitionException extends GsiException {
    private static final long serialVersionUID = 1L;

    GsiDefinitionException(String message, Throwable cause) {
        super("bad_definition", message, cause);
    }
}
