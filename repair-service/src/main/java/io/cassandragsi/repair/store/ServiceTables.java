package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import java.time.Instant;

/**
 * The repair service's own tables in the project keyspace: per-shard checkpoints (where a
 * restarted service resumes) and shard leases (which instance works a shard). Leases are rows
 * with a TTL taken and renewed with lightweight transactions: an instance that dies stops
 * renewing, its rows expire and the others take its shards.
 */
public final class ServiceTables {
    private final CqlSession session;
    private final PreparedStatement readCheckpoint;
    private final PreparedStatement writeCheckpoint;
    private final PreparedStatement acquire;
    private final PreparedStatement renew;
    private final PreparedStatement release;
    private final PreparedStatement heartbeat;
    private final PreparedStatement instances;

    /** Schema changes wait for every node; far longer than a read or a write may take. */
    static final java.time.Duration DDL_TIMEOUT = java.time.Duration.ofSeconds(60);

    public static String[] createStatements(String keyspace) {
        return new String[] {
            "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, "checkpoints")
                    + " (shard int PRIMARY KEY, resume_from timestamp, updated_by text)",
            "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, "leases")
                    + " (shard int PRIMARY KEY, owner text) WITH gc_grace_seconds = 3600",
            "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, "instances")
                    + " (owner text PRIMARY KEY, started timestamp) WITH gc_grace_seconds = 3600",
        };
    }

    public ServiceTables(CqlSession session, String keyspace) {
        this.session = session;
        for (String ddl : createStatements(keyspace)) {
            session.execute(com.datastax.oss.driver.api.core.cql.SimpleStatement.newInstance(ddl).setTimeout(DDL_TIMEOUT));
        }
        session.checkSchemaAgreement();
        String checkpoints = Cql.qualified(keyspace, "checkpoints");
        String leases = Cql.qualified(keyspace, "leases");
        String inst = Cql.qualified(keyspace, "instances");
        this.readCheckpoint = session.prepare("SELECT resume_from FROM " + checkpoints + " WHERE shard = ?");
        this.writeCheckpoint = session.prepare("UPDATE " + checkpoints + " SET resume_from = ?, updated_by = ? WHERE shard = ?");
        this.acquire = session.prepare("INSERT INTO " + leases + " (shard, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ?");
        this.renew = session.prepare("UPDATE " + leases + " USING TTL ? SET owner = ? WHERE shard = ? IF owner = ?");
        this.release = session.prepare("DELETE FROM " + leases + " WHERE shard = ? IF owner = ?");
        this.heartbeat = session.prepare("INSERT INTO " + inst + " (owner, started) VALUES (?, ?) USING TTL ?");
        this.instances = session.prepare("SELECT owner FROM " + inst);
    }

    public Instant checkpoint(int shard) {
        Row r = session.execute(readCheckpoint.bind(shard).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM)).one();
        return r == null ? null : r.getInstant(0);
    }

    public void checkpoint(int shard, Instant resumeFrom, String owner) {
        session.execute(writeCheckpoint.bind(resumeFrom, owner, shard).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }

    public boolean acquire(int shard, String owner, int ttlSeconds) {
        return session.execute(acquire.bind(shard, owner, ttlSeconds)).wasApplied();
    }

    public boolean renew(int shard, String owner, int ttlSeconds) {
        return session.execute(renew.bind(ttlSeconds, owner, shard, owner)).wasApplied();
    }

    public void release(int shard, String owner) {
        session.execute(release.bind(shard, owner));
    }

    public void heartbeat(String owner, Instant started, int ttlSeconds) {
        session.execute(heartbeat.bind(owner, started, ttlSeconds).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }

    public int liveInstances() {
        int n = 0;
        for (Row ignored : session.execute(instances.bind().setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM))) {
            n++;
        }
        return Math.max(1, n);
    }
}
