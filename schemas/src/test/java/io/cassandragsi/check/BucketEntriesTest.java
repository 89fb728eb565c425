package io.cassandragsi.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.BucketPeriod;
import io.cassandragsi.schema.Definitions;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The entries of a versioned row in the buckets of an index ({@link BucketEntries}, docs/design.md
 * section 3.2) against an oracle written from the rule alone: version i is current from its tid's
 * time until the next version's; a row has an entry in bucket L for key K iff some version with key
 * K was current at a moment of L (the version current at L's start, or one whose tid time lies in
 * L); {@code tid} the latest such, {@code first} the earliest, {@code deleted} the first later
 * version with another key (or none), the projections of {@code tid}. The oracle's calendar is its
 * own (java.time), not {@link BucketPeriod}'s. The randomized test prints its seed; {@code
 * -Dgsi.seed=N} replays.
 */
class BucketEntriesTest {
    private static final long TICKS_PER_DAY = 86_400L * 10_000_000L;

    private static TablePlan plan(String period) {
        return TablePlan.of(Definitions.parse("""
                {"keyspace": "wiki", "table": "revisions",
                 "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
                 "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
                 "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                                                    {"type": "bucket", "period": "%s"}]}}
                """.formatted(period), "revisions.json"));
    }

    private static final TablePlan DAY_PLAN = plan("day");
    private static final TablePlan MONTH_PLAN = plan("month");
    private static final TablePlan YEAR_PLAN = plan("year");

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("BucketEntriesTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    private static ByteBuffer text(String s) {
        return s == null ? null : ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuffer varint(long v) {
        return ByteBuffer.wrap(BigInteger.valueOf(v).toByteArray());
    }

    private static long ticks(String instant) {
        return Tids.ticks(Instant.parse(instant));
    }

    /** One version of the model: its tid's tick and clock bits, its length (null: no entry key) and value. */
    private record V(long ticks, long lsb, Integer length, String value) {
        UUID tid() {
            return Tids.fromTicks(ticks, lsb);
        }
    }

    private static V v(String instant, Integer length, String value) {
        return new V(ticks(instant), 1, length, value);
    }

    private static List<Version> versions(String key, List<V> vs) {
        List<Version> out = new ArrayList<>();
        for (V v : vs) {
            out.add(new Version(new ByteBuffer[] {text(key), Tids.bytes(v.tid()), v.length() == null ? null : varint(v.length()), text(v.value())}, 1));
        }
        return out;
    }

    private static List<ByteBuffer> entryKey(int length, String key) {
        return List.of(varint(length), text(key));
    }

    private static Map<String, Map<List<ByteBuffer>, BucketEntries.Entry>> actual(TablePlan plan, String key, List<V> vs, String lo, String hi,
            Predicate<String> wanted) {
        return BucketEntries.of(plan, plan.indexes().get(0), versions(key, vs), lo, hi, wanted);
    }

    // ----- the oracle: its own calendar, in ticks (100 ns) since the epoch, UTC

    private static final class Calendar {
        private final BucketPeriod period; // only a selector: none of its methods are called

        Calendar(BucketPeriod period) {
            this.period = period;
        }

        String label(long ticks) {
            ZonedDateTime t = Instant.ofEpochSecond(Math.floorDiv(ticks, 10_000_000L)).atZone(ZoneOffset.UTC);
            return switch (period) {
                case DAY -> String.format("%04d-%02d-%02d", t.getYear(), t.getMonthValue(), t.getDayOfMonth());
                case MONTH -> String.format("%04d-%02d", t.getYear(), t.getMonthValue());
                case YEAR -> String.format("%04d", t.getYear());
            };
        }

        private LocalDate firstDay(String label) {
            return switch (period) {
                case DAY -> LocalDate.parse(label);
                case MONTH -> YearMonth.parse(label).atDay(1);
                case YEAR -> Year.parse(label).atDay(1);
            };
        }

        private LocalDate dayAfter(String label) {
            LocalDate first = firstDay(label);
            return switch (period) {
                case DAY -> first.plusDays(1);
                case MONTH -> first.plusMonths(1);
                case YEAR -> first.plusYears(1);
            };
        }

        long start(String label) {
            return firstDay(label).toEpochDay() * TICKS_PER_DAY;
        }

        long end(String label) {
            return dayAfter(label).toEpochDay() * TICKS_PER_DAY;
        }

        String next(String label) {
            return label(end(label));
        }

        String previous(String label) {
            return label(start(label) - 1);
        }
    }

    private static boolean sameKey(Integer a, Integer b) {
        return a != null && a.equals(b);
    }

    /** The entries the rule asks for, from the model alone. */
    private static Map<String, Map<List<ByteBuffer>, BucketEntries.Entry>> expected(BucketPeriod period, String key, List<V> vs, String lo,
            String hi, Predicate<String> wanted) {
        Calendar cal = new Calendar(period);
        Map<String, Map<List<ByteBuffer>, BucketEntries.Entry>> out = new TreeMap<>();
        if (vs.isEmpty() || lo.compareTo(hi) > 0) {
            return out;
        }
        for (String label = lo; label.compareTo(hi) <= 0; label = cal.next(label)) {
            if (!wanted.test(label)) {
                continue;
            }
            long start = cal.start(label);
            long end = cal.end(label);
            // the versions current at some moment of the bucket, by position
            Set<Integer> current = new HashSet<>();
            int atStart = -1;
            for (int i = 0; i < vs.size(); i++) {
                long t = vs.get(i).ticks();
                if (t < start) {
                    atStart = i; // current at the bucket's first timeuuid: every tid of the start's tick sorts after it
                }
                if (t >= start && t < end) {
                    current.add(i);
                }
            }
            if (atStart >= 0) {
                current.add(atStart);
            }
            Map<List<ByteBuffer>, BucketEntries.Entry> bucket = new LinkedHashMap<>();
            Set<Integer> lengths = new HashSet<>();
            for (int i : current) {
                if (vs.get(i).length() != null) {
                    lengths.add(vs.get(i).length());
                }
            }
            for (int length : lengths) {
                int first = Integer.MAX_VALUE;
                int latest = -1;
                for (int i : current) {
                    if (sameKey(vs.get(i).length(), length)) {
                        first = Math.min(first, i);
                        latest = Math.max(latest, i);
                    }
                }
                UUID deleted = null;
                for (int j = latest + 1; j < vs.size(); j++) {
                    if (!sameKey(vs.get(j).length(), length)) {
                        deleted = vs.get(j).tid();
                        break;
                    }
                }
                bucket.put(entryKey(length, key), new BucketEntries.Entry(vs.get(latest).tid(), vs.get(first).tid(), deleted,
                        Arrays.asList(text(vs.get(latest).value()))));
            }
            if (!bucket.isEmpty()) {
                out.put(label, bucket);
            }
        }
        return out;
    }

    // ----- readable renderings for failure messages

    private static String at(UUID tid) {
        return tid == null ? "-" : Tids.instant(tid) + "/" + Long.toHexString(tid.getLeastSignificantBits() & 0xFF);
    }

    private static String render(Map<String, Map<List<ByteBuffer>, BucketEntries.Entry>> m) {
        Map<String, Map<String, String>> out = new TreeMap<>();
        m.forEach((label, bucket) -> {
            Map<String, String> b = new TreeMap<>();
            bucket.forEach((k, e) -> b.put(new BigInteger(bytes(k.get(0))) + "/" + new String(bytes(k.get(1)), StandardCharsets.UTF_8),
                    "tid " + at(e.tid()) + " first " + at(e.first()) + " deleted " + at(e.deleted()) + " proj "
                            + e.proj().stream().map(p -> p == null ? "null" : new String(bytes(p), StandardCharsets.UTF_8)).toList()));
            out.put(label, b);
        });
        return out.toString();
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static String describe(List<V> vs) {
        StringBuilder sb = new StringBuilder();
        for (V v : vs) {
            sb.append("\n  ").append(at(v.tid())).append(" length ").append(v.length()).append(" value ").append(v.value());
        }
        return sb.toString();
    }

    private static void assertEntries(BucketPeriod period, TablePlan plan, String key, List<V> vs, String lo, String hi, Predicate<String> wanted,
            String what) {
        var want = expected(period, key, vs, lo, hi, wanted);
        var got = actual(plan, key, vs, lo, hi, wanted);
        String desc = what + ", " + period + " " + lo + ".." + hi + ", versions:" + describe(vs);
        assertThat(render(got)).as(desc).isEqualTo(render(want));
        assertThat(got).as(desc).isEqualTo(want);
    }

    // ----- the randomized comparison

    private static final long[] ANCHORS = {
        ticks("2012-12-31T00:00:00Z"), ticks("2013-01-01T00:00:00Z"), ticks("2012-02-29T00:00:00Z"), ticks("2013-03-01T00:00:00Z"),
        ticks("2012-11-30T12:00:00Z"),
    };

    private static boolean isMidnight(long ticks) {
        return Math.floorMod(ticks, TICKS_PER_DAY) == 0;
    }

    /** A random history: 1 to 12 versions, a few days around a month or year end, with the edge cases the rule names. */
    private static List<V> randomHistory(Random rnd, int row) {
        int n = 1 + rnd.nextInt(12);
        List<V> out = new ArrayList<>();
        long t = ANCHORS[rnd.nextInt(ANCHORS.length)] + (long) ((rnd.nextDouble() * 3 - 2) * TICKS_PER_DAY);
        if (rnd.nextInt(8) == 0) {
            t = Math.floorDiv(t, TICKS_PER_DAY) * TICKS_PER_DAY; // a first version at a bucket's start
        }
        long lsb = 1 + rnd.nextInt(50);
        Integer length = null;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                int step = rnd.nextInt(20);
                if (step == 0 && !isMidnight(t)) {
                    lsb++; // the same tick as the version before (not at a bucket start: see the report)
                } else {
                    lsb = 1 + rnd.nextInt(50);
                    if (step <= 3) {
                        t = (Math.floorDiv(t, TICKS_PER_DAY) + 1) * TICKS_PER_DAY; // exactly at the next day's start
                    } else if (step == 4) {
                        LocalDate d = LocalDate.ofEpochDay(Math.floorDiv(t, TICKS_PER_DAY));
                        t = d.withDayOfMonth(1).plusMonths(1).toEpochDay() * TICKS_PER_DAY; // exactly at the next month's start
                    } else if (step == 5) {
                        long midnight = (Math.floorDiv(t, TICKS_PER_DAY) + 1) * TICKS_PER_DAY;
                        t = midnight - 1 > t ? midnight - 1 : t + 1; // the last tick of its day
                    } else if (step == 6) {
                        t += 1 + (long) (rnd.nextDouble() * 70 * TICKS_PER_DAY); // a long gap, over months
                    } else {
                        t += 1 + (long) (rnd.nextDouble() * 0.8 * TICKS_PER_DAY);
                    }
                }
            }
            int k = rnd.nextInt(10);
            if (i == 0 || k >= 4) {
                length = k == 9 || (i == 0 && k == 0) ? null : 1 + rnd.nextInt(3); // null: no entry key
            } // else the same key as the version before
            String value = rnd.nextInt(20) == 0 ? null : "v" + row + "." + i;
            out.add(new V(t, lsb, length, value));
        }
        return out;
    }

