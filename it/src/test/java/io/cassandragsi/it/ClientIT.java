package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.client.GsiBadRequestException;
import io.cassandragsi.client.GsiClient;
import io.cassandragsi.client.GsiDefinitionException;
import io.cassandragsi.client.GsiNotFoundException;
import io.cassandragsi.client.IndexItem;
import io.cassandragsi.client.IndexPage;
import io.cassandragsi.client.IndexQuery;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java API as a library user has it (docs/http-api.md, Java API): this class reads only through
 * {@code io.cassandragsi.client} (its imports are checked below), after the suite's helpers made the
 * tables ({@link SharedCluster#apply(Path)}) and started a repair service for the safe time. Rows are
 * written with plain CQL; every read kind of the HTTP API is read back, with paging.
 */
class ClientIT {
    private static final String KS = "it_client";
    private static final String DEFINITION = """
            {"keyspace": "it_client", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}]}}
            """;
    /** Rows of length 7, never rewritten. */
    private static final int ROWS = 25;

    @TempDir
    static Path dir;
    private static Path definition;
    private static InProcessService service;
    private static GsiClient gsi;
    /** After "moved" was written with length 5 and before it was rewritten with length 8. */
    private static Instant between;
    /** After the rewrite was acknowledged. */
    private static Instant rewritten;
    private static UUID movedFirst;

    @BeforeAll
    static void setUp() throws Exception {
        definition = Files.writeString(dir.resolve("revisions.json"), DEFINITION);
        SharedCluster.apply(definition);
        CqlSession session = SharedCluster.session();
        PreparedStatement insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        for (int i = 0; i < ROWS; i++) {
            session.execute(insert.bind("k" + i, Uuids.timeBased(), BigInteger.valueOf(7), "v" + i).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
        }
        movedFirst = Uuids.timeBased();
        session.execute(insert.bind("moved", movedFirst, BigInteger.valueOf(5), "first").setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
        TimeUnit.MILLISECONDS.sleep(5);
        between = Instant.now();
        TimeUnit.MILLISECONDS.sleep(5);
        session.execute(insert.bind("moved", Uuids.timeBased(), BigInteger.valueOf(8), "second").setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
        rewritten = Instant.now();
        service = InProcessService.start();
        gsi = GsiClient.builder(session).definitions(definition).service(service.url).freshTimeout(Duration.ofSeconds(10)).build();
        // a fresh read returns once every write acknowledged before it is in the index, in any maintenance mode or
        // indexing the suite runs (-Dgsi.it.maintenance): the eventual reads below then find them all
        assertThat(byLength(8).fresh().read().items()).hasSize(1);
    }

    @AfterAll
    static void tearDown() {
        if (gsi != null) {
            gsi.close();
        }
        if (service != null) {
            service.close();
        }
    }

    private static IndexQuery byLength(int length) {
        return gsi.query(KS, "revisions", "by_length", length);
    }

    private static List<String> keys(List<IndexItem> items) {
        return items.stream().map(i -> i.getString("key")).toList();
    }

    /** Every page of {@code q}, following {@code next} by hand; the sizes of the pages. */
    private static List<Integer> pages(IndexQuery q, List<IndexItem> into) {
        List<Integer> sizes = new ArrayList<>();
        IndexPage page = q.read();
        while (true) {
            sizes.add(page.items().size());
            into.addAll(page.items());
            if (!page.hasNext()) {
                return sizes;
            }
            page = q.next(page.next()).read();
        }
    }

    @Test
    void should_read_eventually_in_pages_that_neither_repeat_nor_skip() {
        List<IndexItem> items = new ArrayList<>();
        List<Integer> sizes = pages(byLength(7).limit(10), items);
        assertThat(sizes).as("pages of at most 10").hasSizeGreaterThanOrEqualTo(3).allMatch(s -> s <= 10);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < ROWS; i++) {
            expected.add("k" + i);
        }
        assertThat(keys(items)).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
        IndexItem first = items.get(0);
        assertThat(first.getBigInteger("length")).isEqualTo(BigInteger.valueOf(7));
        assertThat(first.getString("value")).startsWith("v");
        assertThat(first.getUuid("tid").version()).as("the tid, a timeuuid").isEqualTo(1);
        assertThat(byLength(7).readAll()).hasSize(ROWS);
        assertThat(byLength(7).limit(3).readAsync().join().items()).hasSize(3);
    }

    /**
     * A page that ends inside an index fetch resumes behind the key of the last row it consumed,
     * in Cassandra's clustering order, however many entries were written before that row since
     * (docs/design.md section 8.5). Rows q0 to q9 have length 6 (eventual read; r0 to r9 length 3
     * for the consistent one), q0 to q2 then move to length 9: the first page of 2 fetches q0, q1
     * (both moved), then q2 to q5, and ends at q4 inside that fetch. 60 rows written between pages
     * sort between q3 and q4; a resume behind a count of rows (the token before) landed among them
     * and served q4 again.
     */
    @Test
    void should_page_behind_the_last_row_consumed_when_many_entries_were_written_before_it_between_pages() {
        CqlSession session = SharedCluster.session();
        PreparedStatement insert = session.prepare("INSERT INTO " + KS + ".revisions (key, tid, length, value) VALUES (?, ?, ?, ?)");
        for (boolean consistent : new boolean[] {false, true}) {
            String p = consistent ? "r" : "q";
            int length = consistent ? 3 : 6;
            int moved = consistent ? 2 : 9;
            for (int i = 0; i < 10; i++) {
                session.execute(insert.bind(p + i, Uuids.timeBased(), BigInteger.valueOf(length), "v" + i).setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
            }
            for (int i = 0; i < 3; i++) {
                session.execute(insert.bind(p + i, Uuids.timeBased(), BigInteger.valueOf(moved), "moved").setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
            }
            assertThat(byLength(moved).fresh().read().items()).as("the moves indexed").hasSize(3);
            IndexQuery q = consistent ? byLength(length).consistent().limit(2) : byLength(length).limit(2);
            IndexPage page = q.read();
            List<IndexItem> items = new ArrayList<>(page.items());
            assertThat(keys(items)).as("consistent %s: the first page", consistent).containsExactly(p + 3, p + 4);
            for (int i = 0; i < 60; i++) {
                session.execute(insert.bind(String.format("%s3-%02d", p, i), Uuids.timeBased(), BigInteger.valueOf(length), "new")
                        .setConsistencyLevel(ConsistencyLevel.LOCAL_QUORUM));
            }
            assertThat(byLength(length).fresh().limit(1000).read().items()).as("the new rows indexed").hasSize(67);
            while (page.hasNext()) {
                page = q.next(page.next()).read();
                items.addAll(page.items());
            }
            assertThat(keys(items)).as("consistent %s: every page, as of the first page's moment", consistent)
                    .containsExactly(p + 3, p + 4, p + 5, p + 6, p + 7, p + 8, p + 9);
        }
    }

    @Test
    void should_drop_what_the_base_denies_when_consistent_with_paging() {
        List<IndexItem> items = new ArrayList<>();
        pages(byLength(7).consistent().limit(10), items);
        assertThat(items).hasSize(ROWS);
        assertThat(byLength(5).consistent().read().items()).as("moved has length 8 now").isEmpty();
        assertThat(keys(byLength(8).consistent().read().items())).containsExactly("moved");
    }

    @Test
    void should_answer_as_of_a_moment_eventually_and_consistently() {
        IndexPage then = byLength(5).asOf(between).read();
        assertThat(keys(then.items())).containsExactly("moved");
        assertThat(then.asOf()).isBetween(between.minusMillis(1), between.plusMillis(1));
        assertThat(keys(byLength(5).asOf(between).consistent().read().items())).containsExactly("moved");
        assertThat(byLength(8).asOf(between).read().items()).isEmpty();
        assertThat(keys(byLength(5).asOf(movedFirst).read().items())).as("as of a tid").containsExactly("moved");
    }

    @Test
    void should_answer_a_window_with_the_latest_version_in_it() {
        assertThat(keys(byLength(5).window(between.minusSeconds(60), null).read().items())).as("length 5 at some moment").containsExactly("moved");
        assertThat(byLength(8).window(null, between).read().items()).isEmpty();
        List<IndexItem> after = byLength(8).window(between, null).read().items();
        assertThat(keys(after)).containsExactly("moved");
        assertThat(after.get(0).getString("value")).isEqualTo("second");
        assertThat(byLength(5).window(rewritten, null).consistent().read().items()).as("moved left length 5 before rewritten").isEmpty();
        assertThat(byLength(7).window(movedFirst, (UUID) null).limit(1000).read().items()).hasSize(ROWS);
    }

    @Test
    void should_read_your_writes_when_fresh() {
        IndexPage page = byLength(8).fresh().read();
        assertThat(keys(page.items())).containsExactly("moved");
        assertThat(page.asOf()).isAfter(rewritten);
        assertThat(byLength(5).fresh(Duration.ofSeconds(5)).read().items()).isEmpty();
        assertThat(byLength(7).fresh().limit(10).readAll()).hasSize(ROWS);
    }

    @Test
    void should_answer_at_the_safe_time_exactly_once_it_passed_the_writes() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        IndexPage page = byLength(8).asOfSafe().read();
        while (!page.asOf().isAfter(rewritten)) {
            assertThat(System.nanoTime()).as("the safe time passed the rewrite within 15 s").isLessThan(deadline);
            TimeUnit.MILLISECONDS.sleep(100);
            page = byLength(8).asOfSafe().read();
        }
        assertThat(keys(page.items())).containsExactly("moved");
        assertThat(byLength(5).asOfSafe().read().items()).isEmpty();
    }

    @Test
    void should_name_what_is_wrong_in_typed_exceptions() {
        assertThatThrownBy(() -> gsi.query(KS, "revisions", "by_size", 7).read()).isInstanceOf(GsiNotFoundException.class)
                .hasMessageContaining("no index 'by_size'").hasMessageContaining("by_length");
        assertThatThrownBy(() -> gsi.query(KS, "pages", "by_length", 7).read()).isInstanceOf(GsiNotFoundException.class)
                .hasMessageContaining("pages");
        assertThatThrownBy(() -> gsi.query(KS, "revisions", "by_length", "seven").read()).isInstanceOf(GsiBadRequestException.class)
                .hasMessageContaining("length").hasMessageContaining("seven");
        assertThatThrownBy(() -> byLength(7).asOf(between).window(between, null).read()).isInstanceOf(GsiBadRequestException.class)
                .satisfies(e -> assertThat(((GsiBadRequestException) e).error()).isEqualTo("bad_window"));
        assertThatThrownBy(() -> byLength(7).limit(1001).read()).isInstanceOf(GsiBadRequestException.class)
                .satisfies(e -> assertThat(((GsiBadRequestException) e).error()).isEqualTo("bad_limit"));
        assertThatThrownBy(() -> byLength(7).next("forged").read()).isInstanceOf(GsiBadRequestException.class)
                .satisfies(e -> assertThat(((GsiBadRequestException) e).error()).isEqualTo("bad_next"));
        try (GsiClient withoutService = GsiClient.builder(SharedCluster.session()).build()) {
            assertThatThrownBy(() -> withoutService.query(KS, "revisions", "by_length", 8).fresh().read())
                    .isInstanceOf(GsiBadRequestException.class).hasMessageContaining("repair service");
        }
    }

    @Test
    void should_fail_to_build_when_cassandra_serves_other_definitions() throws Exception {
        Path other = Files.writeString(dir.resolve("other.json"), DEFINITION.replace("by_length", "by_size").replace("\"varint\"", "\"long\""));
        assertThatThrownBy(() -> GsiClient.builder(SharedCluster.session()).definitions(other).build()).isInstanceOf(GsiDefinitionException.class)
                .hasMessageContaining("index 'by_size' expected").hasMessageContaining("attribute 'length' of type long expected");
        Path missing = Files.writeString(dir.resolve("pages.json"), DEFINITION.replace("\"revisions\"", "\"pages\""));
        assertThatThrownBy(() -> GsiClient.builder(SharedCluster.session()).definitions(missing).build())
                .isInstanceOf(GsiDefinitionException.class).hasMessageContaining("it_client.pages: not an indexed table");
    }

    @Test
    void should_leave_the_session_open_when_closed() {
        CqlSession session = SharedCluster.session();
        GsiClient.builder(session).build().close();
        assertThat(session.isClosed()).isFalse();
        assertThat(session.execute("SELECT release_version FROM system.local").one()).isNotNull();
    }

    @Test
    void should_import_nothing_but_the_client_the_driver_and_the_jdk() throws Exception {
        Set<String> imports = Files.readAllLines(Path.of("src/test/java/io/cassandragsi/it/ClientIT.java")).stream()
                .filter(l -> l.startsWith("import ")).collect(Collectors.toSet());
        assertThat(imports).isNotEmpty().allSatisfy(l -> assertThat(l).matches(
                "import (static )?(io\\.cassandragsi\\.client|com\\.datastax\\.oss\\.driver\\.api|java|org\\.junit\\.jupiter|org\\.assertj)\\..*"));
    }
}
