package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;

/**
 * Defects made on purpose in the revisions example's index tables and base table, each the way it
 * happens for real, so that a check must find them and a fix must be able to repair them under the
 * TS rule:
 *
 * <ul>
 *   <li>entries the index never got (a lost write): the index table is truncated and restored cell
 *       by cell at the original write timestamps, leaving some entries out or restoring them as
 *       they were before a later write (a DELETE would leave a tombstone above every TS, which by
 *       design no TS-rule write can overcome: see the report's "unfixable");
 *   <li>entries nothing explains (ghosts), written at TS(now);
 *   <li>base versions written while the trigger was dropped.
 * </ul>
 */
final class IndexSurgery {
    private final CqlSession session;
    private final TableDef def;
    private final String ks;

    IndexSurgery(CqlSession session, TableDef def) {
        this.session = session;
        this.def = def;
        this.ks = def.keyspace();
    }

    private void ddl(String cql) {
        session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
        session.checkSchemaAgreement();
    }

    void truncate(String indexTable) {
        ddl("TRUNCATE " + ks + "." + indexTable);
    }

    /** One by_length row as stored: values and the write time of each cell (null when null). */
    record LengthRow(BigInteger length, String key, String value, UUID tid, UUID deleted, Long valueTs, Long tidTs, Long deletedTs) {
        LengthRow withDeleted(UUID d, Long ts) {
            return new LengthRow(length, key, value, tid, d, valueTs, tidTs, ts);
        }
    }

    List<LengthRow> byLength() {
        List<LengthRow> out = new ArrayList<>();
        for (Row r : session.execute("SELECT length, key, value, \"_tid\", \"_deleted\", writetime(value), writetime(\"_tid\"),"
                + " writetime(\"_deleted\") FROM " + ks + ".idx_revisions_by_length_ever")) {
            out.add(new LengthRow(r.getBigInteger(0), r.getString(1), r.getString(2), r.getUuid(3), r.getUuid(4),
                    r.isNull(5) ? null : r.getLong(5), r.isNull(6) ? null : r.getLong(6), r.isNull(7) ? null : r.getLong(7)));
        }
        return out;
    }

    /** Writes the rows back cell by cell at their write times (after a truncate). */
    void restoreByLength(List<LengthRow> rows) {
        String t = ks + ".idx_revisions_by_length_ever";
        PreparedStatement tid = session.prepare("UPDATE " + t + " USING TIMESTAMP ? SET \"_tid\" = ? WHERE length = ? AND key = ?");
        PreparedStatement value = session.prepare("UPDATE " + t + " USING TIMESTAMP ? SET value = ? WHERE length = ? AND key = ?");
        PreparedStatement deleted = session.prepare("UPDATE " + t + " USING TIMESTAMP ? SET \"_deleted\" = ? WHERE length = ? AND key = ?");
        for (LengthRow r : rows) {
            session.execute(tid.bind(r.tidTs(), r.tid(), r.length(), r.key()));
            if (r.value() != null) {
                session.execute(value.bind(r.valueTs(), r.value(), r.length(), r.key()));
            }
            if (r.deleted() != null) {
                session.execute(deleted.bind(r.deletedTs(), r.deleted(), r.length(), r.key()));
            }
        }
    }

    record TidRow(UUID tid, String key) {}

    List<TidRow> byTid() {
        List<TidRow> out = new ArrayList<>();
        for (Row r : session.execute("SELECT tid, key FROM " + ks + ".idx_revisions_by_tid_ever")) {
            out.add(new TidRow(r.getUuid(0), r.getString(1)));
        }
        return out;
    }

