package io.cassandragsi.repair.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The in-memory twins follow Cassandra where the consumer depends on it: ties, TTLs, lightweight transactions. */
class MemoryTwinsTest {
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private final ManualClock clock = new ManualClock(T0);

    @Test
    void should_keep_the_greater_value_of_each_cell_when_two_checkpoint_writes_tie_on_timestamp() {
        MemoryCheckpoints checkpoints = new MemoryCheckpoints(clock);
        checkpoints.checkpoint(3, T0.plusSeconds(20), "a", 1_000);
        checkpoints.checkpoint(3, T0.plusSeconds(10), "b", 1_000);
        // per cell: the later instant (the greater bytes) from a's write, the greater owner from b's
        assertThat(checkpoints.checkpoint(3)).isEqualTo(T0.plusSeconds(20));
        assertThat(checkpoints.updatedBy(3)).isEqualTo("b");
    }

    @Test
    void should_keep_the_later_write_whatever_its_value_when_timestamps_differ() {
        MemoryCheckpoints checkpoints = new MemoryCheckpoints(clock);
        checkpoints.checkpoint(3, T0.plusSeconds(20), "b", 1_000);
        checkpoints.checkpoint(3, T0.plusSeconds(10), "a", 1_001);
        assertThat(checkpoints.checkpoint(3)).isEqualTo(T0.plusSeconds(10));
        assertThat(checkpoints.updatedBy(3)).isEqualTo("a");
        checkpoints.checkpoint(3, T0.plusSeconds(30), "c", 999);
        assertThat(checkpoints.checkpoint(3)).as("an older write loses").isEqualTo(T0.plusSeconds(10));
    }

    @Test
    void should_let_a_tombstone_win_when_it_ties_with_a_value() {
        MemoryTable table = new MemoryTable(clock);
        table.write("k", false, Map.of("c", MemoryTable.text("v")), 0, 5);
        table.write("k", false, Collections.singletonMap("c", null), 0, 5);
        assertThat(table.read("k", "c")).isNull();
        table.write("k", false, Map.of("c", MemoryTable.text("w")), 0, 5);
        assertThat(table.read("k", "c")).as("a value written at the tombstone's timestamp stays shadowed").isNull();
        table.write("k", false, Map.of("c", MemoryTable.text("w")), 0, 6);
        assertThat(MemoryTable.text(table.read("k", "c"))).isEqualTo("w");
    }

    @Test
    void should_let_an_expiring_cell_win_whatever_the_values_when_it_ties_with_a_live_one() {
        MemoryTable table = new MemoryTable(clock);
        table.write("k", false, Map.of("c", MemoryTable.text("z")), 0, 5);
        table.write("k", false, Map.of("c", MemoryTable.text("a")), 10, 5);
        assertThat(MemoryTable.text(table.read("k", "c"))).as("Cassandra 5.0: an expiring cell beats a live one of its timestamp").isEqualTo("a");
        clock.advance(Duration.ofSeconds(10));
        assertThat(table.read("k", "c")).as("expired, and the value it beat does not come back").isNull();
    }

    @Test
    void should_expire_at_whole_seconds_of_the_write_when_written_mid_second() {
        clock.advance(Duration.ofMillis(500));
        MemoryLeases leases = new MemoryLeases(clock);
        assertThat(leases.acquire(1, "a", 10)).isTrue();
        clock.advance(Duration.ofMillis(9_499)); // T0 + 9.999 s
        assertThat(leases.owner(1)).isEqualTo("a");
        clock.advance(Duration.ofMillis(1)); // T0 + 10 s: Cassandra counts the TTL from the write's whole second
        assertThat(leases.owner(1)).isNull();
    }

    @Test
    void should_shadow_cells_at_or_below_a_row_delete() {
        MemoryTable table = new MemoryTable(clock);
        table.write("k", true, Map.of("c", MemoryTable.text("v")), 0, 5);
        table.deleteRow("k", 5);
        assertThat(table.exists("k")).isFalse();
        table.write("k", false, Map.of("c", MemoryTable.text("v")), 0, 6);
        assertThat(table.exists("k")).isTrue();
    }

    @Test
    void should_expire_a_lease_when_its_ttl_runs_out_and_let_another_instance_take_it() {
        MemoryLeases leases = new MemoryLeases(clock);
        assertThat(leases.acquire(1, "a", 10)).isTrue();
        assertThat(leases.acquire(1, "b", 10)).as("IF NOT EXISTS while a holds it").isFalse();
        clock.advance(Duration.ofMillis(9_999));
        assertThat(leases.acquire(1, "b", 10)).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(leases.owner(1)).isNull();
        assertThat(leases.acquire(1, "b", 10)).isTrue();
        assertThat(leases.renew(1, "a", 10)).as("a lost it").isFalse();
    }

    @Test
    void should_keep_a_renewed_lease_past_its_first_ttl_when_the_owner_renews() {
        MemoryLeases leases = new MemoryLeases(clock);
        assertThat(leases.acquire(1, "a", 10)).isTrue();
        clock.advance(Duration.ofSeconds(8));
        assertThat(leases.renew(1, "a", 10)).isTrue();
        clock.advance(Duration.ofSeconds(8)); // the INSERT's row marker has expired; the renewed owner cell lives
        assertThat(leases.owner(1)).isEqualTo("a");
        assertThat(leases.acquire(1, "b", 10)).isFalse();
    }

    @Test
    void should_release_a_lease_only_for_its_owner() {
        MemoryLeases leases = new MemoryLeases(clock);
        assertThat(leases.acquire(1, "a", 10)).isTrue();
        leases.release(1, "b");
        assertThat(leases.owner(1)).isEqualTo("a");
        leases.release(1, "a");
        assertThat(leases.acquire(1, "b", 10)).as("free at once, in the same microsecond").isTrue();
        assertThat(leases.owner(1)).isEqualTo("b");
    }

    @Test
    void should_count_an_instance_until_its_heartbeat_expires() {
        MemoryInstances instances = new MemoryInstances(clock);
        instances.heartbeat("a", T0, 10);
        instances.heartbeat("b", T0, 10);
        assertThat(instances.liveInstances()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(5));
        instances.heartbeat("a", T0, 10);
        clock.advance(Duration.ofSeconds(5));
        assertThat(instances.liveInstances()).isEqualTo(1);
        clock.advance(Duration.ofSeconds(5));
        assertThat(instances.liveInstances()).as("never below the caller").isEqualTo(1);
    }
}
