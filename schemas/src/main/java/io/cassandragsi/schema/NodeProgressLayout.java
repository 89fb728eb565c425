package io.cassandragsi.schema;

/**
 * The in-node maintainers' progress records (docs/design.md section 7), in the project keyspace: one
 * row per maintainer epoch (a maintainer's life on one node, from its start to its retirement),
 * keyed by the queue shard its markers go to. The node writes its heartbeat and how far it got
 * every second; the repair service sweeps the shard of an epoch that stopped (kill -9, drain,
 * {@code nodetool reloadtriggers}) from there, and records how far it swept. Rows expire with the
 * queue's markers.
 */
public final class NodeProgressLayout {
    public static final String TABLE = "node_progress";
    /** The queue shard of the epoch's markers (always at or above {@link #FIRST_EPOCH_SHARD}). */
    public static final String C_SHARD = "shard";
    /** The node's broadcast address. */
    public static final String C_NODE = "node";
    public static final String C_STARTED = "started";
    public static final String C_HEARTBEAT = "heartbeat";
    /** Every marker of the epoch with a smaller id is done or handed off. */
    public static final String C_DONE_BEFORE = "done_before";
    /** {@value #RUNNING} or {@value #RETIRED}. */
    public static final String C_STATE = "state";
    public static final String C_QUEUED = "queued";
    public static final String C_DONE = "done";
    public static final String C_HANDED_OFF = "handed_off";
    public static final String C_RETRIED = "retried";
    /**
     * CDC segments Cassandra dropped before every maintainer had passed them ({@code cdc_total_space}
     * full, docs/design.md section 7.11), counted; {@link #C_CDC_LOST_BEHIND} says whether they
     * need the repair service's targeted {@code check --fix}. Added by {@code schema apply} to older tables; a node writes it only
     * where the column exists.
     */
    public static final String C_CDC_LOST = "cdc_lost";
    /**
     * Per maintainer epoch that was behind a CDC segment this epoch's node lost, its done_before then
     * and the segment's last change ({@link CdcLosses}, docs/design.md section 7.11): what tells a
     * harmless loss from one the repair service must repair. Written by the node, with {@link
     * #C_CDC_LOST}; added by {@code schema apply} to older tables.
     */
    public static final String C_CDC_LOST_BEHIND = "cdc_lost_behind";
    /**
     * Written by the repair service once its targeted {@code check --fix} of the node's ranges is
     * done: the {@link #C_CDC_LOST_BEHIND} entries it covered, in the same form.
     */
    public static final String C_CDC_REPAIRED = "cdc_repaired";
    /** Written by the repair service: the epoch's markers are swept up to here. */
    public static final String C_SWEPT_TO = "swept_to";
    public static final String C_SWEPT_BY = "swept_by";
    /**
     * A maintainer records its progress four times a second: silent this long, it is taken for
     * stopped, by the repair service's sweep and by the nodes' CDC backstops alike (docs/design.md
     * sections 7.9 and 7.11).
     */
    public static final long STOPPED_AFTER_MILLIS = 10_000;
    public static final String RUNNING = "running";
    public static final String RETIRED = "retired";

    /**
     * Queue shards of node epochs start here: the repair service's own shards are {@code 0 ..
     * shards - 1}, far below.
     */
    public static final int FIRST_EPOCH_SHARD = 1 << 30;

    private NodeProgressLayout() {}

    /** True when a queue shard is a node epoch's. */
    public static boolean isEpochShard(int shard) {
        return shard >= FIRST_EPOCH_SHARD;
    }

    /** {@link #C_CDC_LOST} for a table created before it. */
    public static String addCdcLost(String keyspace) {
        return "ALTER TABLE " + Cql.qualified(keyspace, TABLE) + " ADD " + C_CDC_LOST + " bigint;";
    }

    /** {@link #C_CDC_LOST_BEHIND} and {@link #C_CDC_REPAIRED} for a table created before them. */
    public static java.util.List<String> addCdcRepair(String keyspace) {
        return java.util.List.of("ALTER TABLE " + Cql.qualified(keyspace, TABLE) + " ADD " + C_CDC_LOST_BEHIND + " text;",
                "ALTER TABLE " + Cql.qualified(keyspace, TABLE) + " ADD " + C_CDC_REPAIRED + " text;");
    }

    public static String createTable(String keyspace, QueueLayout.Settings queue) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE) + " (\n"
                + "  shard int PRIMARY KEY,\n"
                + "  node text,\n"
                + "  started timestamp,\n"
                + "  heartbeat timestamp,\n"
                + "  done_before timeuuid,\n"
                + "  state text,\n"
                + "  queued bigint,\n"
                + "  done bigint,\n"
                + "  handed_off bigint,\n"
                + "  retried bigint,\n"
                + "  cdc_lost bigint,\n"
                + "  cdc_lost_behind text,\n"
                + "  cdc_repaired text,\n"
                + "  swept_to timeuuid,\n"
                + "  swept_by text\n"
                + ") WITH default_time_to_live = " + queue.ttlSeconds() + "\n"
                + "  AND gc_grace_seconds = 10800;";
    }
}
