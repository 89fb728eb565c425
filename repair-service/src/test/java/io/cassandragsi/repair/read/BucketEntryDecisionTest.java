package io.cassandragsi.repair.read;

import static io.cassandragsi.repair.read.EntryDecision.CHECK_UNCLAIMED;
import static io.cassandragsi.repair.read.EntryDecision.MATCH;
import static io.cassandragsi.repair.read.EntryDecision.SKIP;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What a read does with an entry of a valid bucket seal (a read of one moment, a window from q to q, and
 * {@link EntryDecision#inBucketWindow}, docs/design.md section 8.2): each branch by hand, then the
 * soundness of every decision against histories it is not told about (a match only when a version
 * with the key is current at q or in the window, a skip only when none is). The randomized test
 * prints its seed; {@code -Dgsi.seed=N} replays.
 */
class BucketEntryDecisionTest {
    private static UUID t(long ticks) {
        return Tids.minAtTicks(ticks);
    }

    private static UUID q(long ticks) {
        return Tids.maxAtTicks(ticks);
    }

    /** A bucket entry at one moment q: the window from q to q ({@link EntryDecision#inBucketWindow}). */
    private static EntryDecision ofBucketEntry(UUID tid, UUID first, UUID deleted, UUID q) {
        return EntryDecision.inBucketWindow(tid, first, deleted, q, q);
    }

    // ----- ofBucketEntry, by branch

    @Test
    void should_skip_when_the_entry_has_no_tid_or_no_first() {
        assertThat(ofBucketEntry(null, t(10), null, q(100))).isEqualTo(SKIP);
        assertThat(ofBucketEntry(t(10), null, null, q(100))).isEqualTo(SKIP);
        assertThat(ofBucketEntry(null, null, t(20), q(100))).isEqualTo(SKIP);
    }

    @Test
    void should_match_when_the_tid_is_at_or_before_q_and_nothing_deleted_it() {
        assertThat(ofBucketEntry(t(50), t(10), null, q(100))).isEqualTo(MATCH);
        assertThat(ofBucketEntry(t(100), t(100), null, t(100))).as("tid == q").isEqualTo(MATCH);
    }

    @Test
    void should_match_when_the_tid_is_at_or_before_q_and_the_deletion_is_after_q() {
        assertThat(ofBucketEntry(t(50), t(10), t(101), q(100))).isEqualTo(MATCH);
        assertThat(ofBucketEntry(t(50), t(50), q(100), t(100))).as("deleted one tid after q, in q's tick").isEqualTo(MATCH);
    }

    @Test
    void should_skip_when_the_tid_is_at_or_before_q_and_the_deletion_is_at_or_before_q() {
        assertThat(ofBucketEntry(t(50), t(10), t(80), q(100))).isEqualTo(SKIP);
        assertThat(ofBucketEntry(t(50), t(10), q(100), q(100))).as("deleted == q").isEqualTo(SKIP);
    }

    @Test
    void should_skip_when_the_first_version_is_after_q() {
        assertThat(ofBucketEntry(t(200), t(150), null, q(100))).isEqualTo(SKIP);
        assertThat(ofBucketEntry(t(200), t(101), t(300), q(100))).isEqualTo(SKIP);
    }

    @Test
    void should_let_the_base_decide_when_q_lies_from_the_first_version_to_before_the_tid() {
        assertThat(ofBucketEntry(t(200), t(50), null, q(100))).isEqualTo(CHECK_UNCLAIMED);
        assertThat(ofBucketEntry(t(200), q(100), t(300), q(100))).as("first == q").isEqualTo(CHECK_UNCLAIMED);
        assertThat(ofBucketEntry(t(200), t(50), null, q(100)).claimed()).as("the index claims nothing").isFalse();
    }

    // ----- inBucketWindow, by branch

    @Test
    void should_skip_a_window_entry_when_it_has_no_tid_or_no_first() {
        assertThat(EntryDecision.inBucketWindow(null, t(10), null, q(50), q(100))).isEqualTo(SKIP);
        assertThat(EntryDecision.inBucketWindow(t(10), null, null, q(50), q(100))).isEqualTo(SKIP);
    }

    @Test
    void should_match_a_window_entry_when_its_tid_is_in_or_before_the_window_and_it_lasts_past_the_window_start() {
        assertThat(EntryDecision.inBucketWindow(t(70), t(70), null, q(50), q(100))).as("tid in the window").isEqualTo(MATCH);
        assertThat(EntryDecision.inBucketWindow(t(30), t(10), null, q(50), q(100))).as("current at the start, never deleted").isEqualTo(MATCH);
        assertThat(EntryDecision.inBucketWindow(t(30), t(10), t(51), q(50), q(100))).as("deleted after the start").isEqualTo(MATCH);
        assertThat(EntryDecision.inBucketWindow(t(100), t(10), t(80), q(50), t(100))).as("tid == upTo").isEqualTo(MATCH);
        assertThat(EntryDecision.inBucketWindow(t(70), t(70), t(90), q(50), q(100))).as("deleted inside the window").isEqualTo(MATCH);
    }

    @Test
    void should_skip_a_window_entry_when_it_was_deleted_at_or_before_the_window_start() {
        assertThat(EntryDecision.inBucketWindow(t(30), t(10), t(40), q(50), q(100))).isEqualTo(SKIP);
        assertThat(EntryDecision.inBucketWindow(t(30), t(10), q(50), q(50), q(100))).as("deleted == from").isEqualTo(SKIP);
    }

    @Test
    void should_skip_a_window_entry_when_its_first_version_is_after_the_window() {
        assertThat(EntryDecision.inBucketWindow(t(200), t(150), null, q(50), q(100))).isEqualTo(SKIP);
    }

    @Test
    void should_let_the_base_decide_a_window_entry_when_its_tid_is_after_the_window_and_its_first_is_not() {
        assertThat(EntryDecision.inBucketWindow(t(200), t(70), null, q(50), q(100))).as("first in the window").isEqualTo(CHECK_UNCLAIMED);
        assertThat(EntryDecision.inBucketWindow(t(200), t(10), t(300), q(50), q(100))).as("first before the window").isEqualTo(CHECK_UNCLAIMED);
        assertThat(EntryDecision.inBucketWindow(t(200), q(100), null, q(50), q(100))).as("first == upTo").isEqualTo(CHECK_UNCLAIMED);
    }

    // ----- soundness against random histories

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("BucketEntryDecisionTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    /** A version of the model: its tid and its key (0: no key). */
    private record V(UUID tid, int key) {}

    /** The bucket of the model: ticks [START, END). */
    private static final long START = 1_000;
    private static final long END = 2_000;

    /** The version current at {@code q}: the greatest tid at or before it; null: none. */
    private static V currentAt(List<V> vs, UUID q) {
        V out = null;
        for (V v : vs) {
            if (Tids.compare(v.tid(), q) <= 0) {
                out = v;
            }
        }
        return out;
    }

    /** The bucket entry of {@code key} as the seal writes it (tid, first, deleted), or null when the row has none. */
    private static UUID[] entry(List<V> vs, int key) {
        int first = -1;
        int latest = -1;
        for (int i = 0; i < vs.size(); i++) {
            long ticks = io.cassandragsi.index.WriteTimestamps.of(vs.get(i).tid());
            boolean inBucket = ticks >= START && ticks < END;
            boolean currentAtStart = ticks <= START && (i + 1 == vs.size() || io.cassandragsi.index.WriteTimestamps.of(vs.get(i + 1).tid()) > START);
            if ((inBucket || currentAtStart) && vs.get(i).key() == key) {
                first = first < 0 ? i : first;
                latest = i;
            }
        }
        if (latest < 0) {
            return null;
        }
        UUID deleted = null;
        for (int j = latest + 1; j < vs.size(); j++) {
            if (vs.get(j).key() != key) {
                deleted = vs.get(j).tid();
                break;
            }
        }
        return new UUID[] {vs.get(latest).tid(), vs.get(first).tid(), deleted};
    }

    private static List<V> history(Random rnd) {
        List<V> vs = new ArrayList<>();
        int n = 1 + rnd.nextInt(10);
        long ticks = rnd.nextInt(1_500);
        for (int i = 0; i < n; i++) {
            boolean sameTick = i > 0 && rnd.nextInt(6) == 0 && ticks != START;
            if (i > 0 && !sameTick) {
                ticks += 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 800 : 200);
            }
            int key = rnd.nextInt(6) == 0 ? 0 : 1 + rnd.nextInt(2);
            vs.add(new V(Tids.fromTicks(ticks, sameTick ? 10 + i : 1 + i), key));
        }
        return vs;
    }

    /** A query moment in the bucket: the last tid of a tick (an instant), or a random tid of a tick after the bucket's first. */
    private static UUID moment(Random rnd, long lo) {
        long ticks = lo + rnd.nextInt((int) (END - lo));
        return ticks == START || rnd.nextBoolean() ? Tids.maxAtTicks(ticks) : Tids.fromTicks(ticks, 1 + rnd.nextInt(20));
    }

    @Test
    void should_decide_soundly_when_histories_and_query_times_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        Map<EntryDecision, Integer> seenAt = new EnumMap<>(EntryDecision.class);
        Map<EntryDecision, Integer> seenWindow = new EnumMap<>(EntryDecision.class);
        for (int run = 0; run < 20_000; run++) {
            List<V> vs = history(rnd);
            int key = 1 + rnd.nextInt(2);
            UUID[] e = entry(vs, key);
            if (e == null) {
                continue;
            }
            UUID q = moment(rnd, START);
            V at = currentAt(vs, q);
            EntryDecision d = ofBucketEntry(e[0], e[1], e[2], q);
            seenAt.merge(d, 1, Integer::sum);
            String desc = "seed " + seed + ", run " + run + ", key " + key + ", q " + q + ", versions " + vs;
            if (d == MATCH) {
                assertThat(at).as(desc).isNotNull();
                assertThat(at.key()).as(desc).isEqualTo(key);
            } else if (d == SKIP) {
                assertThat(at == null || at.key() != key).as(desc).isTrue();
            }

            UUID from = moment(rnd, START);
            UUID upTo = moment(rnd, START);
            if (Tids.compare(from, upTo) > 0) {
                UUID x = from;
                from = upTo;
                upTo = x;
            }
            V atFrom = currentAt(vs, from);
            boolean inWindow = atFrom != null && atFrom.key() == key;
            for (V v : vs) {
                inWindow |= v.key() == key && Tids.compare(v.tid(), from) > 0 && Tids.compare(v.tid(), upTo) <= 0;
            }
            EntryDecision w = EntryDecision.inBucketWindow(e[0], e[1], e[2], from, upTo);
            seenWindow.merge(w, 1, Integer::sum);
            String wdesc = desc + ", window " + from + ".." + upTo;
            if (w == MATCH) {
                assertThat(inWindow).as(wdesc).isTrue();
            } else if (w == SKIP) {
                assertThat(inWindow).as(wdesc).isFalse();
            }
        }
        assertThat(seenAt).as("every decision occurs").containsKeys(MATCH, SKIP, CHECK_UNCLAIMED);
        assertThat(seenWindow).as("every decision occurs").containsKeys(MATCH, SKIP, CHECK_UNCLAIMED);
    }
}
