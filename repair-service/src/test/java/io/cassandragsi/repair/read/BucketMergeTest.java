package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.BucketPeriod;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The rules of a window read over several buckets (docs/design.md section 8.2): the buckets and
 * their shares of the window, which fetched entries are complete, and what one row's entries in
 * several buckets decide. Every expectation is worked out by hand from the rule.
 */
class BucketMergeTest {
    private static final UUID SEAL_1 = UUID.fromString("1e3a9c40-5522-11e2-8a4b-0123456789ab");
    private static final UUID SEAL_2 = UUID.fromString("2e3a9c40-5522-11e2-8a4b-0123456789ab");
    private static final UUID OLD_SEAL = UUID.fromString("0e3a9c40-5522-11e2-8a4b-0123456789ab");

    private static UUID at(String instant) {
        return Tids.maxAtTicks(Tids.ticks(Instant.parse(instant)));
    }

    private static List<ByteBuffer> key(String k) {
        return List.of(ByteBuffer.wrap(k.getBytes(StandardCharsets.UTF_8)));
    }

    private static BucketMerge.Entry entry(String label, String k) {
        return new BucketMerge.Entry(label, key(k), null, null, null, SEAL_1);
    }

    /** Two day buckets, the window from 03-04 12:00 to 03-05 12:00. */
    private static Map<String, BucketMerge.Part> twoDays() {
        UUID from = at("2025-03-04T12:00:00Z");
        UUID upTo = at("2025-03-05T12:00:00Z");
        return Map.of("2025-03-04", BucketMerge.part(BucketPeriod.DAY, "2025-03-04", SEAL_1, from, upTo),
                "2025-03-05", BucketMerge.part(BucketPeriod.DAY, "2025-03-05", SEAL_2, from, upTo));
    }

    @Test
    void should_list_the_buckets_a_window_overlaps_oldest_first_and_none_beyond_the_most_one_fetch_reads() {
        assertThat(BucketMerge.labels(BucketPeriod.DAY, at("2025-03-04T12:00:00Z"), at("2025-03-06T00:00:00Z")))
                .containsExactly("2025-03-04", "2025-03-05", "2025-03-06");
        assertThat(BucketMerge.labels(BucketPeriod.MONTH, at("2025-01-31T00:00:00Z"), at("2025-02-01T00:00:00Z"))).containsExactly("2025-01", "2025-02");
        assertThat(BucketMerge.labels(BucketPeriod.DAY, at("2025-03-04T01:00:00Z"), at("2025-03-04T02:00:00Z"))).containsExactly("2025-03-04");
        assertThat(BucketMerge.labels(BucketPeriod.DAY, at("2025-03-01T00:00:00Z"), at("2025-04-01T23:00:00Z"))).as("32 days").hasSize(32);
        assertThat(BucketMerge.labels(BucketPeriod.DAY, at("2025-03-01T00:00:00Z"), at("2025-04-02T00:00:00Z"))).as("33 days").isNull();
    }

    @Test
    void should_cut_the_window_to_each_bucket_from_the_first_timeuuid_of_its_first_tick() {
        Map<String, BucketMerge.Part> parts = twoDays();
        BucketMerge.Part first = parts.get("2025-03-04");
        assertThat(first.from()).isEqualTo(at("2025-03-04T12:00:00Z"));
        assertThat(first.upTo()).isEqualTo(Tids.maxAtTicks(Tids.ticks(Instant.parse("2025-03-05T00:00:00Z")) - 1));
        BucketMerge.Part second = parts.get("2025-03-05");
        assertThat(second.from()).isEqualTo(Tids.minAtTicks(Tids.ticks(Instant.parse("2025-03-05T00:00:00Z"))));
        assertThat(second.upTo()).isEqualTo(at("2025-03-05T12:00:00Z"));
        assertThat(second.seal()).isEqualTo(SEAL_2);
    }

    @Test
    void should_take_every_entry_as_complete_when_no_bucket_returned_its_limit() {
        List<BucketMerge.Entry> fetched = List.of(entry("a", "k1"), entry("b", "k1"), entry("a", "k2"));
        assertThat(BucketMerge.truncated(fetched, 3)).isFalse();
        assertThat(BucketMerge.complete(fetched, 3)).isEqualTo(3);
    }

    @Test
    void should_stop_after_the_group_of_the_first_last_entry_of_a_bucket_that_returned_its_limit() {
        // limit 2: bucket a returned k1, k3; b returned k1, k2; c returned only k4
        List<BucketMerge.Entry> fetched = List.of(entry("a", "k1"), entry("b", "k1"), entry("b", "k2"), entry("a", "k3"), entry("c", "k4"));
        // b's last entry (k2) comes first: b may hold more after k2, so k3 and k4 are not complete
        assertThat(BucketMerge.truncated(fetched, 2)).isTrue();
        assertThat(BucketMerge.complete(fetched, 2)).isEqualTo(3);
        // the cut entry's group goes with it: a's last is k2, and b's k2 sits right after it
        List<BucketMerge.Entry> tied = List.of(entry("a", "k1"), entry("a", "k2"), entry("b", "k2"), entry("b", "k5"));
        assertThat(BucketMerge.complete(tied, 2)).isEqualTo(3);
    }

