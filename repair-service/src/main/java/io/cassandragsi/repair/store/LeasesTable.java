package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.cassandragsi.schema.Cql;

/**
 * The table {@code <project keyspace>.leases} (docs/design.md section 1: this class owns it): one row per
 * shard held, written only with lightweight transactions.
 */
public final class LeasesTable implements Leases {
    public static final String TABLE = "leases";
    public static final String WHAT = "shard leases";

    private final CqlSession session;
    private final PreparedStatement acquire;
    private final PreparedStatement renew;
    private final PreparedStatement release;
    private final PreparedStatement owners;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE)
                + " (shard int PRIMARY KEY, owner text) WITH gc_grace_seconds = 3600;";
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public LeasesTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        String t = Cql.qualified(keyspace, TABLE);
        this.acquire = session.prepare("INSERT INTO " + t + " (shard, owner) VALUES (?, ?) IF NOT EXISTS USING TTL ?");
        this.renew = session.prepare("UPDATE " + t + " USING TTL ? SET owner = ? WHERE shard = ? IF owner = ?");
        this.release = session.prepare("DELETE FROM " + t + " WHERE shard = ? IF owner = ?");
        this.owners = session.prepare("SELECT shard, owner FROM " + t);
    }

    @Override
    public boolean acquire(int shard, String owner, int ttlSeconds) {
        return session.execute(acquire.bind(shard, owner, ttlSeconds)).wasApplied();
    }

    @Override
    public boolean renew(int shard, String owner, int ttlSeconds) {
        return session.execute(renew.bind(ttlSeconds, owner, shard, owner)).wasApplied();
    }

    @Override
    public void release(int shard, String owner) {
        session.execute(release.bind(shard, owner));
    }

    @Override
    public java.util.Map<Integer, String> owners() {
        java.util.Map<Integer, String> out = new java.util.HashMap<>();
        for (com.datastax.oss.driver.api.core.cql.Row r : session.execute(owners.bind()
                .setConsistencyLevel(com.datastax.oss.driver.api.core.ConsistencyLevel.LOCAL_QUORUM))) {
            if (!r.isNull(1)) {
                out.put(r.getInt(0), r.getString(1));
            }
        }
        return out;
    }
}
