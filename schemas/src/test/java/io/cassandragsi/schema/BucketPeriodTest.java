package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The labels, starts, ends and successors of bucket periods ({@link BucketPeriod}, docs/design.md
 * section 3.2), in UTC. The randomized test prints its seed; {@code -Dgsi.seed=N} replays.
 */
class BucketPeriodTest {
    private static final Instant LAST_TICK_OF_2012 = Instant.parse("2012-12-31T23:59:59.9999999Z");
    private static final Instant FIRST_MOMENT_OF_2013 = Instant.parse("2013-01-01T00:00:00Z");

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("BucketPeriodTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    @Test
    void should_label_the_last_tick_of_a_year_with_its_day_month_and_year_when_it_is_just_before_midnight_utc() {
        assertThat(BucketPeriod.DAY.label(LAST_TICK_OF_2012)).isEqualTo("2012-12-31");
        assertThat(BucketPeriod.MONTH.label(LAST_TICK_OF_2012)).isEqualTo("2012-12");
        assertThat(BucketPeriod.YEAR.label(LAST_TICK_OF_2012)).isEqualTo("2012");
    }

    @Test
    void should_label_midnight_with_the_new_day_month_and_year_when_a_year_begins() {
        assertThat(BucketPeriod.DAY.label(FIRST_MOMENT_OF_2013)).isEqualTo("2013-01-01");
        assertThat(BucketPeriod.MONTH.label(FIRST_MOMENT_OF_2013)).isEqualTo("2013-01");
        assertThat(BucketPeriod.YEAR.label(FIRST_MOMENT_OF_2013)).isEqualTo("2013");
    }

    @Test
    void should_label_in_utc_when_the_moment_is_another_day_in_other_zones() {
        // 23:30 UTC is already the next day in Paris and still the same day in New York
        Instant t = Instant.parse("2013-02-28T23:30:00Z");
        assertThat(BucketPeriod.DAY.label(t)).isEqualTo("2013-02-28");
        assertThat(BucketPeriod.MONTH.label(t)).isEqualTo("2013-02");
    }

    @Test
    void should_pad_the_year_to_four_digits_when_the_year_is_small() {
        Instant t = LocalDate.of(999, 6, 1).atStartOfDay(ZoneOffset.UTC).toInstant();
        assertThat(BucketPeriod.YEAR.label(t)).isEqualTo("0999");
        assertThat(BucketPeriod.MONTH.label(t)).isEqualTo("0999-06");
        assertThat(BucketPeriod.YEAR.start("0999")).isEqualTo(LocalDate.of(999, 1, 1).atStartOfDay(ZoneOffset.UTC).toInstant());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "DAY,   2012-12-31, 2012-12-31T00:00:00Z, 2013-01-01T00:00:00Z",
        "DAY,   2012-02-29, 2012-02-29T00:00:00Z, 2012-03-01T00:00:00Z",
        "DAY,   2013-02-28, 2013-02-28T00:00:00Z, 2013-03-01T00:00:00Z",
        "MONTH, 2012-12,    2012-12-01T00:00:00Z, 2013-01-01T00:00:00Z",
        "MONTH, 2012-02,    2012-02-01T00:00:00Z, 2012-03-01T00:00:00Z",
        "MONTH, 2013-02,    2013-02-01T00:00:00Z, 2013-03-01T00:00:00Z",
        "MONTH, 2013-04,    2013-04-01T00:00:00Z, 2013-05-01T00:00:00Z",
        "YEAR,  2012,       2012-01-01T00:00:00Z, 2013-01-01T00:00:00Z",
        "YEAR,  2013,       2013-01-01T00:00:00Z, 2014-01-01T00:00:00Z",
    })
    void should_start_and_end_at_midnight_utc_when_a_label_is_given(BucketPeriod period, String label, String start, String end) {
        assertThat(period.start(label)).isEqualTo(Instant.parse(start));
        assertThat(period.end(label)).isEqualTo(Instant.parse(end));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "DAY,   2012-12-31, 2013-01-01",
        "DAY,   2012-02-28, 2012-02-29",
        "DAY,   2012-02-29, 2012-03-01",
        "DAY,   2013-02-28, 2013-03-01",
        "DAY,   2013-04-30, 2013-05-01",
        "DAY,   2013-01-31, 2013-02-01",
        "MONTH, 2012-12,    2013-01",
        "MONTH, 2012-01,    2012-02",
        "MONTH, 2012-09,    2012-10",
        "YEAR,  2012,       2013",
        "YEAR,  1999,       2000",
    })
    void should_give_the_following_bucket_when_a_month_or_year_ends(BucketPeriod period, String label, String next) {
        assertThat(period.next(label)).isEqualTo(next);
    }

    @Test
    void should_hold_the_moments_from_its_start_up_to_but_not_its_end_when_a_bucket_is_at_a_year_end() {
        assertThat(BucketPeriod.DAY.end("2012-12-31")).isAfter(LAST_TICK_OF_2012).isEqualTo(FIRST_MOMENT_OF_2013);
        assertThat(BucketPeriod.DAY.start("2013-01-01")).isEqualTo(FIRST_MOMENT_OF_2013);
        assertThat(BucketPeriod.MONTH.end("2012-12")).isEqualTo(FIRST_MOMENT_OF_2013);
        assertThat(BucketPeriod.YEAR.end("2012")).isEqualTo(FIRST_MOMENT_OF_2013);
        assertThat(BucketPeriod.YEAR.start("2013")).isEqualTo(FIRST_MOMENT_OF_2013);
    }

    @ParameterizedTest(name = "{0} ''{1}''")
    @CsvSource({
        "DAY,   2012-12",
        "DAY,   2012",
        "DAY,   2012-12-32",
        "DAY,   2013-02-29",
        "DAY,   ''",
        "MONTH, 2012-12-31",
        "MONTH, 2012",
        "MONTH, 2012-13",
        "YEAR,  2012-12",
        "YEAR,  2012-12-31",
        "YEAR,  12",
        "YEAR,  abcd",
    })
    void should_reject_a_label_with_an_illegal_argument_when_it_is_not_of_the_period(BucketPeriod period, String label) {
        assertThatThrownBy(() -> period.start(label)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> period.end(label)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> period.next(label)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void should_read_the_definition_names_and_no_others_when_a_period_is_named() {
        assertThat(BucketPeriod.fromJson("day")).isEqualTo(BucketPeriod.DAY);
        assertThat(BucketPeriod.fromJson("month")).isEqualTo(BucketPeriod.MONTH);
        assertThat(BucketPeriod.fromJson("year")).isEqualTo(BucketPeriod.YEAR);
        assertThat(BucketPeriod.fromJson("week")).isNull();
        assertThat(BucketPeriod.fromJson("DAY")).isNull();
        assertThat(BucketPeriod.fromJson(null)).isNull();
        assertThat(BucketPeriod.MONTH.jsonName()).isEqualTo("month");
    }

    @Test
    void should_name_the_bucket_table_after_table_index_and_period_when_asked() {
        assertThat(BucketPeriod.DAY.tableName("revisions", "by_length")).isEqualTo("idx_revisions_by_length_day");
        assertThat(BucketPeriod.MONTH.tableName("revisions", "by_length")).isEqualTo("idx_revisions_by_length_month");
        assertThat(BucketPeriod.YEAR.tableName("t", "i")).isEqualTo("idx_t_i_year");
    }

    /** The label of {@code t}, from java.time's calendar fields (not from {@link BucketPeriod}). */
    private static String expectedLabel(BucketPeriod period, Instant t) {
        var d = t.atOffset(ZoneOffset.UTC);
        return switch (period) {
            case DAY -> "%04d-%02d-%02d".formatted(d.getYear(), d.getMonthValue(), d.getDayOfMonth());
            case MONTH -> "%04d-%02d".formatted(d.getYear(), d.getMonthValue());
            case YEAR -> "%04d".formatted(d.getYear());
        };
    }

    @Test
    void should_sort_labels_as_time_and_bound_each_moment_when_moments_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        long from = Instant.parse("1970-01-01T00:00:00Z").getEpochSecond();
        long to = Instant.parse("2100-01-01T00:00:00Z").getEpochSecond();
        for (int i = 0; i < 3000; i++) {
            Instant a = Instant.ofEpochSecond(from + (long) (rnd.nextDouble() * (to - from)), rnd.nextInt(10_000_000) * 100L);
            // often a moment close to the first, across a boundary or not
            Instant b = rnd.nextBoolean() ? a.plusNanos((rnd.nextLong(-3 * 86_400_000L, 3 * 86_400_000L)) * 1_000_000L)
                    : Instant.ofEpochSecond(from + (long) (rnd.nextDouble() * (to - from)));
            for (BucketPeriod p : BucketPeriod.values()) {
                String la = p.label(a);
                String lb = p.label(b);
                assertThat(la).as("seed %d, %s of %s", seed, p, a).isEqualTo(expectedLabel(p, a));
                assertThat(Integer.signum(la.compareTo(lb))).as("seed %d, %s: %s vs %s", seed, p, a, b)
                        .isEqualTo(la.equals(lb) ? 0 : Integer.signum(a.compareTo(b)));
                assertThat(p.start(la)).as("seed %d, %s start of %s", seed, p, la).isBeforeOrEqualTo(a);
                assertThat(p.end(la)).as("seed %d, %s end of %s", seed, p, la).isAfter(a);
                assertThat(p.start(p.next(la))).as("seed %d, %s after %s", seed, p, la).isEqualTo(p.end(la));
                assertThat(p.next(la)).as("seed %d, %s after %s", seed, p, la).isGreaterThan(la)
                        .isEqualTo(expectedLabel(p, p.end(la)));
            }
        }
    }
}