    @Test
    void should_give_the_entries_of_the_oracle_when_histories_are_random() {
        long seed = seed();
        Random rnd = new Random(seed);
        Map<BucketPeriod, TablePlan> plans = Map.of(BucketPeriod.DAY, DAY_PLAN, BucketPeriod.MONTH, MONTH_PLAN, BucketPeriod.YEAR, YEAR_PLAN);
        int rows = 400;
        int nonEmpty = 0;
        int multiEntryBuckets = 0;
        for (int row = 0; row < rows; row++) {
            List<V> vs = randomHistory(rnd, row);
            for (BucketPeriod period : List.of(BucketPeriod.DAY, BucketPeriod.MONTH, BucketPeriod.YEAR)) {
                Calendar cal = new Calendar(period);
                // candidate labels: two buckets before the first version to two after the last
                List<String> labels = new ArrayList<>();
                String last = cal.next(cal.next(cal.label(vs.get(vs.size() - 1).ticks())));
                for (String l = cal.previous(cal.previous(cal.label(vs.get(0).ticks()))); l.compareTo(last) <= 0; l = cal.next(l)) {
                    labels.add(l);
                }
                String lo;
                String hi;
                int bounds = rnd.nextInt(10);
                if (bounds == 0) {
                    lo = labels.get(0);
                    hi = labels.get(labels.size() - 1);
                } else {
                    lo = labels.get(rnd.nextInt(labels.size()));
                    hi = labels.get(rnd.nextInt(labels.size()));
                    if (bounds <= 6 && lo.compareTo(hi) > 0) {
                        String x = lo;
                        lo = hi;
                        hi = x;
                    } // else sometimes lo > hi: nothing
                }
                Set<String> excluded = new HashSet<>();
                if (rnd.nextBoolean()) {
                    for (String l : labels) {
                        if (rnd.nextInt(4) == 0) {
                            excluded.add(l);
                        }
                    }
                }
                Predicate<String> wanted = l -> !excluded.contains(l);
                var want = expected(period, "k" + row, vs, lo, hi, wanted);
                var got = actual(plans.get(period), "k" + row, vs, lo, hi, wanted);
                String desc = "seed " + seed + ", row " + row + ", " + period + " " + lo + ".." + hi + " without " + new java.util.TreeSet<>(excluded)
                        + ", versions:" + describe(vs);
                assertThat(render(got)).as(desc).isEqualTo(render(want));
                assertThat(got).as(desc).isEqualTo(want);
                nonEmpty += want.isEmpty() ? 0 : 1;
                multiEntryBuckets += (int) want.values().stream().filter(b -> b.size() > 1).count();
            }
        }
        assertThat(nonEmpty).as("the histories give entries").isGreaterThan(rows);
        assertThat(multiEntryBuckets).as("buckets where a row has several keys").isGreaterThan(rows / 4);
    }

