package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchStatementBuilder;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.BucketPeriod;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The table {@code <project keyspace>.buckets} (docs/design.md section 1: this class owns it): per bucketed
 * index, one row per bucket label with its valid seal and the latest change recorded for it
 * (docs/design.md section 9.4). The row of label {@value #ALL} records changes to every bucket.
 * Both columns are written at a timestamp that is their value, so the latest seal to start and the
 * latest change win whatever the order of the writes.
 */
public final class BucketsTable {
    public static final String TABLE = "buckets";
    public static final String WHAT = "bucket seals and changes";
    /** The label whose change reaches every bucket of the index (a change whose start is unknown). */
    public static final String ALL = "";
    /** A change over more buckets than this is recorded for all of them (one row, a small batch). */
    static final int MAX_LABELS = 100;

    private final CqlSession session;
    private final PreparedStatement change;
    private final PreparedStatement seal;
    private final PreparedStatement state;
    private final PreparedStatement all;

    public static String createStatement(String keyspace) {
        return "CREATE TABLE IF NOT EXISTS " + Cql.qualified(keyspace, TABLE) + " (keyspace_name text, table_name text, index_name text,"
                + " label text, seal timeuuid, changed bigint, entry_count bigint, PRIMARY KEY ((keyspace_name, table_name, index_name), label));";
    }

    /** The state of one bucket: its latest complete seal (null: none), the latest change recorded for it or for every bucket (null: none), entries the seal wrote. */
    public record State(UUID seal, Long changedMicros, long entries) {
        public boolean valid() {
            return BucketRule.valid(seal, changedMicros);
        }
    }

    /** Over the existing table; {@link MissingTableException} when {@code schema apply} has not created it. */
    public BucketsTable(CqlSession session, String keyspace) {
        MissingTableException.require(session, keyspace, TABLE, WHAT);
        this.session = session;
        String t = Cql.qualified(keyspace, TABLE);
        String where = " WHERE keyspace_name = ? AND table_name = ? AND index_name = ?";
        this.change = session.prepare("UPDATE " + t + " USING TIMESTAMP ? SET changed = ?" + where + " AND label = ?");
        this.seal = session.prepare("UPDATE " + t + " USING TIMESTAMP ? SET seal = ?, entry_count = ?" + where + " AND label = ?");
        this.state = session.prepare("SELECT label, seal, changed, entry_count FROM " + t + where + " AND label IN ('" + ALL + "', ?)");
        this.all = session.prepare("SELECT label, seal, changed, entry_count FROM " + t + where);
    }

    /**
     * Records {@code change} for each bucketed index among {@code indexes} at {@code now}: for the
     * buckets from the change's first version's to the one {@link BucketRule#MARGIN} after now,
     * or, when that is unknown or too many, for all. Acknowledged on return.
     */
    public void record(String keyspace, String table, Collection<Index> indexes, BucketRule.Change c, Instant now, ConsistencyLevel cl) {
        long micros = BucketRule.micros(now);
        List<CompletableFuture<?>> sent = new ArrayList<>();
        for (Index index : indexes) {
            BucketPeriod period = index.bucket();
            if (period == null) {
                continue;
            }
            List<String> labels = labels(period, c.from() == null ? null : Tids.instant(c.from()), now.plus(BucketRule.MARGIN));
            sent.add(session.executeAsync(changes(keyspace, table, index.name(), labels, micros, cl)).toCompletableFuture());
        }
        sent.forEach(CompletableFuture::join);
    }

    /** The labels from {@code from}'s to {@code until}'s; [{@value #ALL}] when {@code from} is null or they are more than {@value #MAX_LABELS}. */
    static List<String> labels(BucketPeriod period, Instant from, Instant until) {
        if (from == null) {
            return List.of(ALL);
        }
        List<String> out = new ArrayList<>();
        String last = period.label(until);
        for (String l = period.label(from); l.compareTo(last) <= 0; l = period.next(l)) {
            if (out.size() == MAX_LABELS) {
                return List.of(ALL);
            }
            out.add(l);
        }
        return out;
    }

    private BatchStatement changes(String keyspace, String table, String index, List<String> labels, long micros, ConsistencyLevel cl) {
        BatchStatementBuilder b = BatchStatement.builder(BatchType.UNLOGGED);
        for (String label : labels) {
            b.addStatement(change.bind(micros, micros, keyspace, table, index, label));
        }
        return b.setConsistencyLevel(cl).setIdempotence(true).build();
    }

    /** Records a change at {@code now} for exactly {@code labels} of one index (a bucket the check found differing, docs/design.md section 9.2). */
    public void changed(String keyspace, String table, String index, Collection<String> labels, Instant now, ConsistencyLevel cl) {
        write(keyspace, table, index, labels, BucketRule.micros(now), cl);
    }

    private void write(String keyspace, String table, String index, Collection<String> labels, long micros, ConsistencyLevel cl) {
        for (List<String> part : parts(labels)) {
            session.execute(changes(keyspace, table, index, part, micros, cl));
        }
    }

    /** Before seal {@code g} writes: a change that ends every earlier seal of {@code labels} and leaves {@code g} valid. */
    public void beginSeal(String keyspace, String table, String index, Collection<String> labels, UUID g, ConsistencyLevel cl) {
        write(keyspace, table, index, labels, BucketRule.ownChangeMicros(g), cl);
    }

    /** Records seal {@code g} of {@code label} as complete, with the entries it wrote. */
    public void sealed(String keyspace, String table, String index, String label, UUID g, long entries, ConsistencyLevel cl) {
        long ts = BucketRule.micros(Tids.instant(g));
        session.execute(seal.bind(ts, g, entries, keyspace, table, index, label).setConsistencyLevel(cl).setIdempotent(true));
    }

    /** The state of bucket {@code label}. */
    public CompletableFuture<State> state(String keyspace, String table, String index, String label, ConsistencyLevel cl) {
        return session.executeAsync(state.bind(keyspace, table, index, label).setConsistencyLevel(cl).setIdempotent(true))
                .toCompletableFuture().thenApply(rs -> {
                    UUID g = null;
                    Long changed = null;
                    long entries = 0;
                    for (Row r : rs.currentPage()) {
                        changed = max(changed, r.isNull(2) ? null : r.getLong(2));
                        if (label.equals(r.getString(0))) {
                            g = r.getUuid(1);
                            entries = r.isNull(3) ? 0 : r.getLong(3);
                        }
                    }
                    return new State(g, changed, entries);
                });
    }

    /** Every bucket of the index with a row, by label (the row of {@value #ALL} applied to each, and left out). */
    public Map<String, State> all(String keyspace, String table, String index, ConsistencyLevel cl) {
        Map<String, State> raw = new TreeMap<>();
        Long everything = null;
        for (Row r : session.execute(all.bind(keyspace, table, index).setConsistencyLevel(cl).setIdempotent(true))) {
            Long changed = r.isNull(2) ? null : r.getLong(2);
            if (ALL.equals(r.getString(0))) {
                everything = changed;
            } else {
                raw.put(r.getString(0), new State(r.getUuid(1), changed, r.isNull(3) ? 0 : r.getLong(3)));
            }
        }
        Map<String, State> out = new TreeMap<>();
        for (Map.Entry<String, State> e : raw.entrySet()) {
            State s = e.getValue();
            out.put(e.getKey(), new State(s.seal(), max(s.changedMicros(), everything), s.entries()));
        }
        return out;
    }

    private static Long max(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(Math.max(a, b));
    }

    private static List<List<String>> parts(Collection<String> labels) {
        List<List<String>> out = new ArrayList<>();
        List<String> all = new ArrayList<>(labels);
        for (int i = 0; i < all.size(); i += MAX_LABELS) {
            out.add(all.subList(i, Math.min(all.size(), i + MAX_LABELS)));
        }
        return out;
    }
}
