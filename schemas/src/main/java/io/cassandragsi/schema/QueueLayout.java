package io.cassandragsi.schema;

/**
 * The work queue that the trigger writes and the repair service consumes (docs/design.md section 3.5), in
 * the project's own keyspace. Partitions are (shard, time bucket): bounded in size, written once
 * and never deleted (no tombstones), dropped whole by TTL and time-window compaction. The queue's
 * settings travel with the schema in the table comment, so the trigger needs no per-node config.
 */
public final class QueueLayout {
    public static final String DEFAULT_KEYSPACE = "gsi";
    public static final String TABLE = "queue";
    public static final int DEFAULT_SHARDS = 8;
    public static final int DEFAULT_BUCKET_SECONDS = 10;
    /** Seven days: markers are a work list, not a record; {@code check} catches anything older. */
    public static final int DEFAULT_TTL_SECONDS = 7 * 24 * 3600;

    /** Marker flag: some index could not be derived from the update alone (partial update). */
    public static final int FLAG_PARTIAL = 1;
    /** Marker flag: the update deletes rows, ranges or the partition, or sets a TTL. */
    public static final int FLAG_DELETE = 2;
    /** Marker flag: a conditional (CAS) write; index only once a SERIAL read shows it applied. */
    public static final int FLAG_CAS = 4;
    /**
     * Marker flag: the trigger left something unindexed because Cassandra could not store it (an
     * entry key over the size limit: never indexed; or index writes that would push the write's
     * batch over the node's mutation size limit: left to the repair service). Counted by the service.
     */
    public static final int FLAG_TOO_LARGE = 8;

    public static final String C_SHARD = "shard";
    public static final String C_BUCKET = "bucket";
    public static final String C_ID = "id";
    public static final String C_KEYSPACE = "keyspace_name";
    public static final String C_TABLE = "table_name";
    public static final String C_PK = "pk";
    public static final String C_CK = "ck";
    public static final String C_TID_MIN = "tid_min";
    public static final String C_TID_MAX = "tid_max";
    public static final String C_FLAGS = "flags";

    private QueueLayout() {}

    /** The settings stored in the queue table's comment. */
    public record Settings(int shards, int bucketSeconds, int ttlSeconds) {
        public static Settings defaults() {
            return new Settings(DEFAULT_SHARDS, DEFAULT_BUCKET_SECONDS, DEFAULT_TTL_SECONDS);
        }

        public String toComment() {
            return "{\"gsi_queue\":{\"shards\":" + shards + ",\"bucket_seconds\":" + bucketSeconds
                    + ",\"ttl_seconds\":" + ttlSeconds + "}}";
        }

        /** Reads the settings from the queue table's comment; defaults for anything missing. */
        public static Settings parseComment(String comment) {
            Settings d = defaults();
            try {
                com.fasterxml.jackson.databind.JsonNode q = new com.fasterxml.jackson.databind.ObjectMapper().readTree(comment).path("gsi_queue");
                int shards = q.path("shards").asInt(d.shards());
                int bucket = q.path("bucket_seconds").asInt(d.bucketSeconds());
                int ttl = q.path("ttl_seconds").asInt(d.ttlSeconds());
                if (shards < 1 || bucket < 1 || ttl < 1) {
                    throw new IllegalArgumentException("queue settings must be positive: " + comment);
                }
                return new Settings(shards, bucket, ttl);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("queue table comment is not valid JSON: " + comment, e);
            }
        }

        public long bucketOf(long epochMillis) {
            return epochMillis / (bucketSeconds * 1000L);
        }
    }

    /** Shard of a base partition: stable, spreads partitions, same for all markers of a partition. */
    public static int shardOf(String keyspace, String table, java.nio.ByteBuffer partitionKey, int shards) {
        int h = keyspace.hashCode() * 31 + table.hashCode();
        h = h * 31 + partitionKey.hashCode();
        h ^= (h >>> 16);
        return Math.floorMod(h, shards);
    }

    public static String createTable(String keyspace, Settings settings) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE) + " (\n"
                + "  shard int,\n"
                + "  bucket bigint,\n"
                + "  id timeuuid,\n"
                + "  keyspace_name text,\n"
                + "  table_name text,\n"
                + "  pk blob,\n"
                + "  ck blob,\n"
                + "  tid_min timeuuid,\n"
                + "  tid_max timeuuid,\n"
                + "  flags int,\n"
                + "  PRIMARY KEY ((shard, bucket), id)\n"
                + ") WITH default_time_to_live = " + settings.ttlSeconds() + "\n"
                + "  AND gc_grace_seconds = 10800\n"
                + "  AND read_repair = 'NONE'\n"
                + "  AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 1}\n"
                + "  AND comment = " + Cql.literal(settings.toComment()) + ";";
    }

    /**
     * Stops read repair on a queue made before {@code read_repair = 'NONE'} was part of its DDL.
     * Markers are written once and read at LOCAL_QUORUM while they are being written: with
     * blocking read repair, replicas that disagree for a moment make such a read repair them (on
     * three nodes, two runs each: the service's node work per marker 1,324 and 1,171 us with it,
     * 568 and 1,089 us without; README, Performance).
     * Without it a read still returns what the replicas it asks hold together; a marker it misses
     * is found by a later sweep.
     */
    public static String noReadRepair(String keyspace) {
        return "ALTER TABLE " + Cql.qualified(keyspace, TABLE) + " WITH read_repair = 'NONE';";
    }
}
