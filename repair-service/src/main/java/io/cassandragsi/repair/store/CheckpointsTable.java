package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import java.time.Instant;

/** The table {@code <project keyspace>.checkpoints} (docs/design.md section 1: this class owns it): one row per shard. */
public final class CheckpointsTable implements Checkpoints {
    public static final String TABLE = "checkpoints";
    public static final String WHAT = "shard checkpoints";

    private final CqlSession session;
    private final PreparedStatement read;
    private final PreparedStatement write;
    private final PreparedStatement writeDone;
    private final PreparedStatement readDone;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE)
                + " (shard int PRIMARY KEY, resume_from timestamp, updated_by text, " + DONE_BEFORE + " timestamp);";
    }

    /** The column added after the first release: {@code schema apply} adds it to an older table. */
    public static final String DONE_BEFORE = "done_before";

    public static String addDoneBefore(String keyspace) {
        return "ALTER TABLE " + Cql.qualified(keyspace, TABLE) + " ADD " + DONE_BEFORE + " timestamp;";
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public CheckpointsTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        String t = Cql.qualified(keyspace, TABLE);
        this.read = session.prepare("SELECT resume_from FROM " + t + " WHERE shard = ?");
        this.write = session.prepare("UPDATE " + t + " SET resume_from = ?, updated_by = ? WHERE shard = ?");
        try {
            this.writeDone = session.prepare("UPDATE " + t + " SET " + DONE_BEFORE + " = ?, updated_by = ? WHERE shard = ?");
            this.readDone = session.prepare("SELECT shard, " + DONE_BEFORE + " FROM " + t);
        } catch (com.datastax.oss.driver.api.core.servererrors.InvalidQueryException e) {
            throw new IllegalStateException("table " + t + " has no column " + DONE_BEFORE + " (it was created by an older release):"
                    + " run ./gsi schema apply once to add it", e);
        }
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

    @Override
    public void done(int shard, Instant doneBefore, String owner) {
        session.execute(writeDone.bind(doneBefore, owner, shard).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
    }

    @Override
    public java.util.Map<Integer, Instant> done() {
        java.util.Map<Integer, Instant> out = new java.util.HashMap<>();
        for (Row r : session.execute(readDone.bind().setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM))) {
            if (!r.isNull(1)) {
                out.put(r.getInt(0), r.getInstant(1));
            }
        }
        return out;
    }
}