    // ----- hand-written cases

    @Test
    void should_give_an_entry_in_every_day_when_a_version_is_current_across_three_days() {
        V a = v("2012-12-30T12:00:00Z", 1, "a");
        V b = v("2013-01-01T12:00:00Z", 2, "b");
        var got = actual(DAY_PLAN, "k", List.of(a, b), "2012-12-29", "2013-01-03", l -> true);

        assertThat(got.keySet()).containsExactly("2012-12-30", "2012-12-31", "2013-01-01", "2013-01-02", "2013-01-03");
        BucketEntries.Entry old = new BucketEntries.Entry(a.tid(), a.tid(), b.tid(), List.of(text("a")));
        BucketEntries.Entry now = new BucketEntries.Entry(b.tid(), b.tid(), null, List.of(text("b")));
        assertThat(got.get("2012-12-30")).isEqualTo(Map.of(entryKey(1, "k"), old));
        assertThat(got.get("2012-12-31")).isEqualTo(Map.of(entryKey(1, "k"), old));
        assertThat(got.get("2013-01-01")).as("both were current that day").isEqualTo(Map.of(entryKey(1, "k"), old, entryKey(2, "k"), now));
        assertThat(got.get("2013-01-02")).isEqualTo(Map.of(entryKey(2, "k"), now));
        assertThat(got.get("2013-01-03")).as("the newest version is current from then on").isEqualTo(Map.of(entryKey(2, "k"), now));
    }