    void restoreByTid(List<TidRow> rows) {
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".idx_revisions_by_tid_ever (tid, key) VALUES (?, ?) USING TIMESTAMP ?");
        for (TidRow r : rows) {
            session.execute(insert.bind(r.tid(), r.key(), WriteTimestamps.of(r.tid())));
        }
    }

    static long nowTs() {
        return Tids.ticks(Instant.now());
    }

    /** Ghost entries in by_length: lengths no version has, at TS(now) (also on keys that have versions). */
    void ghostsByLength(int n, Random rnd) {
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".idx_revisions_by_length_ever (length, key, value, \"_tid\")"
                + " VALUES (?, ?, ?, ?) USING TIMESTAMP ?");
        for (int i = 0; i < n; i++) {
            String key = i % 2 == 0 ? "k" + rnd.nextInt(10) : "ghost-" + i;
            session.execute(insert.bind(BigInteger.valueOf(1000 + i), key, "ghost", Tids.fromTicks(nowTs(), rnd.nextLong()), nowTs()));
        }
    }

    /** Ghost entries in by_tid: tids no version has, at TS(now). */
    void ghostsByTid(int n, Random rnd) {
        PreparedStatement insert = session.prepare("INSERT INTO " + ks + ".idx_revisions_by_tid_ever (tid, key) VALUES (?, ?) USING TIMESTAMP ?");
        for (int i = 0; i < n; i++) {
            session.execute(insert.bind(Tids.fromTicks(nowTs() - 1_000_000 - i, rnd.nextLong()), "k" + rnd.nextInt(10), nowTs()));
        }
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes versions with the trigger dropped (nothing reaches the index or the queue), then puts
     * the trigger back: fresh tids on existing keys, new keys, and old tids between two versions
     * of a key. Records every version in the oracle. Returns how many were written.
     */
    int writeWithoutTrigger(HistoryRun run, int fresh, int newKeys, int old, Random rnd) {
        ddl("DROP TRIGGER IF EXISTS \"" + CqlGenerator.TRIGGER_NAME + "\" ON " + ks + ".revisions");
        // Not prepared: a statement prepared before the DROP (the driver and the node cache it by its
        // text, and HistoryRun prepared this text) keeps the table metadata it was prepared with,
        // trigger included, and fires the dropped trigger (changing triggers does not invalidate
        // prepared statements in Cassandra 5.0).
        String insert = "INSERT INTO " + ks + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)";
        Map<List<ByteBuffer>, NavigableMap<UUID, List<ByteBuffer>>> rows = run.oracle.rows();
        List<List<ByteBuffer>> keys = new ArrayList<>(rows.keySet());
        long clock = nowTs() + 100_000_000L; // 10 s ahead of anything the history wrote
        int n = 0;
        for (int i = 0; i < fresh + newKeys + old; i++) {
            String key;
            UUID tid;
            if (i < fresh) {
                key = StandardCharsets.UTF_8.decode(keys.get(rnd.nextInt(keys.size())).get(0).duplicate()).toString();
                clock += 1 + rnd.nextInt(10_000);
                tid = Tids.fromTicks(clock, rnd.nextLong());
            } else if (i < fresh + newKeys) {
                key = "dark-" + i;
                clock += 1 + rnd.nextInt(10_000);
                tid = Tids.fromTicks(clock, rnd.nextLong());
            } else {
                tid = null;
                key = null;
                for (int attempt = 0; attempt < 100 && tid == null; attempt++) {
                    List<ByteBuffer> rk = keys.get(rnd.nextInt(keys.size()));
                    List<UUID> tids = new ArrayList<>(rows.get(rk).keySet());
                    if (tids.size() < 2) {
                        continue;
                    }
                    int j = rnd.nextInt(tids.size() - 1);
                    long a = WriteTimestamps.of(tids.get(j));
                    long b = WriteTimestamps.of(tids.get(j + 1));
                    if (b - a >= 2) {
                        tid = Tids.fromTicks(a + (b - a) / 2, rnd.nextLong());
                        key = StandardCharsets.UTF_8.decode(rk.get(0).duplicate()).toString();
                    }
                }
                if (tid == null) {
                    continue;
                }
            }
            BigInteger length = BigInteger.valueOf(rnd.nextInt(4));
            String value = "dark" + rnd.nextInt(1000);
            session.execute(SimpleStatement.newInstance(insert, key, tid, length, value));
            run.oracle.write(text(key), Tids.bytes(tid), ByteBuffer.wrap(length.toByteArray()), text(value));
            n++;
        }
        ddl(CqlGenerator.createTrigger(def));
        return n;
    }

    /** Picks {@code n} items at random (without replacement) and removes them from {@code from}. */
    static <T> List<T> take(List<T> from, int n, Random rnd, Function<T, Boolean> eligible) {
        List<T> out = new ArrayList<>();
        for (int attempt = 0; attempt < from.size() * 4 && out.size() < n; attempt++) {
            int i = rnd.nextInt(from.size());
            if (eligible.apply(from.get(i))) {
                out.add(from.remove(i));
            }
        }
        return out;
    }
}
