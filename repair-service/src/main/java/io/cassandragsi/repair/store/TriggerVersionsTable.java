package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.TriggerVersionsLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The nodes' trigger versions ({@link TriggerVersionsLayout}, written by each node's trigger) as the
 * repair service reads them (docs/design.md section 1: this class owns the table's statements).
 */
public final class TriggerVersionsTable {
    public static final String WHAT = "nodes' trigger jar versions";

    /** What one node's trigger last reported. */
    public record Report(String node, String version, Instant loaded, Instant reported) {}

    private final CqlSession session;
    private final PreparedStatement all;

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public TriggerVersionsTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TriggerVersionsLayout.TABLE, WHAT);
        this.session = session;
        this.all = session.prepare("SELECT node, version, loaded, reported FROM " + Cql.qualified(keyspace, TriggerVersionsLayout.TABLE));
    }

    /** Every node's report (one row per node: a small table). */
    public List<Report> all(ConsistencyLevel cl) {
        List<Report> out = new ArrayList<>();
        for (Row r : session.execute(all.bind().setConsistencyLevel(cl).setPageSize(1000).setIdempotent(true))) {
            if (r.isNull(1)) {
                continue;
            }
            out.add(new Report(r.getString(0), r.getString(1), r.getInstant(2), r.getInstant(3)));
        }
        return out;
    }
}