    @Test
    void should_give_one_entry_from_the_first_to_the_last_a_when_the_key_flips_a_b_a_inside_a_day() {
        V a1 = v("2012-12-31T10:00:00Z", 1, "a1");
        V b = v("2012-12-31T11:00:00Z", 2, "b");
        V a2 = v("2012-12-31T12:00:00Z", 1, "a2");
        var got = actual(DAY_PLAN, "k", List.of(a1, b, a2), "2012-12-31", "2013-01-01", l -> true);

        assertThat(got.get("2012-12-31")).isEqualTo(Map.of(
                entryKey(1, "k"), new BucketEntries.Entry(a2.tid(), a1.tid(), null, List.of(text("a2"))),
                entryKey(2, "k"), new BucketEntries.Entry(b.tid(), b.tid(), a2.tid(), List.of(text("b")))));
        assertThat(got.get("2013-01-01")).as("only the last A was current then").isEqualTo(Map.of(
                entryKey(1, "k"), new BucketEntries.Entry(a2.tid(), a2.tid(), null, List.of(text("a2")))));

        V c = v("2013-01-05T00:00:00Z", 3, "c");
        var later = actual(DAY_PLAN, "k", List.of(a1, b, a2, c), "2012-12-31", "2012-12-31", l -> true);
        assertThat(later.get("2012-12-31").get(entryKey(1, "k")).deleted()).as("deleted by a version days after the bucket").isEqualTo(c.tid());
    }

