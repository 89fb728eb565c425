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
 * ReadHistory}) and judged by {@link ReadOracle}: on a versioned table every read kind (eventual
 * and consistent as of now and as of a past moment, windows with both ends, one or none,
 * as_of=safe and fresh), of an index of the row key and of a per-version index (the tid in its
 * key, newest first), on an unversioned one reads as of now, eventual and consistent, in
 * pages of every size from 1 to a few more than the answer holds, through the index table and
 * through buckets (one and several); and the same reads while writers add versions between their
 * pages, and while their buckets are sealed again (a later page may then be refused, never
 * wrong). Any difference fails the test. Prints its seed; {@code -Dgsi.seed=N} replays.
 */
class RandomReadsTest {
    private static final int HISTORIES = 300;

    /** A table and its one index, as the read path takes them. */
    private record Table(TableDef def, TablePlan plan, IndexPlan index, ItemLayout layout) {
        static Table of(String definition) {
            TableDef def = Definitions.parse(definition, "table.json");
            TablePlan plan = TablePlan.of(def);
            return new Table(def, plan, plan.indexes().get(0), ItemLayout.of(def, plan.indexes().get(0).index()));
        }
    }

    private static final Table VERSIONED = Table.of(ReadHistory.DEFINITION);
    private static final Table UNVERSIONED = Table.of(ReadHistory.UNVERSIONED);
    private static final Table PER_VERSION = Table.of(ReadHistory.PER_VERSION);

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

    /** An unversioned table's item carries no tid. */
    private static List<ReadOracle.Expected> withoutTid(List<ReadOracle.Expected> items) {
        return items.stream().map(e -> new ReadOracle.Expected(e.key(), null, e.value())).toList();
    }

    @Test
    void should_answer_every_read_kind_as_the_oracle_at_every_page_size() {
        long seed = seed();
        Random random = new Random(seed);
        for (int h = 0; h < HISTORIES; h++) {
            boolean versioned = h % 4 != 3;
            Table table = !versioned ? UNVERSIONED : h % 4 == 2 ? PER_VERSION : VERSIONED;
            ReadHistory history = new ReadHistory(random, versioned);
            ReadOracle oracle = new ReadOracle(history.rows);
            MemoryReadStores repaired = history.stores(table.index().index(), false);
            MemoryReadStores stale = history.stores(table.index().index(), true);
            int length = 1 + random.nextInt(ReadHistory.LENGTHS);
            for (Case c : table == UNVERSIONED ? unversionedCases(oracle, length) : cases(table, history, oracle, length)) {
                for (int limit = 1; limit <= c.expected().size() + 2; limit++) {
                    String where = "seed " + seed + ", history " + h + " " + history.rows + ", " + c.name() + ", length " + length + ", limit " + limit;
                    MemoryReadStores stores = c.consistent() ? stale : repaired;
                    assertThat(readAll(table, c, limit, () -> stores, () -> {}, where)).as(where).isEqualTo(c.expected());
                }
            }
        }
        System.out.printf("RandomReadsTest: %d histories, %d reads, %d pages; first pages through one bucket %d, through several %d;"
                + " false positives dropped %d%n", HISTORIES, reads, pages, bucketReads.sum(), mergedReads.sum(), falsePositives.sum());
        assertThat(bucketReads.sum()).as("reads through one bucket").isPositive();
        assertThat(mergedReads.sum()).as("reads through several buckets").isPositive();
        assertThat(falsePositives.sum()).as("stale entries the base checks dropped").isPositive();
    }

    /**
     * A read's pages as of a moment stay exact while writers add versions between its pages: each
     * page reads the index and buckets as they are then (entries rewritten, marks added, new rows),
     * and every new version is later than the read's query time, so the answer is the oracle's as
     * of that time, computed before the first page (docs/design.md section 8.5). Versioned tables:
     * an unversioned one keeps no history, so a row rewritten after q leaves an eventual read at q.
     */
    @Test
    void should_answer_as_the_oracle_when_rows_are_written_between_pages() {
        long seed = seed();
        Random random = new Random(seed);
        int[] written = {0};
        // after every read's query time, and the same for every write: the seed replays the order of the versions written
        java.time.Instant after = java.time.Instant.now().plusSeconds(3600);
        onVersionedCases(seed, random, 3, List.of(VERSIONED, PER_VERSION), (table, history, c, where) -> {
            Runnable write = () -> {
                // now and then many: more entries before the page's last row than a resumed fetch has room for
                for (int w = random.nextInt(4) == 0 ? 10 + random.nextInt(20) : random.nextInt(3); w >= 0; w--) {
                    history.writeAfter(after);
                    written[0]++;
                }
            };
            assertThat(readAll(table, c.read(), c.limit(), c.stores(), write, where)).as(where).isEqualTo(c.read().expected());
        });
        System.out.printf("RandomReadsTest, writes between pages: %d histories, %d versions written between pages%n", HISTORIES / 3, written[0]);
        assertThat(written[0]).as("versions written between pages").isPositive();
    }

