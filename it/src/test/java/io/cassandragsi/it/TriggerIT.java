package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.DefaultBatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The trigger on a real node, through CQL writes with the driver: index rows, their write
 * timestamps, and the work-queue markers, with no repair service running.
 */
class TriggerIT {
    private static final String KS = "it_trigger";
    private static CqlSession s;
    private static PreparedStatement insert;
    private static final AtomicLong CLOCK = new AtomicLong(Tids.ticks(java.time.Instant.parse("2026-06-01T00:00:00Z")));

    @BeforeAll
    static void setUp() {
        s = SharedCluster.session();
        TableDef def = SharedCluster.example("revisions", KS);
        SharedCluster.apply(def);
        insert = s.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
    }

    /** A fresh tid, 1 ms after the previous one. */
    /** A new version's tid: now (a write more than a second after its tid's time is taken for a rewrite), and increasing. */
    private static UUID tid() {
        return Tids.fromTicks(CLOCK.updateAndGet(c -> Math.max(c + 10_000, Tids.ticks(java.time.Instant.now()))), 0x42);
    }

    private static Row entry(long length, String key) {
        return s.execute("SELECT \"_tid\", \"_deleted\", writetime(\"_tid\"), value, writetime(value) FROM " + KS
                + ".idx_revisions_by_length_ever WHERE length = ? AND key = ?", BigInteger.valueOf(length), key).one();
    }

    private static Row tidEntry(UUID tid, String key) {
        return s.execute("SELECT tid, key FROM " + KS + ".idx_revisions_by_tid_ever WHERE tid = ? AND key = ?", tid, key).one();
    }

