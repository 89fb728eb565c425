package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.service.RepairService;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.Indexing;
import io.cassandragsi.schema.Maintenance;
import io.cassandragsi.schema.TableDef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Reads at {@code as_of=safe} (docs/design.md section 7.10) while concurrent writers write at
 * QUORUM: every answer holds exactly the oracle's rows for the writes acknowledged before the
 * answer's {@code as_of} (zero tolerance, the seed printed; replay with -Dgsi.seed=N), in service
 * mode and in node mode; and the safe time never runs ahead of a shard another instance holds
 * or of an in-node maintainer that stopped.
 */
class SafeTimeIT {
    private static final int LENGTHS = SafeProbe.LENGTHS;

    @Test
    void should_answer_exactly_for_the_acknowledged_writes_in_service_mode() throws Exception {
        run(SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_safe_service"), Maintenance.SERVICE));
    }

    @Test
    void should_answer_exactly_for_the_acknowledged_writes_in_node_mode() throws Exception {
        run(SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_safe_node"), Maintenance.NODE));
    }

    @Test
    void should_answer_exactly_for_the_acknowledged_writes_in_eventual_indexing() throws Exception {
        run(SharedCluster.withIndexing(SharedCluster.example("revisions", "it_safe_eventual"), Indexing.EVENTUAL));
    }

    private void run(TableDef def) throws Exception {
        CqlSession session = SharedCluster.session();
        SharedCluster.apply(def);
        long seed = RepairServiceIT.seed();
        System.out.println("SafeTimeIT " + def.keyspace() + " seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        List<SafeProbe.Op> ops = Collections.synchronizedList(new ArrayList<>());
        List<SafeProbe.Answer> answers = new ArrayList<>();
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start();
                IndexReader reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 32,
                        service::safeTime)) {
            ExecutorService pool = Executors.newFixedThreadPool(4);
            List<Future<?>> writers = new ArrayList<>();
            awaitFresh(service, def);
            AtomicLong clock = new AtomicLong();
            for (int w = 0; w < 3; w++) {
                long threadSeed = seed * 31 + w;
                writers.add(pool.submit(() -> SafeProbe.write(session, def, new Random(threadSeed), 1_000, clock, ops, ConsistencyLevel.QUORUM, false)));
            }
            long deadline = System.currentTimeMillis() + 120_000;
            boolean anyKnown = false;
            for (int i = 0; writers.stream().anyMatch(f -> !f.isDone()) && System.currentTimeMillis() < deadline; i++) {
                SafeProbe.Answer a = read(reader, def, i % LENGTHS);
                if (a != null) {
                    answers.add(a);
                    anyKnown = true;
                }
                Thread.sleep(100);
            }
            for (Future<?> f : writers) {
                f.get();
            }
            pool.shutdown();
            long lastAck = ops.stream().mapToLong(SafeProbe.Op::ackMillis).max().orElse(0);
            for (int length = 0; length < LENGTHS; length++) { // after the writes: the safe time passes the last acknowledgement
                SafeProbe.Answer last = read(reader, def, length);
                while (last == null || last.asOf().toEpochMilli() <= lastAck) {
                    assertThat(System.currentTimeMillis()).as("the safe time passes the last write within 30 s").isLessThan(lastAck + 30_000);
                    Thread.sleep(200);
                    last = read(reader, def, length);
                }
                answers.add(last);
            }
            assertThat(anyKnown).as("the safe time became known while the writers wrote").isTrue();
            System.out.println("status safe_time: " + service.status().get("safe_time"));
        }
        judge(def, seed, ops, answers);
    }

    /** Waits until the service knows a safe time less than 2 s old (it has read every shard since it started). */
    private static void awaitFresh(RepairService service, TableDef def) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try {
                if (service.safeTime(def).isAfter(Instant.now().minusSeconds(2))) {
                    return;
                }
            } catch (io.cassandragsi.repair.read.ReadException e) {
                // not known yet
            }
            assertThat(System.currentTimeMillis()).as("a safe time less than 2 s old within 30 s: %s", service.status().get("safe_time"))
                    .isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    /**
     * A shard held by another instance that stopped working it (its lease still alive, its recorded
     * progress old): the safe time waits at that progress, and moves on once this instance takes the
     * shard over.
     */
    @Test
    void should_not_run_ahead_of_a_shard_another_instance_holds() throws Exception {
        CqlSession session = SharedCluster.session();
        TableDef def = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_safe_held"), Maintenance.SERVICE);
        SharedCluster.apply(def);
        Instant stale = Instant.ofEpochMilli(System.currentTimeMillis() - 20_000);
        session.execute(SimpleStatement.newInstance("INSERT INTO gsi.leases (shard, owner) VALUES (0, 'ghost') USING TTL 12"));
        session.execute(SimpleStatement.newInstance("UPDATE gsi.checkpoints SET done_before = ?, updated_by = 'ghost' WHERE shard = 0", stale));
        long held = System.currentTimeMillis() + 12_000;
        System.out.println("shard 0 held by a ghost until " + Instant.ofEpochMilli(held));
        try (RepairService service = new RepairService(session, GsiConfig.defaults()).start()) {
            long deadline = System.currentTimeMillis() + 20_000; // an instance closed a moment ago counts as live for 10 s
            while (service.consumer().shards().size() < 7 && System.currentTimeMillis() < deadline) {
                Thread.sleep(200);
            }
            Thread.sleep(2_500); // a step of every shard, and a lease round since
            assertThat(service.consumer().shards()).as("every shard but the ghost's").hasSize(7).doesNotContain(0);
            Instant at = service.safeTime(def);
            Map<?, ?> status = (Map<?, ?>) ((Map<?, ?>) service.status().get("safe_time")).get("service");
            System.out.println("held by a ghost: " + status);
            assertThat(at).as("held at the ghost's progress, less the skew").isEqualTo(stale.minusMillis(100));
            assertThat(String.valueOf(status.get("held_by"))).isEqualTo("shard 0 (worked by ghost)");
            while (System.currentTimeMillis() < held + 10_000 && !service.safeTime(def).isAfter(Instant.now().minusSeconds(5))) {
                Thread.sleep(500);
            }
            assertThat(service.safeTime(def)).as("once the lease expired and this instance took the shard").isAfter(Instant.now().minusSeconds(5));
        }
    }

    /**
     * An in-node maintainer that stopped (here: a progress record that stops being renewed, with
     * work unfinished): tables in node mode wait at where it stopped until the service has swept
     * its work; tables in service mode do not wait for it.
     */
    @Test
    void should_not_run_ahead_of_a_maintainer_that_stopped() throws Exception {
        CqlSession session = SharedCluster.session();
        TableDef node = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_safe_stopped"), Maintenance.NODE);
        SharedCluster.apply(node);
        TableDef service = SharedCluster.withMaintenance(SharedCluster.example("revisions", "it_safe_held"), Maintenance.SERVICE);
        int shard = io.cassandragsi.schema.NodeProgressLayout.FIRST_EPOCH_SHARD + 999_000 + new Random().nextInt(1_000);
        Instant doneBefore = Instant.now().minusSeconds(3);
        Instant stopped;
        try (RepairService repair = new RepairService(session, GsiConfig.defaults()).start()) {
            long until = System.currentTimeMillis() + 4_000;
            while (System.currentTimeMillis() < until) { // a maintainer that heartbeats, its oldest write unfinished
                session.execute(SimpleStatement.newInstance("INSERT INTO gsi.node_progress (shard, node, started, heartbeat, done_before, state,"
                        + " queued, done, handed_off, retried) VALUES (?, 'stopped-node', ?, ?, ?, 'running', 1, 0, 0, 0)", shard,
                        doneBefore.minusSeconds(60), Instant.now(), Tids.minAtTicks(Tids.ticks(doneBefore))));
                Thread.sleep(500);
            }
            stopped = Instant.now();
            Thread.sleep(4_000); // silent, not yet taken for stopped (10 s)
            assertThat(repair.safeTime(node)).as("node mode waits for the maintainer").isBeforeOrEqualTo(doneBefore.minusMillis(100));
            assertThat(repair.safeTime(service)).as("service mode does not").isAfter(doneBefore.plusSeconds(3));
            System.out.println("waiting for a stopped maintainer: " + ((Map<?, ?>) repair.status().get("safe_time")).get("node"));
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline && !repair.safeTime(node).isAfter(stopped)) {
                Thread.sleep(500);
            }
            assertThat(repair.safeTime(node)).as("once its sweep has read its shard, within the sweep").isAfter(stopped);
        }
        UUID swept = session.execute(SimpleStatement.newInstance("SELECT swept_to FROM gsi.node_progress WHERE shard = ?", shard)).one().getUuid(0);
        session.execute(SimpleStatement.newInstance("DELETE FROM gsi.node_progress WHERE shard = ?", shard)); // a maintainer that never was
        assertThat(swept == null || Tids.instant(swept).isBefore(stopped.plusSeconds(59)))
                .as("a sweep the service's close interrupted is not recorded as done (swept_to %s)", swept).isTrue();
    }