    /**
     * A read's pages while its buckets are sealed again (docs/design.md sections 8.2 and 9.4): each
     * page answers exactly as the oracle, or a later page fails with 400 {@code bad_next} (its
     * entries would mix two seals) and a read from the first page is exact again. Never a wrong row.
     */
    @Test
    void should_answer_as_the_oracle_or_refuse_the_page_when_buckets_are_sealed_again_mid_read() {
        long seed = seed();
        Random random = new Random(seed);
        int[] exactAndRefused = {0, 0};
        onVersionedCases(seed, random, 2, List.of(VERSIONED), (table, history, c, where) -> {
            Runnable reseal = () -> history.reseal(VERSIONED.index().index().bucket());
            history.finishSeals();
            try {
                assertThat(readAll(VERSIONED, c.read(), c.limit(), c.stores(), reseal, where)).as(where).isEqualTo(c.read().expected());
                exactAndRefused[0]++;
            } catch (java.util.concurrent.CompletionException e) {
                assertThat(e.getCause()).as(where).isInstanceOf(ReadException.class);
                assertThat(((ReadException) e.getCause()).error()).as(where).isEqualTo("bad_next");
                exactAndRefused[1]++;
                history.finishSeals();
                assertThat(readAll(VERSIONED, c.read(), c.limit(), c.stores(), () -> {}, where)).as("read again: " + where)
                        .isEqualTo(c.read().expected());
            }
        });
        System.out.printf("RandomReadsTest, buckets sealed again mid-read: %d reads exact, %d refused with bad_next and exact when read again%n",
                exactAndRefused[0], exactAndRefused[1]);
        assertThat(exactAndRefused[1]).as("reads that met a seal in progress on a later page").isPositive();
    }

    /** One read of a versioned history at one page size, with the twin built afresh for each page. */
    private record Paged(Case read, int limit, java.util.function.Supplier<MemoryReadStores> stores) {}

    private interface PagedCheck {
        void check(Table table, ReadHistory history, Paged paged, String where);
    }

    /** Runs {@code check} on every read kind of {@code HISTORIES / 3} versioned histories, each of one of {@code tables}, at page sizes 1 to {@code maxLimit}. */
    private void onVersionedCases(long seed, Random random, int maxLimit, List<Table> tables, PagedCheck check) {
        for (int h = 0; h < HISTORIES / 3; h++) {
            Table table = tables.get(h % tables.size());
            ReadHistory history = new ReadHistory(random, true);
            ReadOracle oracle = new ReadOracle(history.rows);
            int length = 1 + random.nextInt(ReadHistory.LENGTHS);
            for (Case c : cases(table, history, oracle, length)) {
                for (int limit = 1; limit <= maxLimit; limit++) {
                    String where = "seed " + seed + ", history " + h + " " + history.rows + ", " + table.index().index().name() + " " + c.name()
                            + ", length " + length + ", limit " + limit;
                    check.check(table, history, new Paged(c, limit, () -> history.stores(table.index().index(), c.consistent())), where);
                }
            }
        }
    }

    /** An unversioned table keeps no history: its reads as of now, eventual and consistent (the base's current rows). */
    private static List<Case> unversionedCases(ReadOracle oracle, int length) {
        IndexReader.Query q = IndexReader.Query.of("ks", "users", "by_length", String.valueOf(length));
        UUID now = Tids.maxAtTicks(Tids.ticks(java.time.Instant.now()));
        List<ReadOracle.Expected> expected = withoutTid(oracle.at(length, Long.MAX_VALUE));
        return List.of(new Case("unversioned eventual as of now", q, now, expected, false),
                new Case("unversioned consistent as of now", q.withConsistent(true), now, expected, true));
    }

