package io.cassandragsi.repair.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.BucketPeriod;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The buckets a recorded change reaches ({@link BucketsTable#labels}, docs/design.md section 9.4):
 * the labels from the change's first version's bucket to the bucket of {@code until}, or the one
 * row {@value BucketsTable#ALL} when the first version is unknown or the labels are more than
 * {@value BucketsTable#MAX_LABELS}.
 */
class BucketsTableLabelsTest {
    private static Instant at(String instant) {
        return Instant.parse(instant);
    }

    /** The day labels from {@code first} to {@code last}, both included, from java.time. */
    private static List<String> days(String first, String last) {
        List<String> out = new ArrayList<>();
        for (LocalDate d = LocalDate.parse(first); !d.isAfter(LocalDate.parse(last)); d = d.plusDays(1)) {
            out.add(d.toString());
        }
        return out;
    }

    @Test
    void should_give_the_all_label_when_the_first_version_is_unknown() {
        assertThat(BucketsTable.ALL).isEmpty();
        assertThat(BucketsTable.labels(BucketPeriod.DAY, null, at("2013-01-05T00:01:00Z"))).containsExactly("");
        assertThat(BucketsTable.labels(BucketPeriod.YEAR, null, at("2013-01-05T00:01:00Z"))).containsExactly(BucketsTable.ALL);
    }

    @Test
    void should_give_one_label_when_from_and_until_are_in_one_bucket() {
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2013-01-04T00:00:00Z"), at("2013-01-04T23:59:59.9999999Z"))).containsExactly("2013-01-04");
        assertThat(BucketsTable.labels(BucketPeriod.MONTH, at("2013-01-01T00:00:00Z"), at("2013-01-31T12:00:00Z"))).containsExactly("2013-01");
    }

    @Test
    void should_give_every_label_from_from_to_until_when_they_cross_a_year_end() {
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2012-12-30T10:00:00Z"), at("2013-01-02T00:00:00Z")))
                .containsExactly("2012-12-30", "2012-12-31", "2013-01-01", "2013-01-02");
        assertThat(BucketsTable.labels(BucketPeriod.MONTH, at("2012-11-15T00:00:00Z"), at("2013-02-01T00:00:00Z")))
                .containsExactly("2012-11", "2012-12", "2013-01", "2013-02");
        assertThat(BucketsTable.labels(BucketPeriod.YEAR, at("2011-06-01T00:00:00Z"), at("2013-01-01T00:00:30Z")))
                .containsExactly("2011", "2012", "2013");
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2012-02-28T23:00:00Z"), at("2012-03-01T01:00:00Z")))
                .as("a leap day").containsExactly("2012-02-28", "2012-02-29", "2012-03-01");
    }

    @Test
    void should_give_the_labels_when_they_are_exactly_the_most_a_change_lists() {
        // 2013-01-01 to 2013-04-10: 31 + 28 + 31 + 10 = 100 days
        List<String> labels = BucketsTable.labels(BucketPeriod.DAY, at("2013-01-01T05:00:00Z"), at("2013-04-10T23:00:00Z"));
        assertThat(labels).hasSize(BucketsTable.MAX_LABELS).isEqualTo(days("2013-01-01", "2013-04-10"));
    }

    @Test
    void should_give_the_all_label_when_the_labels_are_more_than_the_most_a_change_lists() {
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2013-01-01T05:00:00Z"), at("2013-04-11T00:00:00Z"))).containsExactly(BucketsTable.ALL);
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2000-01-01T00:00:00Z"), at("2013-04-11T00:00:00Z"))).containsExactly(BucketsTable.ALL);
        assertThat(BucketsTable.labels(BucketPeriod.MONTH, at("2000-01-01T00:00:00Z"), at("2013-04-11T00:00:00Z")))
                .as("160 months").containsExactly(BucketsTable.ALL);
        assertThat(BucketsTable.labels(BucketPeriod.YEAR, at("2000-01-01T00:00:00Z"), at("2013-04-11T00:00:00Z"))).hasSize(14);
    }

    @Test
    void should_give_no_label_when_from_is_after_until() {
        assertThat(BucketsTable.labels(BucketPeriod.DAY, at("2013-01-05T00:00:00Z"), at("2013-01-04T00:00:00Z"))).isEmpty();
    }
}
