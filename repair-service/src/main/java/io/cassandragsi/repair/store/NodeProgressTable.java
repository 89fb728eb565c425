package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.NodeProgressLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The in-node maintainers' progress records ({@link NodeProgressLayout}, docs/design.md section 7)
 * as the repair service reads them, and how far it swept an epoch that stopped (docs/design.md section 1:
 * this class owns the table's statements).
 */
public final class NodeProgressTable {
    private final CqlSession session;
    private final PreparedStatement all;
    private final PreparedStatement swept;
    /** Whether the table has {@code cdc_lost} (schema apply adds it to older ones). */
    private final boolean cdcLost;
    /** Whether the table has {@code cdc_lost_behind} and {@code cdc_repaired} (likewise). */
    private final boolean cdcRepair;
    private final PreparedStatement repaired;

    /**
     * One maintainer epoch: what the node last recorded, and how far the service swept it (null: not
     * at all); with the CDC segments it lost, the epochs each was kept for ({@code cdcLostBehind}) and
     * what the service's targeted repair covered of them ({@code cdcRepaired}; both {@link
     * io.cassandragsi.schema.CdcLosses} text, null: none).
     */
    public record Epoch(int shard, String node, Instant started, Instant heartbeat, UUID doneBefore, String state, long queued, long done,
            long handedOff, long retried, UUID sweptTo, String sweptBy, long cdcLost, String cdcLostBehind, String cdcRepaired) {
        /** An epoch that lost no CDC segment it needed. */
        public Epoch(int shard, String node, Instant started, Instant heartbeat, UUID doneBefore, String state, long queued, long done,
                long handedOff, long retried, UUID sweptTo, String sweptBy, long cdcLost) {
            this(shard, node, started, heartbeat, doneBefore, state, queued, done, handedOff, retried, sweptTo, sweptBy, cdcLost, null, null);
        }

        public boolean retired() {
            return NodeProgressLayout.RETIRED.equals(state);
        }
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public NodeProgressTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, NodeProgressLayout.TABLE, "in-node maintainers' progress");
        this.session = session;
        String t = Cql.qualified(keyspace, NodeProgressLayout.TABLE);
        // cdc_lost: a table from before it lacks the column until schema apply adds it (read as 0)
        this.cdcLost = session.getMetadata().getKeyspace(com.datastax.oss.driver.api.core.CqlIdentifier.fromInternal(keyspace))
                .flatMap(k -> k.getTable(NodeProgressLayout.TABLE)).map(m -> m.getColumn(NodeProgressLayout.C_CDC_LOST).isPresent()).orElse(false);
        this.cdcRepair = cdcLost && session.getMetadata().getKeyspace(com.datastax.oss.driver.api.core.CqlIdentifier.fromInternal(keyspace))
                .flatMap(k -> k.getTable(NodeProgressLayout.TABLE)).map(m -> m.getColumn(NodeProgressLayout.C_CDC_REPAIRED).isPresent()
                        && m.getColumn(NodeProgressLayout.C_CDC_LOST_BEHIND).isPresent()).orElse(false);
        this.all = session.prepare("SELECT shard, node, started, heartbeat, done_before, state, queued, done, handed_off, retried, swept_to,"
                + " swept_by" + (cdcLost ? ", " + NodeProgressLayout.C_CDC_LOST : "")
                + (cdcRepair ? ", " + NodeProgressLayout.C_CDC_LOST_BEHIND + ", " + NodeProgressLayout.C_CDC_REPAIRED : "") + " FROM " + t);
        this.swept = session.prepare("UPDATE " + t + " SET swept_to = ?, swept_by = ? WHERE shard = ?");
        this.repaired = cdcRepair ? session.prepare("UPDATE " + t + " SET " + NodeProgressLayout.C_CDC_REPAIRED + " = ? WHERE shard = ?") : null;
    }

    /** Every epoch recorded (a row per maintainer start in the queue's TTL: a handful per node and week). */
    public List<Epoch> all(ConsistencyLevel cl) {
        List<Epoch> out = new ArrayList<>();
        for (Row r : session.execute(all.bind().setConsistencyLevel(cl).setPageSize(1000).setIdempotent(true))) {
            if (r.isNull(3) || r.isNull(4)) {
                continue; // only a sweep's cells left (the node's expired first)
            }
            out.add(new Epoch(r.getInt(0), r.getString(1), r.getInstant(2), r.getInstant(3), r.getUuid(4), r.getString(5), r.getLong(6),
                    r.getLong(7), r.getLong(8), r.getLong(9), r.getUuid(10), r.getString(11), cdcLost ? r.getLong(12) : 0,
                    cdcRepair ? r.getString(13) : null, cdcRepair ? r.getString(14) : null));
        }
        return out;
    }

    /** Records that the epoch's markers are swept up to {@code sweptTo}. */
    public void swept(int shard, UUID sweptTo, String owner, ConsistencyLevel cl) {
        session.execute(swept.bind(sweptTo, owner, shard).setConsistencyLevel(cl).setIdempotent(true));
    }

    /**
     * Acknowledges the targeted repair of an epoch's CDC losses (docs/design.md section 7.11):
     * {@code covered} is what it covered ({@link io.cassandragsi.schema.CdcLosses} text). Written
     * once the repair is done, so a service that dies mid-way leaves it due.
     */
    public void cdcRepaired(int shard, String covered, ConsistencyLevel cl) {
        if (repaired == null) {
            throw new IllegalStateException(NodeProgressLayout.TABLE + " lacks " + NodeProgressLayout.C_CDC_REPAIRED + ": run ./gsi schema apply");
        }
        session.execute(repaired.bind(covered, shard).setConsistencyLevel(cl).setIdempotent(true));
    }
}
