package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.schema.BucketPeriod;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Reads of a bucketed table judged against the oracle, as the bucket suites do (docs/design.md
 * sections 3.7 and 8.2): the table {@code revisions} with a day-bucketed, a month-bucketed and a
 * two-column day-bucketed index, reads as of past moments and in windows (one bucket or several,
 * merged) in pages of 1 to 9, and the buckets' states.
 */
final class BucketReads {
    static final String DEFINITION = """
            {"keyspace": "%s", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                             {"type": "bucket", "period": "day"}],
               "by_length_key": [{"type": "hash", "attribute": "length"}, {"type": "range", "attribute": "key"},
                                 {"type": "bucket", "period": "month"}],
               "by_length_value": [{"type": "hash", "attribute": "length"}, {"type": "range", "attribute": "value"},
                                   {"type": "bucket", "period": "day"}],
               "by_length_value_desc": [{"type": "hash", "attribute": "length"}, {"type": "range", "order": "desc", "attribute": "value"},
                                        {"type": "range", "order": "desc", "attribute": "key"}, {"type": "bucket", "period": "day"}]}}
            """;
    static final List<String> INDEXES = List.of("by_length", "by_length_key");
    /** An index whose bucket partitions cluster by two columns (value, key): windows over several buckets read with bounds on value. */
    static final String BY_VALUE = "by_length_value";
    /** As {@link #BY_VALUE}, both clustering columns descending: merged windows resume with {@code <} and keep the lower bound. */
    static final String BY_VALUE_DESC = "by_length_value_desc";
    /** How far apart the history's tids are spread: 12 million times as far as the run draws them (about 60 days). */
    static final long STRETCH = 12_000_000;

    private final String name;
    private final CqlSession session;
    private final String ks;
    private final HistoryRun run;
    private final IndexReader reader;
    private final long seed;

    /** {@code name}: the suite, for the printed figures. */
    BucketReads(String name, CqlSession session, String ks, HistoryRun run, IndexReader reader, long seed) {
        this.name = name;
        this.session = session;
        this.ks = ks;
        this.run = run;
        this.reader = reader;
        this.seed = seed;
    }

