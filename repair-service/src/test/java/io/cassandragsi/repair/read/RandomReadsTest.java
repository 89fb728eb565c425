package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The read path below the reader (docs/design.md sections 8.2 to 8.5: planner, sources, pager,
 * base checks), run over in-memory stores ({@link MemoryReadStores}) on random histories ({@link
 * ReadHistory}) and judged by {@link ReadOracle}: every read kind (eventual and consistent as of
 * now and as of a past moment, windows with both ends, one or none, as_of=safe and fresh) in
 * pages of every size from 1 to a few more than the answer holds, through the index table and
 * through buckets (one and several). Any difference fails the test. Prints its seed; {@code
 * -Dgsi.seed=N} replays.
 */
class RandomReadsTest {
    private static final int HISTORIES = 300;
    private static final TableDef DEF = Definitions.parse(ReadHistory.DEFINITION, "revisions.json");
    private static final TablePlan TABLE = TablePlan.of(DEF);
    private static final IndexPlan PLAN = TABLE.indexes().get(0);
    private static final ItemLayout LAYOUT = ItemLayout.of(DEF, PLAN.index());

    private final LongAdder bucketReads = new LongAdder();
    private final LongAdder mergedReads = new LongAdder();
    private final LongAdder falsePositives = new LongAdder();
    private final ReadRepair repair = new ReadRepair(null, ConsistencyLevel.ONE, new LongAdder());
    private final PageToken tokens = PageToken.randomKey();
    private final ReadPath path = new ReadPath(tokens, new Pager(tokens, new BaseChecker(4, repair, new LongAdder(), falsePositives)), new LongAdder(),
            bucketReads, mergedReads);
    private int reads;
    private int pages;

    @AfterEach
    void close() {
        repair.close();
    }

    private static long seed() {
        long seed = Long.getLong("gsi.seed", System.nanoTime());
        System.out.println("RandomReadsTest seed " + seed + " (replay with -Dgsi.seed=" + seed + ")");
        return seed;
    }

    /** One query and what it must answer, with the time the reader would read it at when the request fixes none. */
    private record Case(String name, IndexReader.Query query, UUID readTime, List<ReadOracle.Expected> expected, boolean consistent) {}

    @Test
    void should_answer_every_read_kind_as_the_oracle_at_every_page_size() {
        long seed = seed();
        Random random = new Random(seed);
        for (int h = 0; h < HISTORIES; h++) {
            ReadHistory history = new ReadHistory(random);
            ReadOracle oracle = new ReadOracle(history.rows);
            MemoryReadStores repaired = history.stores(PLAN.index(), false);
            MemoryReadStores stale = history.stores(PLAN.index(), true);
            int length = 1 + random.nextInt(ReadHistory.LENGTHS);
            for (Case c : cases(history, oracle, length, random)) {
                for (int limit = 1; limit <= c.expected().size() + 2; limit++) {
                    String where = "seed " + seed + ", history " + h + " " + history.rows + ", " + c.name() + ", length " + length + ", limit " + limit;
                    assertThat(readAll(c, limit, c.consistent() ? stale : repaired, where)).as(where).isEqualTo(c.expected());
                }
            }
        }
        System.out.printf("RandomReadsTest: %d histories, %d reads, %d pages; first pages through one bucket %d, through several %d;"
                + " false positives dropped %d%n", HISTORIES, reads, pages, bucketReads.sum(), mergedReads.sum(), falsePositives.sum());
        assertThat(bucketReads.sum()).as("reads through one bucket").isPositive();
        assertThat(mergedReads.sum()).as("reads through several buckets").isPositive();
        assertThat(falsePositives.sum()).as("stale entries the base checks dropped").isPositive();
    }

    private List<Case> cases(ReadHistory history, ReadOracle oracle, int length, Random random) {
        IndexReader.Query q = IndexReader.Query.of("ks", "revisions", "by_length", String.valueOf(length));
        UUID now = Tids.maxAtTicks(Tids.ticks(java.time.Instant.now()));
        UUID at = history.between();
        UUID a = history.between();
        UUID b = history.between();
        UUID from = Tids.compare(a, b) <= 0 ? a : b;
        UUID until = Tids.compare(a, b) <= 0 ? b : a;
        UUID safe = history.between();
        UUID arrival = history.between();
        List<Case> cases = new ArrayList<>();
        for (boolean consistent : new boolean[] {false, true}) {
            String kind = consistent ? "consistent " : "eventual ";
            IndexReader.Query c = q.withConsistent(consistent);
            cases.add(new Case(kind + "as of now", c, now, oracle.at(length, Long.MAX_VALUE), consistent));
            cases.add(new Case(kind + "as of " + at, c.withAsOf(at.toString()), null, oracle.at(length, at.timestamp()), consistent));
            cases.add(new Case(kind + "window " + from + ".." + until, c.withWindow(from.toString(), until.toString()), null,
                    oracle.window(length, from.timestamp(), until.timestamp()), consistent));
            cases.add(new Case(kind + "window until " + until, c.withWindow(null, until.toString()), null,
                    oracle.window(length, Long.MIN_VALUE, until.timestamp()), consistent));
            cases.add(new Case(kind + "window from " + from, c.withWindow(from.toString(), null), Tids.maxAtTicks(Tids.ticks(java.time.Instant.now()) - 1),
                    oracle.window(length, from.timestamp(), Long.MAX_VALUE), consistent));
        }
        cases.add(new Case("as_of=safe at " + safe, q.withAsOf("safe"), safe, oracle.at(length, safe.timestamp()), false));
        cases.add(new Case("fresh at " + arrival, q.fresh(), arrival, oracle.at(length, arrival.timestamp()), false));
        return cases;
    }

    /** Every page of a read, at {@code limit} items a page: the items of all, checking each page's size and token. */
    private List<ReadOracle.Expected> readAll(Case c, int limit, MemoryReadStores stores, String where) {
        ReadPath.Target target = new ReadPath.Target(DEF, TABLE, PLAN, LAYOUT, stores);
        List<ReadOracle.Expected> out = new ArrayList<>();
        IndexReader.Query query = c.query().withLimit(limit);
        reads++;
        for (int page = 0;; page++) {
            assertThat(page).as("pages of %s", where).isLessThanOrEqualTo(c.expected().size() + 2);
            ReadRequest request = ReadRequest.parse(query, DEF, PLAN.index());
            UUID readTime = request.fixedTime() != null ? request.fixedTime() : c.readTime();
            IndexReader.Page p = path.page(request, target, readTime).join();
            pages++;
            for (Map<String, Object> item : p.items()) {
                out.add(new ReadOracle.Expected(item.get("key").toString(), UUID.fromString(item.get("tid").toString()), item.get("value").toString()));
            }
            if (p.next() == null) {
                assertThat(p.items().size()).as("last page of %s", where).isLessThanOrEqualTo(limit);
                return out;
            }
            assertThat(p.items()).as("a page with a next token is full: %s", where).hasSize(limit);
            query = query.withNext(p.next());
        }
    }
}