    /** Markers of one base partition, read from every shard's recent buckets. */
    private static List<Row> markers(String key) {
        List<Row> out = new ArrayList<>();
        ByteBuffer pk = ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
        long now = System.currentTimeMillis();
        QueueLayout.Settings settings = QueueLayout.Settings.defaults();
        int shard = QueueLayout.shardOf(KS, "revisions", pk, settings.shards());
        for (long b = settings.bucketOf(now - 120_000); b <= settings.bucketOf(now); b++) {
            for (Row r : s.execute("SELECT * FROM gsi.queue WHERE shard = ? AND bucket = ?", shard, b)) {
                if (r.getString("table_name").equals("revisions") && r.getByteBuffer("pk").equals(pk)) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    @Test
    void should_write_an_entry_per_index_at_the_tid_timestamp_when_a_new_key_is_inserted() {
        UUID t = tid();
        s.execute(insert.bind("new-key", t, BigInteger.valueOf(11), "v1"));
        Row e = entry(11, "new-key");
        assertThat(e).isNotNull();
        assertThat(e.getUuid(0)).isEqualTo(t);
        assertThat(e.isNull(1)).isTrue();
        assertThat(e.getLong(2)).isEqualTo(WriteTimestamps.of(t));
        assertThat(e.getString(3)).isEqualTo("v1");
        assertThat(e.getLong(4)).isEqualTo(WriteTimestamps.of(t));
        assertThat(tidEntry(t, "new-key")).isNotNull();
        List<Row> m = markers("new-key");
        assertThat(m).hasSize(1);
        assertThat(m.get(0).getUuid("tid_min")).isEqualTo(t);
        assertThat(m.get(0).getUuid("tid_max")).isEqualTo(t);
        assertThat(m.get(0).getInt("flags")).isZero();
        assertThat(m.get(0).getByteBuffer("ck")).isEqualTo(Composite.encode(List.of()));
    }

    @Test
    void should_add_the_new_entry_and_keep_the_latest_tid_when_versions_arrive_out_of_order() {
        UUID t1 = tid(), t2 = tid(), t3 = tid();
        s.execute(insert.bind("ooo", t1, BigInteger.valueOf(1), "a"));
        s.execute(insert.bind("ooo", t3, BigInteger.valueOf(1), "c"));
        s.execute(insert.bind("ooo", t2, BigInteger.valueOf(1), "b")); // an old tid after a newer one
        Row e = entry(1, "ooo");
        assertThat(e.getUuid(0)).isEqualTo(t3);
        assertThat(e.getLong(2)).isEqualTo(WriteTimestamps.of(t3));
        assertThat(e.getString(3)).isEqualTo("c");
        UUID t4 = tid();
        s.execute(insert.bind("ooo", t4, BigInteger.valueOf(2), "d"));
        assertThat(entry(2, "ooo").getUuid(0)).isEqualTo(t4);
        assertThat(entry(1, "ooo").getUuid(0)).isEqualTo(t3); // marking it _deleted is the repair service's job
    }

    @Test
    void should_change_nothing_when_the_same_write_is_retried() {
        UUID t = tid();
        s.execute(insert.bind("retry", t, BigInteger.valueOf(5), "x"));
        Row first = entry(5, "retry");
        s.execute(insert.bind("retry", t, BigInteger.valueOf(5), "x"));
        s.execute(insert.bind("retry", t, BigInteger.valueOf(5), "x"));
        Row again = entry(5, "retry");
        assertThat(again.getUuid(0)).isEqualTo(first.getUuid(0));
        assertThat(again.getLong(2)).isEqualTo(first.getLong(2));
        assertThat(again.getString(3)).isEqualTo(first.getString(3));
    }

    @Test
    void should_give_distinct_timestamps_when_tids_are_100ns_apart() {
        long tick = CLOCK.addAndGet(10_000);
        UUID a = Tids.fromTicks(tick, 7), b = Tids.fromTicks(tick + 1, 3);
        s.execute(insert.bind("same-micro", b, BigInteger.valueOf(8), "b"));
        s.execute(insert.bind("same-micro", a, BigInteger.valueOf(8), "a"));
        Row e = entry(8, "same-micro");
        assertThat(e.getUuid(0)).isEqualTo(b);
        assertThat(e.getLong(2)).isEqualTo(tick + 1);
        assertThat(e.getString(3)).isEqualTo("b");
    }

    @Test
    void should_index_every_row_when_a_batch_spans_rows_and_partitions() {
        UUID t1 = tid(), t2 = tid(), t3 = tid();
        s.execute(BatchStatement.builder(DefaultBatchType.LOGGED)
                .addStatement(insert.bind("batch-a", t1, BigInteger.valueOf(21), "1"))
                .addStatement(insert.bind("batch-a", t2, BigInteger.valueOf(22), "2"))
                .addStatement(insert.bind("batch-b", t3, BigInteger.valueOf(21), "3"))
                .build());
        assertThat(entry(21, "batch-a").getUuid(0)).isEqualTo(t1);
        assertThat(entry(22, "batch-a").getUuid(0)).isEqualTo(t2);
        assertThat(entry(21, "batch-b").getUuid(0)).isEqualTo(t3);
        List<Row> m = markers("batch-a");
        assertThat(m).hasSize(1);
        assertThat(m.get(0).getUuid("tid_min")).isEqualTo(t1);
        assertThat(m.get(0).getUuid("tid_max")).isEqualTo(t2);
    }

    @Test
    void should_leave_the_entry_to_the_repair_service_when_an_update_omits_the_indexed_attribute() {
        UUID t = tid();
        s.execute("UPDATE " + KS + ".revisions SET value = 'partial' WHERE key = 'partial' AND tid = ?", t);
        assertThat(s.execute("SELECT * FROM " + KS + ".idx_revisions_by_length_ever").all())
                .noneMatch(r -> r.getString("key").equals("partial"));
        assertThat(tidEntry(t, "partial")).isNotNull();
        List<Row> m = markers("partial");
        assertThat(m).hasSize(1);
        assertThat(m.get(0).getInt("flags") & QueueLayout.FLAG_PARTIAL).isNotZero();
    }

    @Test
    void should_write_no_entry_when_the_indexed_value_is_null() {
        UUID t = tid();
        s.execute(insert.bind("nulls", t, null, "v"));
        assertThat(s.execute("SELECT * FROM " + KS + ".idx_revisions_by_length_ever").all())
                .noneMatch(r -> r.getString("key").equals("nulls"));
        assertThat(tidEntry(t, "nulls")).isNotNull();
        assertThat(markers("nulls")).hasSize(1).allMatch(r -> r.getInt("flags") == 0);
    }

    @Test
    void should_apply_the_write_and_queue_it_when_the_write_is_conditional() {
        UUID t = tid();
        ResultSet rs = s.execute("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES ('lwt', ?, 31, 'c') IF NOT EXISTS", t);
        assertThat(rs.wasApplied()).isTrue();
        assertThat(s.execute("SELECT value FROM " + KS + ".revisions WHERE key = 'lwt' AND tid = ?", t).one().getString(0)).isEqualTo("c");
        assertThat(entry(31, "lwt")).as("no entry on the CAS path: the repair service adds it once applied").isNull();
        List<Row> m = markers("lwt");
        assertThat(m).hasSize(1);
        assertThat(m.get(0).getInt("flags") & QueueLayout.FLAG_CAS).isNotZero();
        ResultSet again = s.execute("UPDATE " + KS + ".revisions SET value = 'd' WHERE key = 'lwt' AND tid = ? IF value = 'c'", t);
        assertThat(again.wasApplied()).isTrue();
    }

    @Test
    void should_queue_a_whole_partition_when_a_partition_is_deleted() {
        UUID t = tid();
        s.execute(insert.bind("gone", t, BigInteger.valueOf(41), "v"));
        s.execute("DELETE FROM " + KS + ".revisions WHERE key = 'gone'");
        List<Row> m = markers("gone");
        assertThat(m).hasSize(2);
        assertThat(m).anyMatch(r -> r.isNull("tid_min") && (r.getInt("flags") & QueueLayout.FLAG_DELETE) != 0);
    }
}
