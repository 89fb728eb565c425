package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.repair.store.MemoryQueue;
import io.cassandragsi.repair.store.QueueReads;
import io.cassandragsi.schema.QueueLayout;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The shared read of a poll tick (docs/design.md section 7.2) against each shard's own read, on the in-memory queue. */
class TickReadsTest {
    private static final int SHARDS = 8;
    private static final QueueLayout.Settings SETTINGS = new QueueLayout.Settings(SHARDS, 10, 7 * 24 * 3600);
    private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
    private static final ConsistencyLevel CL = ConsistencyLevel.LOCAL_QUORUM;
    private final MemoryQueue queue = new MemoryQueue(Clock.fixed(T0, ZoneOffset.UTC), SETTINGS);
    private final Map<Integer, TickReads.Position> positions = new HashMap<>();
    private final TickReads reads = new TickReads(queue, 100, 50, () -> positions);

    private static UUID upToAt(long nowMillis) {
        return Tids.maxAtTicks((nowMillis - 50) * 10_000L);
    }

    private static UUID at(long millis) {
        return Tids.minAtTicks(millis * 10_000L);
    }

    @Test
    void should_give_every_shard_what_its_own_read_gives_with_one_query_per_tick() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("TickReadsTest seed " + seed);
        Random random = new Random(seed);
        long bucket = SETTINGS.bucketOf(T0.toEpochMilli());
        long start = bucket * 10_000L;
        for (int i = 0; i < 400; i++) {
            queue.add(Markers.at(Instant.ofEpochMilli(start + random.nextInt(9_000)), "k" + random.nextInt(50)));
        }
        List<Long> ticks = new ArrayList<>();
        for (int i = 1; i <= 90; i++) {
            ticks.add(start + 100L * i);
        }
        // each round its own tick: a second read at a tick already read is answered by that read (its start)
        Collections.shuffle(ticks, random);
        for (int round = 0; round < 50; round++) {
            long tick = ticks.get(round);
            UUID upTo = upToAt(tick);
            positions.clear();
            Map<Integer, UUID> after = new HashMap<>();
            for (int shard = 0; shard < SHARDS; shard++) {
                UUID a = random.nextInt(4) == 0 ? at(bucket * 10_000L - 1) : at(start + random.nextInt(9_000));
                after.put(shard, a);
                positions.put(shard, new TickReads.Position(bucket, a));
            }
            long before = reads.queries.sum();
            for (int shard = 0; shard < SHARDS; shard++) {
                assertThat(reads.read(shard, bucket, after.get(shard), upTo, CL)).as("seed %d round %d shard %d", seed, round, shard)
                        .isEqualTo(queue.read(shard, bucket, after.get(shard), upTo, CL));
            }
            assertThat(reads.queries.sum() - before).as("seed %d round %d: queries for %d shards at one tick", seed, round, SHARDS).isEqualTo(1);
        }
    }

    @Test
    void should_read_alone_off_the_tick_before_the_shared_start_and_for_shards_not_among_the_workers() {
        long bucket = SETTINGS.bucketOf(T0.toEpochMilli());
        long start = bucket * 10_000L;
        for (int i = 0; i < 20; i++) {
            queue.add(Markers.at(Instant.ofEpochMilli(start + 100L * i), "k" + i));
        }
        positions.put(0, new TickReads.Position(bucket, at(start + 500)));
        positions.put(1, new TickReads.Position(bucket, at(start + 500)));
        UUID upTo = upToAt(start + 3_000);
        reads.read(0, bucket, at(start + 500), upTo, CL);
        long shared = reads.queries.sum();
        // a position older than the shared read's start (the worker moved back: a resume), a stopped epoch's shard, off the tick
        for (int shard : new int[] {1, 1_984_516_252}) {
            UUID from = shard == 1 ? at(start + 100) : at(start);
            assertThat(reads.read(shard, bucket, from, upTo, CL)).isEqualTo(queue.read(shard, bucket, from, upTo, CL));
        }
        reads.read(0, bucket, at(start + 500), upToAt(start + 3_017), CL);
        assertThat(reads.queries.sum() - shared).as("each of the three read alone").isEqualTo(3);
    }

    @Test
    void should_read_shard_by_shard_when_the_shared_read_reaches_the_limit() {
        long bucket = SETTINGS.bucketOf(T0.toEpochMilli());
        long start = bucket * 10_000L;
        List<Marker> many = new ArrayList<>();
        for (int i = 0; i < QueueReads.READ_LIMIT + 10; i++) {
            many.add(Markers.at(Instant.ofEpochMilli(start + i % 5_000), "k" + (i % 200)));
        }
        many.forEach(queue::add);
        for (int shard = 0; shard < SHARDS; shard++) {
            positions.put(shard, new TickReads.Position(bucket, at(start - 1)));
        }
        UUID upTo = upToAt(start + 6_000);
        for (int shard = 0; shard < SHARDS; shard++) {
            assertThat(reads.read(shard, bucket, at(start - 1), upTo, CL)).isEqualTo(queue.read(shard, bucket, at(start - 1), upTo, CL));
        }
        assertThat(reads.queries.sum()).as("one shared read that reached the limit, then one per shard").isEqualTo(1 + SHARDS);
    }
}
