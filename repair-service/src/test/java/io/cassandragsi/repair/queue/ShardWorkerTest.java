package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.cassandragsi.repair.store.ManualClock;
import io.cassandragsi.repair.store.MemoryCheckpoints;
import io.cassandragsi.repair.store.MemoryQueue;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** One shard's consumption against the in-memory queue and checkpoints, on a clock the test moves. */
class ShardWorkerTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final QueueLayout.Settings ONE_SHARD = new QueueLayout.Settings(1, 10, 7 * 24 * 3600);

    private final ManualClock clock = new ManualClock(T0);
    private final MemoryQueue queue = new MemoryQueue(clock, ONE_SHARD);
    private final MemoryCheckpoints checkpoints = new MemoryCheckpoints(clock);
    private final FakeRepairs repairs = new FakeRepairs();
    private final QueueMetrics metrics = new QueueMetrics();

    private ShardWorker worker(FakeRepairs with) {
        ShardWorker w = new ShardWorker(0, queue, checkpoints, with, metrics, "a", DefaultConsistencyLevel.LOCAL_QUORUM);
        Instant from = checkpoints.checkpoint(0);
        w.resumeFrom(from != null ? from : T0);
        return w;
    }

    private Marker add(Duration after) {
        Marker m = Markers.at(T0.plus(after), "row");
        queue.add(m);
        return m;
    }

    /** Steps every {@code every} until {@code until} (after T0), the clock moving with it. */
    private void run(ShardWorker w, Duration until, Duration every) {
        while (clock.instant().isBefore(T0.plus(until))) {
            clock.advance(every);
            w.step(clock.millis());
        }
    }

    @Test
    void should_never_repair_one_partition_twice_in_one_call() {
        ShardWorker w = worker(repairs);
        Marker rowA = Markers.at(T0.plusSeconds(1), "p");
        Marker rowB = new Marker(Markers.at(T0.plusSeconds(1), "p").id(), "ks", "t", rowA.pk(), java.nio.ByteBuffer.wrap(new byte[] {1}),
                rowA.tidMin(), rowA.tidMax(), QueueLayout.FLAG_CAS); // another row of the partition: its own group
        Marker other = Markers.at(T0.plusSeconds(1), "q");
        queue.add(rowA);
        queue.add(rowB);
        queue.add(other);
        run(w, Duration.ofSeconds(3), Duration.ofMillis(100));
        assertThat(repairs.attempts).contains(rowA.id(), rowB.id(), other.id());
        for (java.util.List<java.nio.ByteBuffer> call : repairs.calls) {
            assertThat(call).as("one group per partition in a call (design.md 7.3)").doesNotHaveDuplicates();
        }
        // writes of the row in successive polls whose repairs fail: several pending groups of "p" fall due together
        java.util.List<Marker> failing = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Marker m = Markers.at(clock.instant().plusMillis(150L * i), "p");
            repairs.failures.put(m.id(), 3);
            queue.add(m);
            failing.add(m);
        }
        run(w, Duration.ofSeconds(30), Duration.ofMillis(100));
        for (Marker m : failing) {
            assertThat(repairs.attemptsOf(m.id())).as("failed three times, then done").isEqualTo(4);
        }
        for (java.util.List<java.nio.ByteBuffer> call : repairs.calls) {
            assertThat(call).as("one group per partition in a call (design.md 7.3)").doesNotHaveDuplicates();
        }
    }

    @Test
    void should_process_each_marker_once_when_the_fast_path_and_the_sweeps_all_see_it() {
        ShardWorker w = worker(repairs);
        Marker m1 = add(Duration.ofSeconds(1));
        Marker m2 = add(Duration.ofMillis(12_500)); // the next bucket
        run(w, Duration.ofSeconds(45), Duration.ofMillis(250));
        assertThat(repairs.attempts).containsExactly(m1.id(), m2.id());
        assertThat(repairs.counted).containsExactlyInAnyOrder(m1.id(), m2.id());
        assertThat(metrics.lateMarkers.sum()).isZero();
    }

    @Test
    void should_leave_a_marker_to_the_next_step_when_it_is_younger_than_the_settle_time() {
        ShardWorker w = worker(repairs);
        Marker m = add(Duration.ofSeconds(1));
        clock.advance(Duration.ofMillis(1_030));
        w.step(clock.millis());
        assertThat(repairs.attempts).as("30 ms old: concurrent batches may still land before it").isEmpty();
        clock.advance(Duration.ofMillis(30));
        w.step(clock.millis());
        assertThat(repairs.attempts).containsExactly(m.id());
    }

    @Test
    void should_pick_up_a_marker_in_the_short_sweep_when_it_became_visible_after_later_ones() {
        ShardWorker w = worker(repairs);
        Marker later = add(Duration.ofSeconds(2));
        clock.advance(Duration.ofMillis(2_100));
        w.step(clock.millis());
        assertThat(repairs.attempts).containsExactly(later.id());
        Marker late = add(Duration.ofMillis(1_500)); // its id is older than the fast path's position
        clock.advance(Duration.ofMillis(500));
        w.step(clock.millis());
        assertThat(repairs.attempts).as("behind the fast path, not swept yet").containsExactly(later.id());
        clock.advance(Duration.ofMillis(600));
        w.step(clock.millis());
        assertThat(repairs.attempts).containsExactly(later.id(), late.id());
        assertThat(metrics.lateMarkers.sum()).isEqualTo(1);
        run(w, Duration.ofSeconds(45), Duration.ofMillis(500));
        assertThat(repairs.attempts).as("and once only").containsExactly(later.id(), late.id());
    }

    @Test
    void should_find_a_marker_in_the_late_sweep_when_it_became_visible_minutes_after_its_id() {
        ShardWorker w = worker(repairs);
        Marker early = add(Duration.ofSeconds(15));
        run(w, Duration.ofMinutes(3), Duration.ofMillis(500));
        assertThat(repairs.attempts).containsExactly(early.id());
        Marker late = add(Duration.ofSeconds(16)); // a batchlog replay, 3 minutes on: far behind every regular sweep
        run(w, Duration.ofMinutes(9), Duration.ofMillis(500));
        assertThat(repairs.attempts).as("its bucket read again, the early marker with it (idempotent)").contains(late.id());
        assertThat(metrics.lateMarkers.sum()).isEqualTo(1);
        run(w, Duration.ofMinutes(20), Duration.ofMillis(1000));
        assertThat(repairs.attempts.stream().filter(late.id()::equals)).as("once").hasSize(1);
    }

    @Test
    void should_retry_a_failed_group_after_its_backoff_and_not_before() {
        ShardWorker w = worker(repairs);
        Marker m = add(Duration.ofSeconds(1));
        repairs.failures.put(m.id(), 1);
        clock.advance(Duration.ofMillis(1_100));
        w.step(clock.millis());
        assertThat(w.pendingCount()).isEqualTo(1);
        clock.advance(Duration.ofMillis(100));
        w.step(clock.millis());
        assertThat(repairs.attemptsOf(m.id())).as("within the 200 ms backoff").isEqualTo(1);
        clock.advance(Duration.ofMillis(150));
        w.step(clock.millis());
        assertThat(repairs.attemptsOf(m.id())).isEqualTo(2);
        assertThat(w.pendingCount()).isZero();
        run(w, Duration.ofSeconds(45), Duration.ofMillis(500));
        assertThat(repairs.attemptsOf(m.id())).as("the sweeps leave a finished marker alone").isEqualTo(2);
        assertThat(metrics.markersDone.sum()).isEqualTo(1);
    }

    @Test
    void should_report_done_before_an_unfinished_marker_and_up_to_the_settle_time_once_it_is_done() {
        ShardWorker w = worker(repairs);
        assertThat(w.doneBefore).as("no poll yet: unknown").isEqualTo(SafeTime.UNKNOWN);
        Marker m = add(Duration.ofSeconds(1));
        repairs.failures.put(m.id(), 1);
        clock.advance(Duration.ofMillis(1_100));
        w.step(clock.millis());
        assertThat(w.doneBefore).as("held at the failed marker").isEqualTo(T0.plusSeconds(1).toEpochMilli());
        clock.advance(Duration.ofMillis(300));
        w.step(clock.millis());
        assertThat(w.doneBefore).as("retried and done: every marker visible up to the settle time").isEqualTo(clock.millis() - 50);
        clock.advance(Duration.ofMillis(1_900));
        w.step(clock.millis());
        assertThat(checkpoints.done()).as("published with the checkpoint").containsEntry(0, Instant.ofEpochMilli(clock.millis() - 50));
    }

    @Test
    void should_stop_holding_the_safe_time_once_an_attempt_came_after_any_acknowledgement_of_its_write() {
        ShardWorker w = worker(repairs);
        Marker m = add(Duration.ofSeconds(1));
        repairs.invisible.add(m.id()); // not visible: retried with backoff
        run(w, Duration.ofSeconds(5), Duration.ofMillis(100));
        assertThat(w.pendingCount()).isEqualTo(1);
        assertThat(w.doneBefore).as("an attempt may have come before the write was acknowledged").isEqualTo(T0.plusSeconds(1).toEpochMilli());
        run(w, Duration.ofSeconds(15), Duration.ofMillis(100));
        assertThat(w.pendingCount()).as("still retried").isEqualTo(1);
        assertThat(w.doneBefore).as("an attempt came 10 s after its id: a write acknowledged at all was seen")
                .isGreaterThan(T0.plusSeconds(14).toEpochMilli());
    }

    @Test
    void should_report_done_only_up_to_where_it_read_while_it_has_a_backlog() {
        ShardWorker w = worker(repairs);
        for (int i = 0; i < 4 * 5000 + 10; i++) {
            add(Duration.ofMillis(1_000 + i / 10));
        }
        clock.advance(Duration.ofSeconds(5));
        assertThat(w.step(clock.millis())).as("a backlog").isTrue();
        assertThat(w.doneBefore).isLessThan(T0.plusMillis(1_000 + 2_001).toEpochMilli()).isGreaterThan(T0.plusMillis(1_000 + 1_990).toEpochMilli());
        w.step(clock.millis());
        assertThat(w.doneBefore).isEqualTo(clock.millis() - 50);
    }

    @Test
    void should_recompute_a_row_once_more_a_second_later_taking_what_it_did_not_see_for_gone() {
        ShardWorker w = worker(repairs);
        Marker m = Markers.recompute(T0.plus(Duration.ofSeconds(1)), "row");
        queue.add(m);
        Marker failing = Markers.recompute(T0.plus(Duration.ofSeconds(1)), "other");
        queue.add(failing);
        repairs.failures.put(failing.id(), 1);
        run(w, Duration.ofMillis(1_500), Duration.ofMillis(250));
        assertThat(repairs.recomputed).as("first passes (the failed one again after its backoff)").containsOnly(m.id(), failing.id());
        assertThat(repairs.unseenGone).as("an entry may name a version whose batch is still landing").isEmpty();
        run(w, Duration.ofSeconds(45), Duration.ofMillis(250));
        assertThat(repairs.unseenGone).as("a second later, each once, a failed first pass too").containsExactlyInAnyOrder(m.id(), failing.id());
        assertThat(repairs.attemptsOf(m.id())).isEqualTo(2);
        assertThat(repairs.attemptsOf(failing.id())).isEqualTo(3);
        assertThat(w.pendingCount()).isZero();
    }

    @Test
    void should_recompute_the_row_when_a_diff_marker_s_version_stays_invisible() {
        ShardWorker w = worker(repairs);
        Marker m = add(Duration.ofSeconds(1));
        repairs.invisible.add(m.id());
        run(w, Duration.ofSeconds(1).plus(io.cassandragsi.maintain.NextStep.INVISIBLE_FOR).minusSeconds(1), Duration.ofMillis(250));
        assertThat(repairs.recomputed).as("retried as a diff while the version may be in flight").isEmpty();
        assertThat(w.pendingCount()).isEqualTo(1);
        run(w, Duration.ofSeconds(1).plus(io.cassandragsi.maintain.NextStep.INVISIBLE_FOR).plusSeconds(31), Duration.ofMillis(250));
        assertThat(repairs.recomputed).as("then taken for deleted: its row is recomputed, once").containsExactly(m.id());
        assertThat(repairs.unseenGone).as("its version, and any other the base does not show, gone").containsExactly(m.id());
        assertThat(w.pendingCount()).isZero();
        assertThat(metrics.gaveUp.sum()).isZero();
        assertThat(metrics.markersDone.sum()).isEqualTo(1);
    }

    @Test
    void should_hold_the_checkpoint_behind_an_unfinished_marker_and_resume_there_after_a_restart() {
        ShardWorker first = worker(repairs);
        Marker stuck = add(Duration.ofSeconds(40));
        Marker done = add(Duration.ofSeconds(41));
        repairs.failures.put(stuck.id(), Integer.MAX_VALUE);
        run(first, Duration.ofSeconds(90), Duration.ofMillis(500));
        assertThat(repairs.counted).containsExactly(done.id());
        // the grace period and a sweep interval before the oldest unfinished marker
        assertThat(checkpoints.checkpoint(0)).isEqualTo(T0.plusSeconds(40 - 30));

        FakeRepairs afterRestart = new FakeRepairs();
        ShardWorker second = worker(afterRestart); // a new process: nothing in memory but the checkpoint
        Marker fresh = add(Duration.ofSeconds(91));
        run(second, Duration.ofSeconds(95), Duration.ofMillis(500));
        assertThat(afterRestart.counted).containsExactlyInAnyOrder(stuck.id(), done.id(), fresh.id());
        run(second, Duration.ofSeconds(200), Duration.ofMillis(500));
        assertThat(checkpoints.checkpoint(0)).as("advances once nothing is unfinished").isAfter(T0.plusSeconds(91 + 30 - 40));
    }
}
