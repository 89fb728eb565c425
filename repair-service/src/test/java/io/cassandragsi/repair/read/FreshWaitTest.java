package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The wait of a fresh read for the safe time (docs/design.md section 8.7), on a safe time the test moves. */
class FreshWaitTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}]}}
            """, "revisions.json");

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    /** The safe time the service would report; null: not known yet (503 safe_time_unknown). */
    private final AtomicReference<Instant> safe = new AtomicReference<>();

    private final IndexReader.SafeTimes times = new IndexReader.SafeTimes() {
        @Override
        public Instant of(TableDef table) {
            Instant at = safe.get();
            if (at == null) {
                throw ReadException.safeTimeUnknown("no shard read yet");
            }
            return at;
        }

        @Override
        public String heldBy(TableDef table) {
            return "shard 5 (worked here)";
        }
    };

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void should_complete_once_the_safe_time_passes_the_arrival_when_it_was_behind_or_unknown() throws Exception {
        Instant arrival = Instant.parse("2026-11-29T10:00:00Z");
        CompletableFuture<Void> wait = new FreshWait(times, scheduler).until(DEF, arrival, Duration.ofSeconds(10));
        Thread.sleep(50);
        assertThat(wait).as("not known yet: waits").isNotDone();
        safe.set(arrival.minusMillis(1));
        Thread.sleep(50);
        assertThat(wait).as("a millisecond behind: waits").isNotDone();
        safe.set(arrival);
        wait.get(2, TimeUnit.SECONDS);
        assertThat(new FreshWait(times, scheduler).until(DEF, arrival.minusSeconds(1), Duration.ZERO)).as("already passed: at once, even with no wait")
                .succeedsWithin(Duration.ofSeconds(1));
    }

    @Test
    void should_fail_at_once_when_the_services_settings_keep_the_safe_time_unknown() {
        IndexReader.SafeTimes never = table -> {
            throw ReadException.safeTimeNeverKnown("consistency.read is ONE");
        };
        long start = System.nanoTime();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> new FreshWait(never, scheduler).until(DEF, Instant.now(), Duration.ofSeconds(10)).get(5, TimeUnit.SECONDS));
        assertThat((System.nanoTime() - start) / 1_000_000).as("at once, not after its 10 s bound").isLessThan(1_000L);
        ReadException r = (ReadException) e.getCause();
        assertThat(io.cassandragsi.repair.http.ErrorMapper.status(r)).isEqualTo(503);
        assertThat(r.error()).isEqualTo("safe_time_unknown");
        assertThat(r.detail()).contains("consistency.read is ONE");
    }

    @Test
    void should_fail_with_503_retry_after_and_what_holds_the_safe_time_when_the_wait_would_pass_its_bound() {
        Instant arrival = Instant.now();
        safe.set(arrival.minusMillis(2_500));
        long start = System.nanoTime();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> new FreshWait(times, scheduler).until(DEF, arrival, Duration.ofMillis(100)).get(5, TimeUnit.SECONDS));
        assertThat((System.nanoTime() - start) / 1_000_000).as("its bound, not more").isBetween(90L, 1_000L);
        ReadException r = (ReadException) e.getCause();
        assertThat(io.cassandragsi.repair.http.ErrorMapper.status(r)).isEqualTo(503);
        assertThat(r.error()).isEqualTo("fresh_timeout");
        assertThat(r.detail()).contains("ks.revisions").contains("2500 ms behind").contains("shard 5 (worked here)").contains("after 100 ms");
        assertThat(r.retryAfterSeconds()).as("the distance, rounded up").isEqualTo(3L);
        assertThat(io.cassandragsi.repair.http.ErrorMapper.retryAfter(r)).isEqualTo(3L);
        safe.set(null);
        ExecutionException unknown = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> new FreshWait(times, scheduler).until(DEF, arrival, Duration.ofMillis(30)).get(5, TimeUnit.SECONDS));
        assertThat(unknown.getCause().getMessage()).contains("is not known (no shard read yet)");
    }
}
