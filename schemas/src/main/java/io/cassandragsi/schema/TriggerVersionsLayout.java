package io.cassandragsi.schema;

/**
 * Which version of the trigger jar each node runs (docs/deployment.md, Versions), in the project
 * keyspace: one row per node, written by the node's trigger when its jar is loaded (the first
 * write after a start or a {@code nodetool reloadtriggers}) and again every
 * {@link #REPORT_EVERY_MILLIS} while it indexes writes; rows expire a day after their last
 * report. The repair service compares them with its own version and warns, in its status and its
 * log, about a node whose jar differs.
 */
public final class TriggerVersionsLayout {
    public static final String TABLE = "trigger_versions";
    /** The node's broadcast address and port. */
    public static final String C_NODE = "node";
    /** {@link BuildVersion#get()} of the trigger jar. */
    public static final String C_VERSION = "version";
    /** When this class loader of the trigger jar first reported (about when the jar was loaded). */
    public static final String C_LOADED = "loaded";
    /** The last report. */
    public static final String C_REPORTED = "reported";
    /** A trigger that keeps indexing writes reports this often. */
    public static final long REPORT_EVERY_MILLIS = 3_600_000L;
    /** Rows of nodes that stopped reporting (removed, or no indexed writes) expire after this. */
    public static final int TTL_SECONDS = 86_400;

    private TriggerVersionsLayout() {}

    public static String createTable(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE) + " (\n"
                + "  node text PRIMARY KEY,\n"
                + "  version text,\n"
                + "  loaded timestamp,\n"
                + "  reported timestamp\n"
                + ") WITH default_time_to_live = " + TTL_SECONDS + ";";
    }
}
