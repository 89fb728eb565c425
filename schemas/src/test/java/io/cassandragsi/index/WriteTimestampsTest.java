package io.cassandragsi.index;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class WriteTimestampsTest {

    @Test
    void should_count_100ns_ticks_since_the_unix_epoch() {
        // 2026-01-01T00:00:00Z as a version-1 UUID made by hand
        long ticks = Tids.ticks(Instant.parse("2026-01-01T00:00:00Z"));
        UUID tid = Tids.fromTicks(ticks, 42);
        assertThat(WriteTimestamps.of(tid)).isEqualTo(ticks).isEqualTo(17_672_256_000_000_000L);
        assertThat(WriteTimestamps.ofSerialized(Tids.bytes(tid))).isEqualTo(ticks);
        assertThat(WriteTimestamps.toEpochMillis(ticks)).isEqualTo(Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
        assertThat(Tids.instant(tid)).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void should_increase_strictly_when_tids_are_100ns_apart() {
        UUID a = Tids.fromTicks(1_000_000, 7);
        UUID b = Tids.fromTicks(1_000_001, 3);
        assertThat(WriteTimestamps.of(b)).isEqualTo(WriteTimestamps.of(a) + 1);
        assertThat(Tids.compare(a, b)).isNegative();
    }

    @Test
    void should_order_same_tick_tids_by_signed_bytes_as_cassandra_does() {
        UUID low = Tids.fromTicks(5, 0x0000000000000001L);
        UUID high = Tids.fromTicks(5, 0x0000000000000002L);
        assertThat(Tids.compare(low, high)).isNegative();
        assertThat(Tids.compare(Tids.minAtTicks(5), low)).isNegative();
        assertThat(Tids.compare(Tids.maxAtTicks(5), high)).isPositive();
        assertThat(Tids.compare(Tids.maxAtTicks(4), Tids.minAtTicks(5))).isNegative();
    }

    @Test
    void should_reject_uuids_that_are_not_time_based() {
        assertThatThrownBy(() -> WriteTimestamps.of(UUID.randomUUID())).hasMessageContaining("not a timeuuid");
        assertThatThrownBy(() -> WriteTimestamps.ofSerialized(ByteBuffer.allocate(3))).hasMessageContaining("16 bytes");
    }

    @Test
    void should_round_trip_composites() {
        List<ByteBuffer> values = List.of(ByteBuffer.wrap(new byte[] {1, 2}), ByteBuffer.allocate(0), ByteBuffer.wrap(new byte[] {9}));
        assertThat(Composite.decode(Composite.encode(values))).isEqualTo(values);
        assertThat(Composite.decode(Composite.encode(List.of()))).isEmpty();
    }
}