    /**
     * Every read kind of a versioned table's index: of {@link #VERSIONED}'s, a row's version
     * current at a moment or the latest in a window; of {@link #PER_VERSION}'s, every version up
     * to the read's moment (a window's end: design.md section 8.2).
     */
    private List<Case> cases(Table table, ReadHistory history, ReadOracle oracle, int length) {
        boolean perVersion = table.index().perVersion();
        IndexReader.Query q = IndexReader.Query.of("ks", "revisions", table.index().index().name(), String.valueOf(length));
        UUID now = Tids.maxAtTicks(Tids.ticks(java.time.Instant.now()));
        UUID at = history.between();
        UUID a = history.between();
        UUID b = history.between();
        UUID from = Tids.compare(a, b) <= 0 ? a : b;
        UUID until = Tids.compare(a, b) <= 0 ? b : a;
        UUID safe = history.between();
        UUID arrival = history.between();
        java.util.function.BiFunction<Long, Long, List<ReadOracle.Expected>> window = perVersion ? (f, u) -> oracle.versions(length, u)
                : (f, u) -> oracle.window(length, f, u);
        java.util.function.LongFunction<List<ReadOracle.Expected>> moment = perVersion ? t -> oracle.versions(length, t) : t -> oracle.at(length, t);
        List<Case> cases = new ArrayList<>();
        for (boolean consistent : new boolean[] {false, true}) {
            String kind = consistent ? "consistent " : "eventual ";
            IndexReader.Query c = q.withConsistent(consistent);
            cases.add(new Case(kind + "as of now", c, now, moment.apply(Long.MAX_VALUE), consistent));
            cases.add(new Case(kind + "as of " + at, c.withAsOf(at.toString()), null, moment.apply(at.timestamp()), consistent));
            cases.add(new Case(kind + "window " + from + ".." + until, c.withWindow(from.toString(), until.toString()), null,
                    window.apply(from.timestamp(), until.timestamp()), consistent));
            cases.add(new Case(kind + "window until " + until, c.withWindow(null, until.toString()), null,
                    window.apply(Long.MIN_VALUE, until.timestamp()), consistent));
            cases.add(new Case(kind + "window from " + from, c.withWindow(from.toString(), null), Tids.maxAtTicks(Tids.ticks(java.time.Instant.now()) - 1),
                    window.apply(from.timestamp(), Long.MAX_VALUE), consistent));
        }
        cases.add(new Case("as_of=safe at " + safe, q.withAsOf("safe"), safe, moment.apply(safe.timestamp()), false));
        cases.add(new Case("fresh at " + arrival, q.fresh(), arrival, moment.apply(arrival.timestamp()), false));
        return cases;
    }

    /**
     * Every page of a read, at {@code limit} items a page: the items of all, checking each page's
     * size and token. Each page reads the stores {@code stores} gives then; {@code betweenPages}
     * runs after each page that has a next one.
     */
    private List<ReadOracle.Expected> readAll(Table table, Case c, int limit, java.util.function.Supplier<MemoryReadStores> stores,
            Runnable betweenPages, String where) {
        List<ReadOracle.Expected> out = new ArrayList<>();
        IndexReader.Query query = c.query().withLimit(limit);
        reads++;
        for (int page = 0;; page++) {
            assertThat(page).as("pages of %s", where).isLessThanOrEqualTo(c.expected().size() + 2);
            ReadRequest request = ReadRequest.parse(query, table.def(), table.index().index());
            UUID readTime = request.fixedTime() != null ? request.fixedTime() : c.readTime();
            ReadPath.Target target = new ReadPath.Target(table.def(), table.plan(), table.index(), table.layout(), stores.get());
            // as IndexReader does: a first page that met a seal in progress is read again, a later one is refused
            IndexReader.Page p = Resealed.retryResealed(() -> path.page(request, target, readTime), page == 0, new LongAdder()).join();
            pages++;
            for (Map<String, Object> item : p.items()) {
                Object tid = item.get("tid");
                out.add(new ReadOracle.Expected(item.get("key").toString(), tid == null ? null : UUID.fromString(tid.toString()),
                        item.get("value").toString()));
            }
            if (p.next() == null) {
                assertThat(p.items().size()).as("last page of %s", where).isLessThanOrEqualTo(limit);
                return out;
            }
            assertThat(p.items()).as("a page with a next token is full: %s", where).hasSize(limit);
            query = query.withNext(p.next());
            betweenPages.run();
        }
    }
}
