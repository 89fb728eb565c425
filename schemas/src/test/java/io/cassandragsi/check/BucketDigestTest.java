package io.cassandragsi.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.BucketPeriod;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The per-bucket digest of bucket entries ({@link BucketDigest}, docs/design.md section 9.2): the
 * same entries in any order give the same digest, any field changed gives another, and a {@code
 * _deleted} counts only while it lies in the entry's bucket (the bucket ends are written out here,
 * not taken from {@link BucketPeriod}).
 */
class BucketDigestTest {
    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static UUID at(String instant, long lsb) {
        return Tids.fromTicks(Tids.ticks(Instant.parse(instant)), lsb);
    }

    private static final UUID T1 = at("2012-12-31T10:00:00Z", 1);
    private static final UUID T2 = at("2012-12-31T11:00:00Z", 2);

    @Test
    void should_give_the_same_digest_whatever_the_order_of_the_entries() {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            order.add(i);
        }
        BucketDigest a = new BucketDigest(BucketPeriod.DAY, List.of("2012-12-31"));
        BucketDigest b = new BucketDigest(BucketPeriod.DAY, List.of("2012-12-31"));
        order.forEach(i -> a.add("2012-12-31", List.of(text("k" + i)), new BucketEntries.Entry(T1, T1, null, List.of(text("v" + i)))));
        Collections.shuffle(order, new Random(7));
        order.forEach(i -> b.add("2012-12-31", List.of(text("k" + i)), new BucketEntries.Entry(T1, T1, null, List.of(text("v" + i)))));
        assertThat(a.sum("2012-12-31")).isEqualTo(b.sum("2012-12-31"));
        assertThat(a.sum("2012-12-31").count()).isEqualTo(200);
        assertThat(a.sum("2013-01-01")).as("a label it was not made for").isEqualTo(new BucketDigest.Sum(0, 0));
    }

    @Test
    void should_give_another_hash_when_any_part_of_an_entry_changes() {
        String l = "2012-12-31";
        List<ByteBuffer> key = List.of(text("ab"), text("c"));
        List<ByteBuffer> proj = Arrays.asList(text("x"), null);
        Set<Long> hashes = new HashSet<>();
        hashes.add(BucketDigest.hash(l, key, T2, T1, null, proj));
        hashes.add(BucketDigest.hash("2012-12-30", key, T2, T1, null, proj));
        hashes.add(BucketDigest.hash(l, List.of(text("a"), text("bc")), T2, T1, null, proj));
        hashes.add(BucketDigest.hash(l, key, T1, T1, null, proj));
        hashes.add(BucketDigest.hash(l, key, T2, T2, null, proj));
        hashes.add(BucketDigest.hash(l, key, T2, T1, T2, proj));
        hashes.add(BucketDigest.hash(l, key, T2, T1, null, Arrays.asList(text("x"), text(""))));
        hashes.add(BucketDigest.hash(l, key, T2, T1, null, Arrays.asList(null, text("x"))));
        assertThat(hashes).hasSize(8);
        assertThat(BucketDigest.hash(l, key, T2, T1, null, proj)).isEqualTo(BucketDigest.hash(l, List.copyOf(key), T2, T1, null,
                Arrays.asList(text("x"), null)));
    }

    @Test
    void should_keep_a_deleted_only_before_the_start_of_the_next_bucket() {
        UUID lastOfDay = Tids.maxAtTicks(Tids.ticks(Instant.parse("2013-01-01T00:00:00Z")) - 1);
        UUID firstOfNext = Tids.minAtTicks(Tids.ticks(Instant.parse("2013-01-01T00:00:00Z")));
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.DAY, "2012-12-31", lastOfDay)).isEqualTo(lastOfDay);
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.DAY, "2012-12-31", firstOfNext)).isNull();
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.DAY, "2012-12-31", null)).isNull();
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.MONTH, "2012-12", lastOfDay)).isEqualTo(lastOfDay);
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.MONTH, "2012-11", at("2012-12-01T00:00:00Z", 5))).isNull();
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.YEAR, "2012", at("2013-06-01T00:00:00Z", 5))).isNull();
        assertThat(BucketDigest.deletedInBucket(BucketPeriod.YEAR, "2013", at("2013-06-01T00:00:00Z", 5))).isNotNull();
    }

    @Test
    void should_count_an_entry_with_a_later_deleted_as_one_without() {
        BucketDigest a = new BucketDigest(BucketPeriod.DAY, List.of("2012-12-31"));
        BucketDigest b = new BucketDigest(BucketPeriod.DAY, List.of("2012-12-31"));
        a.add("2012-12-31", List.of(text("k")), new BucketEntries.Entry(T2, T1, null, List.of()));
        b.add("2012-12-31", List.of(text("k")), new BucketEntries.Entry(T2, T1, at("2013-02-01T00:00:00Z", 3), List.of()));
        assertThat(a.sum("2012-12-31")).isEqualTo(b.sum("2012-12-31"));
    }
}
