package io.cassandragsi.repair.jobs;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.repair.store.MissingTableException;
import io.cassandragsi.schema.Cql;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The table {@code <project keyspace>.jobs} (docs/design.md section 1: this class owns it). One partition
 * per job: the job's header in static columns, one row per finished token range keyed by the
 * range's start. Rows expire after {@value #TTL_DAYS} days: a job left unfinished longer starts
 * over.
 */
public final class JobsTable implements JobLedger {
    public static final String TABLE = "jobs";
    public static final String WHAT = "job ledger";
    static final int TTL_DAYS = 30;
    private static final String HEADER_COLUMNS = "id, kind, keyspace_name, table_name, index_name, splits, state, message, started, updated";

    private final CqlSession session;
    private final ConsistencyLevel read;
    private final ConsistencyLevel write;
    private final PreparedStatement insertHeader;
    private final PreparedStatement updateState;
    private final PreparedStatement selectHeader;
    private final PreparedStatement selectHeaders;
    private final PreparedStatement selectRanges;
    private final PreparedStatement insertRange;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE) + " (\n"
                + "  id text,\n"
                + "  range_start bigint,\n"
                + "  range_end bigint,\n"
                + "  rows bigint,\n"
                + "  writes bigint,\n"
                + "  finished timestamp,\n"
                + "  kind text static,\n"
                + "  keyspace_name text static,\n"
                + "  table_name text static,\n"
                + "  index_name text static,\n"
                + "  splits int static,\n"
                + "  state text static,\n"
                + "  message text static,\n"
                + "  started timestamp static,\n"
                + "  updated timestamp static,\n"
                + "  PRIMARY KEY ((id), range_start)\n"
                + ") WITH default_time_to_live = " + TTL_DAYS * 86_400
                + " AND comment = 'cassandra-gsi: rebuild jobs and the token ranges they finished';";
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public JobsTable(CqlSession session, String keyspace, ConsistencyLevel read, ConsistencyLevel write) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        this.read = read;
        this.write = write;
        String t = Cql.qualified(keyspace, TABLE);
        this.insertHeader = session.prepare("INSERT INTO " + t + " (" + HEADER_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        this.updateState = session.prepare("UPDATE " + t + " SET state = ?, message = ?, updated = ? WHERE id = ?");
        this.selectHeader = session.prepare("SELECT DISTINCT " + HEADER_COLUMNS + " FROM " + t + " WHERE id = ?");
        this.selectHeaders = session.prepare("SELECT DISTINCT " + HEADER_COLUMNS + " FROM " + t);
        this.selectRanges = session.prepare("SELECT range_start, range_end, rows, writes, finished FROM " + t + " WHERE id = ?");
        this.insertRange = session.prepare("INSERT INTO " + t + " (id, range_start, range_end, rows, writes, finished) VALUES (?, ?, ?, ?, ?, ?)");
    }

    private static Header header(Row r) {
        String state = r.getString(6);
        return new Header(r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getString(4), r.getInt(5),
                state == null ? JobState.RUNNING : JobState.valueOf(state), r.getString(7), r.getInstant(8), r.getInstant(9));
    }

    @Override
    public Optional<Header> find(String id) {
        Row r = session.execute(selectHeader.bind(id).setConsistencyLevel(read)).one();
        return r == null || r.isNull(1) ? Optional.empty() : Optional.of(header(r));
    }

    @Override
    public void create(Header h) {
        session.execute(insertHeader.bind(h.id(), h.kind(), h.keyspace(), h.table(), h.index(), h.splits(), h.state().name(), h.message(),
                h.started(), h.updated()).setConsistencyLevel(write).setIdempotent(true));
    }

    @Override
    public void state(String id, JobState state, String message) {
        session.execute(updateState.bind(state.name(), message, Instant.now(), id).setConsistencyLevel(write).setIdempotent(true));
    }

    @Override
    public List<RangeDone> finished(String id) {
        List<RangeDone> out = new ArrayList<>();
        for (Row r : session.execute(selectRanges.bind(id).setConsistencyLevel(read).setPageSize(5000))) {
            if (r.isNull(0) || r.isNull(1)) {
                continue; // the static row of a job without finished ranges
            }
            out.add(new RangeDone(new TokenRange(r.getLong(0), r.getLong(1)), r.getLong(2), r.getLong(3), r.getInstant(4)));
        }
        return out;
    }

    @Override
    public void finished(String id, RangeDone d) {
        session.execute(insertRange.bind(id, d.range().start(), d.range().end(), d.rows(), d.writes(), d.finished())
                .setConsistencyLevel(write).setIdempotent(true));
    }

    @Override
    public List<Header> headers() {
        List<Header> out = new ArrayList<>();
        for (Row r : session.execute(selectHeaders.bind().setConsistencyLevel(read).setPageSize(1000))) {
            if (!r.isNull(1)) {
                out.add(header(r));
            }
        }
        return out;
    }
}