    /** Reads as of past moments and in windows, eventual in pages of 1 to 9 and consistent, equal the oracle. */
    void readAndJudge(String phase, Random rnd) {
        List<UUID> times = queryTimes(rnd, 60);
        int reads = 0;
        int withItems = 0;
        for (UUID q : times) {
            String index = INDEXES.get(rnd.nextInt(INDEXES.size()));
            long length = rnd.nextInt(4);
            Map<String, String> want = expected(index, length, run.oracle.matchesAt(index, q));
            IndexReader.Query query = IndexReader.Query.of(ks, "revisions", index, String.valueOf(length)).withAsOf(q.toString());
            assertThat(keysAndTids(readAll(query, rnd))).as("seed %d %s: %s as of %s length %d", seed, phase, index, q, length).isEqualTo(want);
            assertThat(keysAndTids(readAll(query.withConsistent(true), rnd))).as("seed %d %s: consistent %s as of %s", seed, phase, index, q)
                    .isEqualTo(want);
            withItems += want.isEmpty() ? 0 : 1;
            reads++;
        }
        for (int n = 0; n < 40; n++) {
            UUID a = times.get(rnd.nextInt(times.size()));
            // narrow windows (up to about a day of the warped history: often inside one bucket) and wide ones
            long span = n % 3 == 0 ? WriteTimestamps.of(times.get(rnd.nextInt(times.size()))) - WriteTimestamps.of(a)
                    : 1 + (long) (rnd.nextDouble() * 864_000_000_000L);
            if (span <= 0) {
                continue;
            }
            UUID b = Tids.maxAtTicks(WriteTimestamps.of(a) + span);
            String index = INDEXES.get(rnd.nextInt(INDEXES.size()));
            long length = rnd.nextInt(4);
            IndexReader.Query query = IndexReader.Query.of(ks, "revisions", index, String.valueOf(length)).withWindow(a.toString(), b.toString());
            Map<String, String> want = expected(index, length, run.oracle.matchesWithin(index, a, Tids.maxAtTicks(WriteTimestamps.of(b) - 1)));
            assertThat(keysAndTids(readAll(query, rnd))).as("seed %d %s: %s window %s..%s length %d", seed, phase, index, a, b, length)
                    .isEqualTo(want);
            withItems += want.isEmpty() ? 0 : 1;
            reads++;
        }
        for (int n = 0; n < 56; n++) {
            // windows of 1 to 20 days: several day buckets, merged on two clustering columns. In turn: ascending with
            // bounds on value; descending (resumed with <, the lower bound kept) with bounds on value; ascending with
            // the value fixed by the path (the resume's tuple slice beside a second one over it); descending with the
            // value fixed and bounds on key (their far side, the lower bound, in that second slice)
            boolean desc = n % 2 == 1;
            boolean fixValue = n % 4 >= 2;
            String index = desc ? BY_VALUE_DESC : BY_VALUE;
            UUID a = times.get(rnd.nextInt(times.size()));
            UUID b = Tids.maxAtTicks(WriteTimestamps.of(a) + 864_000_000_000L * (1 + rnd.nextInt(20)));
            long length = rnd.nextInt(4);
            Map<List<ByteBuffer>, UUID> within = run.oracle.matchesWithin(index, a, Tids.maxAtTicks(WriteTimestamps.of(b) - 1));
            List<String> values = valuesKeysTids(length, e -> true, false, within);
            String value = !fixValue ? null
                    : values.isEmpty() ? "v" + rnd.nextInt(1000) : values.get(rnd.nextInt(values.size())).split(" ")[0];
            int bounded = fixValue ? 1 : 0; // the bounds are on value, or on key (the range attribute after a fixed value)
            boolean bounds = !fixValue || desc; // the ascending index has no range attribute after value
            String ge = !bounds || rnd.nextBoolean() ? null : fixValue ? "k" + rnd.nextInt(30) : "v" + rnd.nextInt(1000);
            String lt = !bounds || rnd.nextBoolean() ? null : fixValue ? "k" + rnd.nextInt(30) : "v" + rnd.nextInt(1000);
            List<String> path = fixValue ? List.of(String.valueOf(length), value) : List.of(String.valueOf(length));
            IndexReader.Query query = IndexReader.Query.of(ks, "revisions", index, path.toArray(String[]::new))
                    .withWindow(a.toString(), b.toString()).withBounds(null, ge, lt, null);
            List<String> want = valuesKeysTids(length, e -> (value == null || e[0].equals(value)) && (ge == null || e[bounded].compareTo(ge) >= 0)
                    && (lt == null || e[bounded].compareTo(lt) < 0), desc, within);
            List<String> got = readAll(query, rnd).stream().map(i -> i.get("value") + " " + i.get("key") + " " + i.get("tid")).toList();
            assertThat(got).as("seed %d %s: %s path %s window %s..%s bounds [%s, %s)", seed, phase, index, path, a, b, ge, lt).isEqualTo(want);
            withItems += want.isEmpty() ? 0 : 1;
            reads++;
        }
        System.out.printf("%s %s: %d reads, %d with items (so far %d merged reads, %d read again after a reseal)%n", name, phase, reads, withItems,
                reader.mergedReads.sum(), reader.resealedReads.sum());
        assertThat(withItems).as("seed %d %s: reads that hold rows", seed, phase).isGreaterThan(10);
    }