    @Test
    void should_take_the_latest_bucket_whose_share_of_the_window_the_row_matched_in() {
        Map<String, BucketMerge.Part> parts = twoDays();
        UUID t1 = at("2025-03-04T13:00:00Z");
        UUID t2 = at("2025-03-05T01:00:00Z");
        List<BucketMerge.Entry> group = List.of(new BucketMerge.Entry("2025-03-04", key("k"), t1, t1, t2, SEAL_1),
                new BucketMerge.Entry("2025-03-05", key("k"), at("2025-03-05T03:00:00Z"), t2, null, SEAL_2));
        BucketMerge.Decision d = BucketMerge.decide(group, parts);
        assertThat(d.decision()).isEqualTo(EntryDecision.MATCH);
        assertThat(d.at()).as("the 03-05 entry").isEqualTo(1);
    }

    @Test
    void should_fall_back_to_an_earlier_bucket_when_the_later_share_holds_no_match() {
        Map<String, BucketMerge.Part> parts = twoDays();
        UUID t1 = at("2025-03-04T13:00:00Z");
        // in 03-05 the row had the key only after the window's end (13:00): first after upTo
        UUID late = at("2025-03-05T13:00:00Z");
        List<BucketMerge.Entry> group = List.of(new BucketMerge.Entry("2025-03-04", key("k"), t1, t1, null, SEAL_1),
                new BucketMerge.Entry("2025-03-05", key("k"), late, late, null, SEAL_2));
        assertThat(BucketMerge.decide(group, parts)).isEqualTo(new BucketMerge.Decision(EntryDecision.MATCH, 0));
    }

    @Test
    void should_leave_a_row_that_left_the_key_and_came_back_to_the_base() {
        Map<String, BucketMerge.Part> parts = twoDays();
        // in 03-05: first version with the key before the window's end, latest after it
        List<BucketMerge.Entry> group = List.of(new BucketMerge.Entry("2025-03-05", key("k"), at("2025-03-05T14:00:00Z"),
                at("2025-03-05T01:00:00Z"), null, SEAL_2));
        assertThat(BucketMerge.decide(group, parts)).isEqualTo(new BucketMerge.Decision(EntryDecision.CHECK_UNCLAIMED, 0));
    }

    @Test
    void should_ignore_entries_of_an_earlier_seal_and_skip_a_row_that_ended_before_the_window() {
        Map<String, BucketMerge.Part> parts = twoDays();
        UUID early = at("2025-03-04T01:00:00Z");
        UUID ended = at("2025-03-04T02:00:00Z");
        List<BucketMerge.Entry> oldSeal = List.of(new BucketMerge.Entry("2025-03-05", key("k"), at("2025-03-05T01:00:00Z"),
                at("2025-03-05T01:00:00Z"), null, OLD_SEAL));
        assertThat(BucketMerge.decide(oldSeal, parts)).isEqualTo(BucketMerge.Decision.SKIP);
        List<BucketMerge.Entry> before = List.of(new BucketMerge.Entry("2025-03-04", key("k"), early, early, ended, SEAL_1));
        assertThat(BucketMerge.decide(before, parts)).as("its interval ended at 02:00, the window starts at 12:00").isEqualTo(BucketMerge.Decision.SKIP);
    }

    @Test
    void should_identify_the_buckets_seals_so_that_a_reseal_changes_it() {
        List<BucketMerge.Part> parts = new ArrayList<>(twoDays().values());
        parts.sort(java.util.Comparator.comparing(BucketMerge.Part::label));
        UUID seals = BucketMerge.seals(parts);
        assertThat(BucketMerge.seals(parts)).isEqualTo(seals);
        List<BucketMerge.Part> resealed = List.of(parts.get(0), new BucketMerge.Part(parts.get(1).label(), OLD_SEAL, parts.get(1).from(),
                parts.get(1).upTo()));
        assertThat(BucketMerge.seals(resealed)).isNotEqualTo(seals);
    }

    @Test
    void should_give_up_on_the_buckets_when_an_entry_of_a_later_seal_shows_one_is_being_sealed_again() {
        Map<String, BucketMerge.Part> parts = twoDays();
        UUID later = UUID.fromString("3e3a9c40-5522-11e2-8a4b-0123456789ab"); // after SEAL_2
        UUID t = at("2025-03-05T01:00:00Z");
        List<BucketMerge.Entry> group = List.of(new BucketMerge.Entry("2025-03-05", key("k"), t, t, null, later));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BucketMerge.decide(group, parts)).isInstanceOf(Resealed.class)
                .hasMessageContaining("2025-03-05");
        assertThat(Resealed.counts("2025-03-05", SEAL_2, SEAL_2)).isTrue();
        assertThat(Resealed.counts("2025-03-05", SEAL_2, OLD_SEAL)).as("an earlier seal's leftover").isFalse();
        assertThat(Resealed.counts("2025-03-05", SEAL_2, null)).isFalse();
    }

    @Test
    void should_fetch_at_most_five_thousand_entries_in_all_and_at_least_one_per_bucket() {
        assertThat(BucketMerge.perBucket(100, 4)).isEqualTo(100);
        assertThat(BucketMerge.perBucket(1000, 4)).as("5,000 / 4").isEqualTo(1000);
        assertThat(BucketMerge.perBucket(1000, 32)).as("5,000 / 32").isEqualTo(156);
        assertThat(BucketMerge.perBucket(0, 32)).isEqualTo(1);
    }
}