    /** One read at as_of=safe of rows of length {@code length}, every page; null while the safe time is not known yet (503). */
    private static SafeProbe.Answer read(IndexReader reader, TableDef def, int length) {
        return SafeProbe.read((l, next) -> {
            try {
                IndexReader.Page page = reader.read(new IndexReader.Query(def.keyspace(), "revisions", "by_length", List.of(String.valueOf(l)),
                        null, null, null, null, 10, next, false, "safe"));
                Map<String, UUID> items = new java.util.LinkedHashMap<>();
                page.items().forEach(i -> assertThat(items.put((String) i.get("key"), UUID.fromString(String.valueOf(i.get("tid"))))).as("a row once")
                        .isNull());
                return new SafeProbe.Page(items, page.next(), page.asOf());
            } catch (io.cassandragsi.repair.read.ReadException e) {
                if (String.valueOf(e.getMessage()).contains("not known yet")) {
                    return null;
                }
                throw e;
            }
        }, length);
    }

    /** Judges every answer against the oracle of the writes acknowledged before its as_of ({@link SafeProbe#judge}). */
    private static void judge(TableDef def, long seed, List<SafeProbe.Op> ops, List<SafeProbe.Answer> answers) {
        SafeProbe.Verdict v = SafeProbe.judge(def, ops, answers);
        System.out.printf("SafeTimeIT %s seed %d: %d answers, %d rows judged, %d left out (a write in flight), mean lag at answer %d ms,"
                + " %d wrong%n", def.keyspace(), seed, v.answers(), v.judged(), v.leftOut(), v.meanLagMillis(), v.wrong().size());
        System.out.println("(lag at answer: from the answer's as_of to the end of its read, every page and base check included)");
        assertThat(v.wrong()).as("seed %d: rows an as_of=safe answer got wrong", seed).isEmpty();
        assertThat(v.judged()).as("rows judged (most are left out while writes go on: about 90 a run here)").isGreaterThan(20);
    }
}