    /** The oracle's rows with length {@code length} among {@code matches} (entry key -> tid), key to tid, in index order. */
    private static Map<String, String> expected(String index, long length, Map<List<ByteBuffer>, UUID> matches) {
        ByteBuffer l = ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray());
        TreeMap<String, String> out = new TreeMap<>();
        for (Map.Entry<List<ByteBuffer>, UUID> e : matches.entrySet()) {
            if (e.getKey().get(0).equals(l)) {
                out.put(StandardCharsets.UTF_8.decode(e.getKey().get(1).duplicate()).toString(), e.getValue().toString());
            }
        }
        return out;
    }

    /**
     * The oracle's entries of {@link #BY_VALUE} or {@link #BY_VALUE_DESC} (entry key: length, value,
     * key) with length {@code length} whose {value, key} {@code keep} accepts, as "value key tid" in
     * index order: ascending, or descending on both.
     */
    private static List<String> valuesKeysTids(long length, java.util.function.Predicate<String[]> keep, boolean descending,
            Map<List<ByteBuffer>, UUID> matches) {
        ByteBuffer l = ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray());
        TreeMap<String, String> out = new TreeMap<>(descending ? java.util.Comparator.<String>reverseOrder() : java.util.Comparator.<String>naturalOrder());
        for (Map.Entry<List<ByteBuffer>, UUID> e : matches.entrySet()) {
            String value = StandardCharsets.UTF_8.decode(e.getKey().get(1).duplicate()).toString();
            String key = StandardCharsets.UTF_8.decode(e.getKey().get(2).duplicate()).toString();
            if (e.getKey().get(0).equals(l) && keep.test(new String[] {value, key})) {
                out.put(value + " " + key, value + " " + key + " " + e.getValue()); // values and keys are ASCII: String order is Cassandra's
            }
        }
        return new ArrayList<>(out.values());
    }

    private static List<String> valuesKeysTids(long length, String ge, String lt, Map<List<ByteBuffer>, UUID> matches) {
        ByteBuffer l = ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray());
        TreeMap<String, String> out = new TreeMap<>();
        for (Map.Entry<List<ByteBuffer>, UUID> e : matches.entrySet()) {
            String value = StandardCharsets.UTF_8.decode(e.getKey().get(1).duplicate()).toString();
            String key = StandardCharsets.UTF_8.decode(e.getKey().get(2).duplicate()).toString();
            if (e.getKey().get(0).equals(l) && (ge == null || value.compareTo(ge) >= 0) && (lt == null || value.compareTo(lt) < 0)) {
                out.put(value + " " + key, value + " " + key + " " + e.getValue()); // values and keys are ASCII: String order is Cassandra's
            }
        }
        return new ArrayList<>(out.values());
    }

    private static Map<String, String> keysAndTids(List<Map<String, Object>> items) {
        return PagedReads.keysAndTids(items);
    }

    /** Every page of a read, with limits from 1 to 9, no item twice, every page as of the first's moment. */
    private List<Map<String, Object>> readAll(IndexReader.Query q, Random rnd) {
        return PagedReads.readAll(reader, q, rnd, new Instant[1]);
    }

    /** Moments of the history: its tids, a tick either side, and the starts of day buckets it spans. */
    private List<UUID> queryTimes(Random rnd, int n) {
        List<UUID> tids = new ArrayList<>();
        run.oracle.rows().values().forEach(m -> tids.addAll(m.keySet()));
        List<UUID> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            UUID t = tids.get(rnd.nextInt(tids.size()));
            int form = rnd.nextInt(3);
            out.add(form == 0 ? t : form == 1 ? Tids.maxAtTicks(WriteTimestamps.of(t) + rnd.nextInt(3) - 1)
                    : Tids.minAtTicks(Tids.ticks(BucketPeriod.DAY.start(BucketPeriod.DAY.label(Tids.instant(t))))));
        }
        return out;
    }

    Map<String, Map<String, BucketsTable.State>> states() {
        BucketsTable table = new BucketsTable(session, "gsi");
        Map<String, Map<String, BucketsTable.State>> out = new LinkedHashMap<>();
        for (String index : List.of(INDEXES.get(0), INDEXES.get(1), BY_VALUE, BY_VALUE_DESC)) {
            out.put(index, table.all(ks, "revisions", index, ConsistencyLevel.LOCAL_QUORUM));
        }
        return out;
    }

    Map<String, Integer> validBuckets() {
        Map<String, Integer> out = new LinkedHashMap<>();
        states().forEach((index, byLabel) -> out.put(index, (int) byLabel.values().stream().filter(BucketsTable.State::valid).count()));
        return out;
    }

    void awaitSealed(Duration timeout) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeout.toMillis();
        while (System.currentTimeMillis() < deadline && !allSealed()) {
            Thread.sleep(500);
        }
    }

    /** Whether every bucket with a row that may be sealed by now has a valid seal. */
    boolean allSealed() {
        Map<String, BucketPeriod> periods = Map.of("by_length", BucketPeriod.DAY, "by_length_key", BucketPeriod.MONTH, BY_VALUE, BucketPeriod.DAY,
                BY_VALUE_DESC, BucketPeriod.DAY);
        for (Map.Entry<String, Map<String, BucketsTable.State>> e : states().entrySet()) {
            String last = io.cassandragsi.repair.jobs.BucketSeal.lastSealable(periods.get(e.getKey()), Instant.now());
            for (Map.Entry<String, BucketsTable.State> b : e.getValue().entrySet()) {
                if (b.getKey().compareTo(last) <= 0 && !b.getValue().valid()) {
                    return false;
                }
            }
        }
        return true;
    }
}
