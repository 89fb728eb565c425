package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Fresh reads (read-your-writes, docs/design.md section 8.7) while concurrent writers write at
 * LOCAL_QUORUM: each writer, right after a write is acknowledged, reads the value it wrote with
 * {@code fresh=true}; the row is always there with the version just written (each writer owns its
 * rows, so that is the row's latest acknowledged version), and every answer holds exactly the
 * oracle's rows for the writes acknowledged before its {@code as_of} ({@link SafeProbe#judge}).
 * Zero tolerance; the seed is printed (replay with -Dgsi.seed=N).
 */
class FreshReadIT {
    private static final int WRITERS = 3;
    private static final int WRITES = 20;

    @Test
    void should_see_every_acknowledged_write_in_service_mode() throws Exception {
        run(SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_fresh_service"), Maintenance.SERVICE));
    }

    @Test
    void should_see_every_acknowledged_write_in_node_mode() throws Exception {
        run(SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_fresh_node"), Maintenance.NODE));
    }

    @Test
    void should_refuse_a_wait_it_cannot_keep_with_503_naming_what_holds_the_safe_time() throws Exception {
        CqlSession session = SharedCluster.session();
        TableDef def = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_fresh_refused"), Maintenance.SERVICE);
        SharedCluster.apply(def);
        // a safe time that stays 5 s behind: no fresh read can be answered within its 300 ms
        IndexReader.SafeTimes behind = new IndexReader.SafeTimes() {
            @Override
            public Instant of(TableDef table) {
                return Instant.now().minusSeconds(5);
            }

            @Override
            public String heldBy(TableDef table) {
                return "shard 3 (worked here)";
            }
        };
        try (IndexReader reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 32, behind,
                Duration.ofMillis(300))) {
            long start = System.nanoTime();
            ReadException e = org.junit.jupiter.api.Assertions.assertThrows(ReadException.class,
                    () -> reader.read(IndexReader.Query.of(def.keyspace(), "revisions", "by_length", "1").fresh()));
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            System.out.println("refused after " + tookMillis + " ms: " + e.error() + ": " + e.detail() + " (retry after " + e.retryAfterSeconds() + " s)");
            assertThat(e.kind()).isEqualTo(ReadException.Kind.NOT_READY);
            assertThat(e.error()).isEqualTo("fresh_timeout");
            assertThat(e.detail()).contains("shard 3 (worked here)").contains("ms behind");
            assertThat(e.retryAfterSeconds()).isBetween(5L, 6L);
            assertThat(tookMillis).as("it waited its bound, not the default 2 s").isLessThan(1_500);
            ReadException lower = org.junit.jupiter.api.Assertions.assertThrows(ReadException.class,
                    () -> reader.read(IndexReader.Query.of(def.keyspace(), "revisions", "by_length", "1").fresh().withMaxWait(Duration.ZERO)));
            assertThat(lower.detail()).as("max_wait lowers the bound").contains("after 0 ms of waiting");
            assertThat(reader.freshReads.sum()).isEqualTo(2);
            assertThat(reader.freshTimeouts.sum()).as("gsi_reads_fresh_timeouts").isEqualTo(2);
        }
    }

    private void run(TableDef def) throws Exception {
        CqlSession session = SharedCluster.session();
        SharedCluster.apply(def);
        long seed = RepairServiceIT.seed();
        System.out.println("FreshReadIT " + def.keyspace() + " seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        List<SafeProbe.Op> ops = Collections.synchronizedList(new ArrayList<>());
        List<SafeProbe.Answer> answers = Collections.synchronizedList(new ArrayList<>());
        List<Long> waits = Collections.synchronizedList(new ArrayList<>());
        List<String> missed = Collections.synchronizedList(new ArrayList<>());
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start();
                IndexReader reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 32,
                        service::safeTime, Duration.ofSeconds(10))) {
            PreparedStatement insert = session.prepare("INSERT INTO " + def.keyspace() + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
            ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
            List<Future<?>> writers = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                int writer = w;
                Random rnd = new Random(seed * 31 + w);
                writers.add(pool.submit(() -> {
                    for (int i = 0; i < WRITES; i++) {
                        String key = "w" + writer + "-k" + rnd.nextInt(10);
                        int length = rnd.nextInt(SafeProbe.LENGTHS);
                        UUID tid = Tids.fromTicks(Tids.ticks(Instant.now()), rnd.nextLong());
                        long start = System.currentTimeMillis();
                        session.execute(insert.bind(key, tid, BigInteger.valueOf(length), "v" + i).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
                        ops.add(new SafeProbe.Op(key, tid, length, false, start, System.currentTimeMillis()));
                        long asked = System.nanoTime();
                        SafeProbe.Answer a = SafeProbe.read((l, next) -> page(reader, def, l, next), length);
                        waits.add((System.nanoTime() - asked) / 1_000_000);
                        answers.add(a);
                        if (!tid.equals(a.rows().get(key))) {
                            missed.add("seed " + seed + ": " + key + " written at " + tid + " (length " + length + "), a fresh read as of "
                                    + a.asOf() + " answered " + a.rows().get(key));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : writers) {
                f.get();
            }
            pool.shutdown();
            assertThat(reader.freshReads.sum()).as("first pages of fresh reads").isGreaterThanOrEqualTo(WRITERS * WRITES);
            assertThat(reader.freshTimeouts.sum()).as("fresh reads that waited past 10 s").isZero();
        }
        List<Long> sorted = new ArrayList<>(waits);
        Collections.sort(sorted);
        SafeProbe.Verdict v = SafeProbe.judge(def, ops, answers);
        System.out.printf("FreshReadIT %s seed %d: %d fresh reads, p50 %d ms, p99 %d ms; %d rows judged, %d left out (a write in flight),"
                + " %d wrong, %d own writes missed%n", def.keyspace(), seed, sorted.size(), sorted.get(sorted.size() / 2),
                sorted.get(sorted.size() * 99 / 100), v.judged(), v.leftOut(), v.wrong().size(), missed.size());
        assertThat(missed).as("seed %d: own writes a fresh read did not return", seed).isEmpty();
        assertThat(v.wrong()).as("seed %d: rows a fresh answer got wrong", seed).isEmpty();
        assertThat(v.judged()).as("rows judged").isGreaterThan(WRITERS * WRITES);
    }

    private static SafeProbe.Page page(IndexReader reader, TableDef def, int length, String next) {
        IndexReader.Page page = reader.read(IndexReader.Query.of(def.keyspace(), "revisions", "by_length", String.valueOf(length)).withLimit(10)
                .withNext(next).fresh());
        Map<String, UUID> items = new LinkedHashMap<>();
        page.items().forEach(i -> assertThat(items.put((String) i.get("key"), UUID.fromString(String.valueOf(i.get("tid"))))).as("a row once").isNull());
        return new SafeProbe.Page(items, page.next(), page.asOf());
    }
}
