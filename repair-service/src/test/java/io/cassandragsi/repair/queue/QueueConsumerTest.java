package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.cassandragsi.repair.store.ManualClock;
import io.cassandragsi.repair.store.MemoryCheckpoints;
import io.cassandragsi.repair.store.MemoryInstances;
import io.cassandragsi.repair.store.MemoryLeases;
import io.cassandragsi.repair.store.MemoryQueue;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two service instances sharing the queue's shards through the in-memory leases, instances and
 * checkpoints: the test runs their lease rounds and shard steps itself, on a clock it moves.
 */
class QueueConsumerTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final QueueLayout.Settings SETTINGS = QueueLayout.Settings.defaults();
    private static final Set<Integer> ALL = IntStream.range(0, SETTINGS.shards()).boxed().collect(Collectors.toSet());

    private final ManualClock clock = new ManualClock(T0);
    private final MemoryQueue queue = new MemoryQueue(clock, SETTINGS);
    private final MemoryCheckpoints checkpoints = new MemoryCheckpoints(clock);
    private final MemoryLeases leases = new MemoryLeases(clock);
    private final MemoryInstances instances = new MemoryInstances(clock);
    private final FakeRepairs repairs = new FakeRepairs();
    private final List<QueueConsumer> started = new ArrayList<>();

    /** Runs nothing: the test steps the workers itself. */
    private static final class Idle extends AbstractExecutorService {
        private boolean shutdown;

        @Override
        public void execute(Runnable command) {}

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    private QueueConsumer instance(String owner) {
        QueueConsumer c = new QueueConsumer(queue, checkpoints, leases, instances, null, new QueueMetrics(), metrics -> repairs, owner,
                Duration.ofMillis(100), DefaultConsistencyLevel.LOCAL_QUORUM, Duration.ofMillis(100), clock, new Idle(), new ScheduledThreadPoolExecutor(0));
        started.add(c);
        return c;
    }

    @AfterEach
    void closeAll() {
        started.forEach(QueueConsumer::close);
    }

    private void advance(Duration d) {
        clock.advance(d);
    }

    /** One poll of every shard the instance works. */
    private void poll(QueueConsumer c) {
        for (int shard : c.shards()) {
            c.worker(shard).step(clock.millis());
        }
    }

    @Test
    void should_poll_idle_shards_on_the_same_ticks_of_the_clock() {
        // workers that woke at different moments sleep until the same next multiple of the interval
        for (long now : new long[] {1_000_000, 1_000_001, 1_000_037, 1_000_099}) {
            assertThat(now + QueueConsumer.untilNextTick(now, 100)).as("woken at %d", now).isEqualTo(1_000_100);
        }
        assertThat(QueueConsumer.untilNextTick(1_000_100, 100)).as("on a tick: a whole interval, never 0").isEqualTo(100);
        assertThat(QueueConsumer.untilNextTick(-30, 100)).as("a clock before the epoch").isEqualTo(30);
    }

    @Test
    void should_split_the_shards_evenly_when_a_second_instance_joins() {
        QueueConsumer a = instance("a");
        QueueConsumer b = instance("b");
        a.balance();
        assertThat(a.shards()).isEqualTo(ALL);
        b.balance();
        assertThat(b.shards()).as("every lease is held").isEmpty();
        advance(QueueConsumer.LEASE_EVERY);
        a.balance(); // two live instances now: a gives back half
        b.balance();
        assertThat(a.shards()).hasSize(4);
        assertThat(b.shards()).hasSize(4).doesNotContainAnyElementsOf(a.shards());
        for (int shard : ALL) {
            assertThat(leases.owner(shard)).isEqualTo(a.shards().contains(shard) ? "a" : "b");
        }
    }

    @Test
    void should_keep_its_shards_while_it_renews_its_leases() {
        QueueConsumer a = instance("a");
        QueueConsumer b = instance("b");
        a.balance();
        for (int i = 0; i < 20; i++) { // 40 s, four times the lease TTL
            advance(QueueConsumer.LEASE_EVERY);
            a.balance();
        }
        b.balance();
        assertThat(b.shards()).isEmpty();
        assertThat(a.shards()).isEqualTo(ALL);
    }

    @Test
    void should_take_over_the_shards_of_an_instance_that_stopped_once_its_leases_expire() {
        QueueConsumer a = instance("a");
        QueueConsumer b = instance("b");
        a.balance();
        // a stops renewing (paused, or killed): its leases and heartbeat live out their TTL
        advance(Duration.ofSeconds(QueueConsumer.LEASE_TTL_SECONDS - 1));
        b.balance();
        assertThat(b.shards()).as("a's leases still live").isEmpty();
        advance(Duration.ofSeconds(1));
        b.balance();
        assertThat(b.shards()).isEqualTo(ALL);

        a.balance(); // a wakes up: its renewals fail, it stops its workers and finds nothing free
        assertThat(a.shards()).isEmpty();
        advance(QueueConsumer.LEASE_EVERY);
        b.balance();
        a.balance();
        assertThat(a.shards()).hasSize(4);
        assertThat(b.shards()).hasSize(4).doesNotContainAnyElementsOf(a.shards());
    }

    @Test
    void should_not_work_a_shard_again_while_the_worker_that_lost_it_is_still_in_a_step() throws Exception {
        QueueConsumer a = instance("a");
        a.balance();
        ShardWorker old = a.worker(0);
        java.util.concurrent.CountDownLatch inStep = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch endStep = new java.util.concurrent.CountDownLatch(1);
        Thread stepping = new Thread(() -> { // a step that outlives the lease (an overloaded node, a long pause)
            old.stepping.lock();
            try {
                inStep.countDown();
                endStep.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                old.stepping.unlock();
            }
        });
        stepping.start();
        inStep.await();
        advance(Duration.ofSeconds(QueueConsumer.LEASE_TTL_SECONDS)); // its renewals did not get through: the leases expired
        a.balance();
        assertThat(a.shards()).as("the shards whose workers are idle are taken again at once").hasSize(7).doesNotContain(0);
        assertThat(old.running).isFalse();
        endStep.countDown();
        stepping.join();
        advance(QueueConsumer.LEASE_EVERY);
        a.balance();
        assertThat(a.shards()).isEqualTo(ALL);
        assertThat(a.worker(0)).as("a new worker, resumed from the checkpoint").isNotSameAs(old);
    }

    @Test
    void should_give_its_shards_back_at_once_when_it_closes() {
        QueueConsumer a = instance("a");
        QueueConsumer b = instance("b");
        a.balance();
        a.close();
        b.balance();
        // released and gone from the instances, not left to expire: b takes every shard at its next round
        assertThat(b.shards()).isEqualTo(ALL);
    }

    @Test
    void should_resume_a_shard_from_the_previous_owners_checkpoint_when_taking_it_over() {
        QueueConsumer a = instance("a");
        int shard = 5;
        String row = Markers.keyIn(shard, SETTINGS.shards());
        Marker old = Markers.at(T0.plusSeconds(1), row);
        Marker recent = Markers.at(T0.plusSeconds(45), row); // after the checkpoint, before now less the grace period
        queue.add(old);
        queue.add(recent);
        a.balance();
        while (clock.instant().isBefore(T0.plusSeconds(70))) {
            advance(Duration.ofMillis(500));
            poll(a);
        }
        assertThat(repairs.attemptsOf(old.id())).isEqualTo(1);
        assertThat(repairs.attemptsOf(recent.id())).isEqualTo(1);
        a.close(); // checkpoints: the grace period and a sweep interval before its position (T0 + 40 s)
        assertThat(checkpoints.checkpoint(shard)).isEqualTo(T0.plusSeconds(40));

        QueueConsumer b = instance("b");
        Marker fresh = Markers.at(T0.plusSeconds(71), row);
        queue.add(fresh);
        b.balance();
        assertThat(b.shards()).contains(shard);
        while (clock.instant().isBefore(T0.plusSeconds(75))) {
            advance(Duration.ofMillis(500));
            poll(b);
        }
        assertThat(repairs.attemptsOf(fresh.id())).isEqualTo(1);
        assertThat(repairs.attemptsOf(recent.id())).as("after the checkpoint: read again (at least once)").isEqualTo(2);
        assertThat(repairs.attemptsOf(old.id())).as("before the checkpoint: not read again").isEqualTo(1);
    }

    @Test
    void should_report_the_age_of_the_oldest_unfinished_marker_as_lag() {
        QueueConsumer a = instance("a");
        int shard = 2;
        Marker m = Markers.at(T0.plusSeconds(1), Markers.keyIn(shard, SETTINGS.shards()));
        repairs.failures.put(m.id(), 1);
        queue.add(m);
        a.balance();
        advance(Duration.ofSeconds(2));
        poll(a);
        assertThat(a.lagMillis()).isEqualTo(1_000);
        assertThat(a.pending()).isEqualTo(1);
        advance(Duration.ofSeconds(1));
        poll(a);
        assertThat(a.lagMillis()).isZero();
        assertThat(new HashSet<>(repairs.counted)).containsExactly(m.id());
    }
}
