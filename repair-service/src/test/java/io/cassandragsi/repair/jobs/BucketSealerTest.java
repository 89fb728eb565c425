package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.BucketRule;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketsTable;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Which buckets the sealer seals ({@link BucketSealer#due}, docs/design.md section 9.4): the buckets
 * up to the last sealable one without a valid seal whose last change is more than a margin old, and
 * the last one when it has no row or no valid seal (and its change, if any, is a margin old). The
 * randomized test compares with an oracle written from that rule; it prints its seed and {@code
 * -Dgsi.seed=N} replays.
 */
class BucketSealerTest {
    private static final long M = BucketRule.MARGIN.toNanos() / 1000;
    /** 2013-01-05T00:05:00Z in microseconds. */
    private static final long NOW = Instant.parse("2013-01-05T00:05:00Z").getEpochSecond() * 1_000_000L;
    private static final String LAST = "2013-01-04";

    private static UUID sealAt(long micros) {
        return Tids.fromTicks(micros * 10, 0x42);
    }

    /** A bucket sealed at {@code sealMicros} (a seal valid since no change). */
    private static BucketsTable.State sealed(long sealMicros) {
        return new BucketsTable.State(sealAt(sealMicros), null, 10);
    }

    private static BucketsTable.State state(Long sealMicros, Long changed) {
        return new BucketsTable.State(sealMicros == null ? null : sealAt(sealMicros), changed, 0);
    }

    @Test
    void should_seal_the_last_bucket_when_no_bucket_has_a_row() {
        assertThat(BucketSealer.due(Map.of(), LAST, NOW)).containsExactly(LAST);
    }

    @Test
    void should_seal_nothing_when_every_bucket_up_to_the_last_has_a_valid_seal() {
        Map<String, BucketsTable.State> states = Map.of("2013-01-02", sealed(NOW - 3_000_000_000L), "2013-01-03", sealed(NOW - 2_000_000_000L),
                LAST, sealed(NOW - 1_000_000L));
        assertThat(BucketSealer.due(states, LAST, NOW)).isEmpty();
    }

    @Test
    void should_seal_an_earlier_bucket_again_when_a_change_ended_its_seal_more_than_a_margin_ago() {
        long seal = NOW - 86_400_000_000L;
        Map<String, BucketsTable.State> states = new HashMap<>();
        states.put("2013-01-02", state(seal, seal + 1_000_000L)); // changed after its seal
        states.put("2013-01-03", sealed(seal));
        states.put(LAST, sealed(NOW - 1_000_000L));
        assertThat(BucketSealer.due(states, LAST, NOW)).containsExactly("2013-01-02");
    }

    @Test
    void should_wait_when_the_change_that_ended_a_seal_is_not_more_than_a_margin_old() {
        long seal = NOW - 86_400_000_000L;
        Map<String, BucketsTable.State> states = new HashMap<>();
        states.put("2013-01-01", state(seal, NOW - M)); // exactly a margin old
        states.put("2013-01-02", state(seal, NOW - M + 1));
        states.put("2013-01-03", state(seal, NOW - M - 1)); // one microsecond more than a margin
        states.put(LAST, sealed(NOW - 1_000_000L));
        assertThat(BucketSealer.due(states, LAST, NOW)).containsExactly("2013-01-03");
    }

    @Test
    void should_seal_an_earlier_bucket_when_it_has_a_change_and_no_seal() {
        Map<String, BucketsTable.State> states = new HashMap<>();
        states.put("2012-12-31", state(null, NOW - 10 * M));
        states.put(LAST, sealed(NOW - 1_000_000L));
        assertThat(BucketSealer.due(states, LAST, NOW)).containsExactly("2012-12-31");
    }

    @Test
    void should_leave_buckets_after_the_last_sealable_one_when_they_lack_a_seal() {
        Map<String, BucketsTable.State> states = new HashMap<>();
        states.put("2013-01-05", state(null, NOW - 10 * M)); // the current bucket: changed, not sealable yet
        states.put("2013-01-06", state(null, null));
        states.put(LAST, sealed(NOW - 1_000_000L));
        assertThat(BucketSealer.due(states, LAST, NOW)).isEmpty();
    }

    @Test
    void should_seal_the_last_bucket_when_its_row_has_no_valid_seal_and_its_change_is_a_margin_old() {
        assertThat(BucketSealer.due(Map.of(LAST, state(null, null)), LAST, NOW)).containsExactly(LAST);
        assertThat(BucketSealer.due(Map.of(LAST, state(null, NOW - M - 1)), LAST, NOW)).containsExactly(LAST);
        long seal = NOW - 3_600_000_000L;
        assertThat(BucketSealer.due(Map.of(LAST, state(seal, seal + 5)), LAST, NOW)).as("changed after its seal").containsExactly(LAST);
    }

    @Test
    void should_wait_for_the_last_bucket_when_its_change_is_recent() {
        assertThat(BucketSealer.due(Map.of(LAST, state(null, NOW - M)), LAST, NOW)).isEmpty();
        assertThat(BucketSealer.due(Map.of(LAST, state(null, NOW - 1)), LAST, NOW)).isEmpty();
        long seal = NOW - 3_600_000_000L;
        assertThat(BucketSealer.due(Map.of(LAST, state(seal, NOW - 5)), LAST, NOW)).isEmpty();
    }

    @Test
    void should_not_seal_the_last_bucket_again_when_its_seal_started_more_than_a_margin_after_its_last_change() {
        long changed = NOW - 3_600_000_000L;
        assertThat(BucketSealer.due(Map.of(LAST, state(changed + M + 1, changed)), LAST, NOW)).isEmpty();
        assertThat(BucketSealer.due(Map.of(LAST, state(changed + M, changed)), LAST, NOW)).as("a seal exactly a margin after: not valid")
                .containsExactly(LAST);
    }

    // ----- random states against an oracle of the rule

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("BucketSealerTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    /** Valid: a seal, and no change or a change more than a margin before the seal started (in microseconds of its tick). */
    private static boolean valid(Long sealMicros, Long changed) {
        return sealMicros != null && (changed == null || sealMicros > changed + M);
    }

    private static boolean settled(Long changed, long now) {
        return changed == null || now - changed > M;
    }

    @Test
    void should_give_the_buckets_of_the_rule_when_states_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        LocalDate lastDay = LocalDate.of(2013, 1, 4);
        for (int run = 0; run < 2000; run++) {
            Map<String, BucketsTable.State> states = new TreeMap<>();
            Map<String, Long[]> model = new TreeMap<>();
            for (int d = -5; d <= 2; d++) {
                if (rnd.nextInt(3) == 0) {
                    continue; // no row
                }
                String label = lastDay.plusDays(d).toString();
                Long seal = rnd.nextInt(4) == 0 ? null : NOW - rnd.nextLong(4 * M);
                Long changed = switch (rnd.nextInt(5)) {
                    case 0 -> null;
                    case 1 -> seal == null ? NOW - M : seal - M; // on the edges
                    case 2 -> seal == null ? NOW - M - 1 : seal - M - 1;
                    default -> NOW - rnd.nextLong(4 * M);
                };
                states.put(label, state(seal, changed));
                model.put(label, new Long[] {seal, changed});
            }
            TreeSet<String> want = new TreeSet<>();
            model.forEach((label, s) -> {
                if (label.compareTo(LAST) <= 0 && !valid(s[0], s[1]) && settled(s[1], NOW)) {
                    want.add(label);
                }
            });
            Long[] last = model.get(LAST);
            if (last == null || (!valid(last[0], last[1]) && settled(last[1], NOW))) {
                want.add(LAST);
            }
            assertThat(new ArrayList<>(BucketSealer.due(states, LAST, NOW))).as("seed %d, run %d, states %s", seed, run, describe(model))
                    .isEqualTo(List.copyOf(want));
        }
    }

    private static String describe(Map<String, Long[]> model) {
        StringBuilder sb = new StringBuilder();
        model.forEach((l, s) -> sb.append("\n  ").append(l).append(" seal ").append(s[0] == null ? "-" : NOW - s[0] + " us ago")
                .append(", changed ").append(s[1] == null ? "-" : NOW - s[1] + " us ago"));
        return sb.toString();
    }
}