    @Test
    void should_leave_out_the_labels_the_predicate_refuses_when_some_are_not_wanted() {
        List<V> vs = List.of(v("2012-12-30T12:00:00Z", 1, "a"), v("2013-01-01T12:00:00Z", 2, "b"));
        var got = actual(DAY_PLAN, "k", vs, "2012-12-29", "2013-01-03", l -> !l.equals("2012-12-31") && !l.equals("2013-01-02"));

        assertThat(got.keySet()).containsExactly("2012-12-30", "2013-01-01", "2013-01-03");
        assertThat(actual(DAY_PLAN, "k", vs, "2012-12-29", "2013-01-03", l -> false)).isEmpty();
    }

    @Test
    void should_give_only_the_labels_from_lo_to_hi_when_bounds_are_narrow() {
        List<V> vs = List.of(v("2012-12-30T12:00:00Z", 1, "a"), v("2013-01-01T12:00:00Z", 2, "b"));

        assertThat(actual(DAY_PLAN, "k", vs, "2012-12-31", "2012-12-31", l -> true).keySet()).containsExactly("2012-12-31");
        assertThat(actual(DAY_PLAN, "k", vs, "2013-01-02", "2013-01-10", l -> true).keySet()).hasSize(9).startsWith("2013-01-02")
                .endsWith("2013-01-10");
        assertThat(actual(DAY_PLAN, "k", vs, "2013-01-01", "2012-12-31", l -> true)).as("lo after hi").isEmpty();
        assertThat(actual(DAY_PLAN, "k", vs, "2012-12-01", "2012-12-29", l -> true)).as("all before the first version").isEmpty();
        assertThat(actual(DAY_PLAN, "k", List.of(), "2012-12-01", "2013-12-29", l -> true)).as("no versions").isEmpty();
    }

    @Test
    void should_leave_a_version_out_of_a_bucket_when_it_was_replaced_before_the_bucket_start() {
        V a = v("2012-12-31T10:00:00Z", 1, "a");
        V b = v("2012-12-31T23:59:59.9999999Z", 2, "b");
        var days = actual(DAY_PLAN, "k", List.of(a, b), "2012-12-31", "2013-01-01", l -> true);
        assertThat(days.get("2012-12-31")).containsOnlyKeys(entryKey(1, "k"), entryKey(2, "k"));
        assertThat(days.get("2013-01-01")).containsOnlyKeys(entryKey(2, "k"));
        var months = actual(MONTH_PLAN, "k", List.of(a, b), "2012-12", "2013-01", l -> true);
        assertThat(months.get("2013-01")).containsOnlyKeys(entryKey(2, "k"));
    }

    @Test
    void should_keep_a_version_in_a_bucket_when_it_was_replaced_in_the_bucket_start_tick() {
        V a = v("2012-12-31T10:00:00Z", 1, "a");
        V b = v("2013-01-01T00:00:00Z", 2, "b");
        // the bucket's first timeuuid (as_of=2013-01-01T00:00:00Z) sorts before every tid of its tick, b's too: a is current then
        assertThat(actual(DAY_PLAN, "k", List.of(a, b), "2013-01-01", "2013-01-01", l -> true).get("2013-01-01"))
                .containsOnlyKeys(entryKey(1, "k"), entryKey(2, "k"));
        V b1 = v("2013-01-01T00:00:00.0000001Z", 2, "b");
        assertThat(actual(DAY_PLAN, "k", List.of(a, b1), "2013-01-01", "2013-01-01", l -> true).get("2013-01-01"))
                .as("replaced one tick after the start: current at the start").containsOnlyKeys(entryKey(1, "k"), entryKey(2, "k"));
    }

