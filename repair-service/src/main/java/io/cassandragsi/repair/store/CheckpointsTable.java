package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import java.time.Instant;

/** The table {@code <project keyspace>.checkpoints} (STYLE.md item 2: this class owns it): one row per shard. */
public final class CheckpointsTable implements Checkpoints {
    public static final String TABLE = "checkpoints";
    public static final String WHAT = "shard checkpoints";

    private final CqlSession session;
    private final PreparedStatement read;
    private final PreparedStatement write;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE)
                + " (shard int PRIMARY KEY, resume_from timestamp, updated_by text);";
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public CheckpointsTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        String t = Cql.qualified(keyspace, TABLE);
        this.read = session.prepare("SELECT resume_from FROM " + t + " WHERE shard = ?");
        this.write = session.prepare("UPDATE " + t + " SET resume_from = ?, updated_by = ? WHERE shard = ?");
    }

    @Override
    public Instant checkpoint(int shard) {
        Row r = session.execute(read.bind(shard).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM)).one();
        return r == null ? null : r.getInstant(0);
    }

    @Override
    public void checkpoint(int shard, Instant resumeFrom, String owner) {
        session.execute(write.bind(resumeFrom, owner, shard).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }
}
