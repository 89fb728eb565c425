package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.metadata.schema.TableMetadata;
import java.util.Optional;

/**
 * A table of the project keyspace is missing. {@code schema apply} creates them all (work queue,
 * checkpoints, leases, instances, jobs); the service and the jobs only read and write them, so
 * that their role needs no {@code CREATE}. The message names the table and the command to run.
 */
public final class MissingTableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public MissingTableException(String keyspace, String table, String what) {
        super("no " + what + " table " + keyspace + "." + table + ": run ./gsi schema apply first (it creates the tables"
                + " of the project keyspace " + keyspace + ")");
    }

    /**
     * Throws {@link MissingTableException} when the table does not exist. Asks the session's schema
     * metadata, or {@code system_schema} when the session keeps none.
     */
    public static void require(CqlSession session, String keyspace, String table, String what) {
        boolean exists = session.isSchemaMetadataEnabled()
                ? metadata(session, keyspace, table).isPresent()
                : session.execute(SimpleStatement.newInstance(
                        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", keyspace, table)).one() != null;
        if (!exists) {
            throw new MissingTableException(keyspace, table, what);
        }
    }

    /** The table's metadata (the session must keep schema metadata); {@link MissingTableException} when there is no such table. */
    public static TableMetadata requireMetadata(CqlSession session, String keyspace, String table, String what) {
        return metadata(session, keyspace, table).orElseThrow(() -> new MissingTableException(keyspace, table, what));
    }

    private static Optional<TableMetadata> metadata(CqlSession session, String keyspace, String table) {
        return session.getMetadata().getKeyspace(CqlIdentifier.fromInternal(keyspace)).flatMap(k -> k.getTable(CqlIdentifier.fromInternal(table)));
    }
}