    @Test
    void should_count_a_version_without_a_key_as_another_key_when_a_length_is_null() {
        V a1 = v("2012-12-30T10:00:00Z", 1, "a1");
        V none = v("2012-12-30T20:00:00Z", null, "x");
        V a2 = v("2013-01-01T10:00:00Z", 1, "a2");
        var got = actual(DAY_PLAN, "k", List.of(a1, none, a2), "2012-12-30", "2013-01-01", l -> true);

        assertThat(got.keySet()).as("no version with a key was current on 2012-12-31").containsExactly("2012-12-30", "2013-01-01");
        assertThat(got.get("2012-12-30")).isEqualTo(Map.of(entryKey(1, "k"), new BucketEntries.Entry(a1.tid(), a1.tid(), none.tid(), List.of(text("a1")))));
        assertThat(got.get("2013-01-01")).isEqualTo(Map.of(entryKey(1, "k"), new BucketEntries.Entry(a2.tid(), a2.tid(), null, List.of(text("a2")))));
    }

    @Test
    void should_give_an_entry_in_every_month_when_a_version_is_current_over_months() {
        V a = v("2012-11-15T00:00:00Z", 1, "a");
        V b = v("2013-02-10T00:00:00Z", 1, "b");
        V c = v("2013-02-20T00:00:00Z", 2, "c");
        var got = actual(MONTH_PLAN, "k", List.of(a, b, c), "2012-10", "2013-03", l -> true);

        assertThat(got.keySet()).containsExactly("2012-11", "2012-12", "2013-01", "2013-02", "2013-03");
        BucketEntries.Entry onlyA = new BucketEntries.Entry(a.tid(), a.tid(), c.tid(), List.of(text("a")));
        assertThat(got.get("2012-12")).isEqualTo(Map.of(entryKey(1, "k"), onlyA));
        assertThat(got.get("2013-01")).isEqualTo(Map.of(entryKey(1, "k"), onlyA));
        assertThat(got.get("2013-02")).as("the same key twice: first a, latest b, the projection b's").isEqualTo(Map.of(
                entryKey(1, "k"), new BucketEntries.Entry(b.tid(), a.tid(), c.tid(), List.of(text("b"))),
                entryKey(2, "k"), new BucketEntries.Entry(c.tid(), c.tid(), null, List.of(text("c")))));
        assertThat(got.get("2013-03")).containsOnlyKeys(entryKey(2, "k"));
    }

    @Test
    void should_agree_with_the_oracle_when_the_hand_written_histories_are_checked() {
        List<V> flips = List.of(v("2012-12-31T10:00:00Z", 1, "a1"), v("2012-12-31T11:00:00Z", 2, "b"), v("2012-12-31T12:00:00Z", 1, "a2"),
                v("2013-01-01T00:00:00Z", null, "x"), v("2013-01-01T00:00:00.0000001Z", 1, "a3"));
        assertEntries(BucketPeriod.DAY, DAY_PLAN, "k", flips, "2012-12-30", "2013-01-02", l -> true, "flips");
        assertEntries(BucketPeriod.MONTH, MONTH_PLAN, "k", flips, "2012-11", "2013-02", l -> true, "flips");
        assertEntries(BucketPeriod.YEAR, YEAR_PLAN, "k", flips, "2011", "2014", l -> true, "flips");
    }

    /**
     * At timeuuid resolution a version replaced by a tid in the
     * very tick a bucket starts is still current for a query time in that tick that sorts before
     * the replacing tid; such a query time (an {@code as_of} timeuuid) lies in the bucket, so the
     * bucket must hold the replaced version's entry for a read as of it (docs/design.md section
     * 8.2: the version current at q is the greatest tid at or before q). {@link BucketEntries}
     * leaves it out (it compares instants, not tids). The brief's rule "a version replaced exactly
     * at start(L) was not current in L" holds at instant resolution only.
     */
    @Test
    void should_keep_the_replaced_version_when_a_query_tid_in_the_start_tick_sorts_before_the_replacing_tid() {
        V a = v("2012-12-31T10:00:00Z", 1, "a");
        long start = ticks("2013-01-01T00:00:00Z");
        V b = new V(start, 40, 2, "b");
        UUID q = Tids.fromTicks(start, 3); // as_of=<this timeuuid>: in 2013-01-01, before b
        assertThat(Tids.compare(q, b.tid())).isNegative();
        assertThat(Tids.compare(q, a.tid())).isPositive();

        var got = actual(DAY_PLAN, "k", List.of(a, b), "2013-01-01", "2013-01-01", l -> true);
        assertThat(got.get("2013-01-01")).as("a is the version current at q, which lies in 2013-01-01").containsKey(entryKey(1, "k"));
    }
}
