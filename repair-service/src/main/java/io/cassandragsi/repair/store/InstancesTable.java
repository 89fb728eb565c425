package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import java.time.Instant;

/** The table {@code <project keyspace>.instances} (docs/design.md section 1: this class owns it): one heartbeat row per live instance. */
public final class InstancesTable implements Instances {
    public static final String TABLE = "instances";
    public static final String WHAT = "service instances";

    private final CqlSession session;
    private final PreparedStatement heartbeat;
    private final PreparedStatement owners;
    private final PreparedStatement leave;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE)
                + " (owner text PRIMARY KEY, started timestamp) WITH gc_grace_seconds = 3600;";
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public InstancesTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        String t = Cql.qualified(keyspace, TABLE);
        this.heartbeat = session.prepare("INSERT INTO " + t + " (owner, started) VALUES (?, ?) USING TTL ?");
        this.owners = session.prepare("SELECT owner FROM " + t);
        this.leave = session.prepare("DELETE FROM " + t + " WHERE owner = ?");
    }

    @Override
    public void heartbeat(String owner, Instant started, int ttlSeconds) {
        session.execute(heartbeat.bind(owner, started, ttlSeconds).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }

    @Override
    public int liveInstances() {
        int n = 0;
        for (Row ignored : session.execute(owners.bind().setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM))) {
            n++;
        }
        return Math.max(1, n);
    }

    @Override
    public void leave(String owner) {
        session.execute(leave.bind(owner).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }
}
