package io.cassandragsi.client;

import io.cassandragsi.repair.read.IndexReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * One read of an index, with the HTTP API's parameters (docs/http-api.md, Reads) as methods:
 * immutable, each method returns a new query. Without {@link #consistent}, {@link #asOf}, {@link
 * #asOfSafe}, {@link #window} or {@link #fresh} it is an eventual read of now. Kinds that do not
 * combine (a moment and a window, a fresh read and a moment, a window or a consistent read) fail
 * when read, with {@link GsiBadRequestException} naming both, as the HTTP API answers 400.
 */
public final class IndexQuery {
    private final GsiClient client;
    private final IndexReader.Query query;

    IndexQuery(GsiClient client, IndexReader.Query query) {
        this.client = client;
        this.query = query;
    }

    private IndexQuery with(IndexReader.Query q) {
        return new IndexQuery(client, q);
    }

    /** {@code gt}: items whose first range attribute left free by the values is greater than {@code value}. */
    public IndexQuery gt(Object value) {
        return with(query.withBounds(TextValues.of(value, "bound gt"), query.ge(), query.lt(), query.le()));
    }

    /** {@code ge}: at least {@code value}. */
    public IndexQuery ge(Object value) {
        return with(query.withBounds(query.gt(), TextValues.of(value, "bound ge"), query.lt(), query.le()));
    }

    /** {@code lt}: less than {@code value}. */
    public IndexQuery lt(Object value) {
        return with(query.withBounds(query.gt(), query.ge(), TextValues.of(value, "bound lt"), query.le()));
    }

    /** {@code le}: at most {@code value}. */
    public IndexQuery le(Object value) {
        return with(query.withBounds(query.gt(), query.ge(), query.lt(), TextValues.of(value, "bound le")));
    }

    /** {@code limit}: items per page, 1 to 1000 (default 100). */
    public IndexQuery limit(int limit) {
        return with(query.withLimit(limit));
    }

    /** {@code next}: the page after the one whose {@link IndexPage#next} this is. */
    public IndexQuery next(String token) {
        return with(query.withNext(token));
    }

    /** {@code consistent=true}: every candidate checked against the base version current at the query time. */
    public IndexQuery consistent() {
        return consistent(true);
    }

    public IndexQuery consistent(boolean consistent) {
        return with(query.withConsistent(consistent));
    }

    /** {@code as_of}: the rows that matched at {@code moment}. */
    public IndexQuery asOf(Instant moment) {
        return with(query.withAsOf(TextValues.of(moment, "as_of")));
    }

    /** {@code as_of}: the rows that matched at the version {@code tid} (a timeuuid). */
    public IndexQuery asOf(UUID tid) {
        return with(query.withAsOf(TextValues.of(tid, "as_of")));
    }

    /**
     * {@code as_of=safe}: as of the repair service's safe time, exact for every write acknowledged
     * at LOCAL_QUORUM or stronger before it; needs {@link GsiClient.Builder#service}.
     */
    public IndexQuery asOfSafe() {
        return with(query.withAsOf("safe"));
    }

    /**
     * {@code ts_ge}, {@code ts_lt}: the rows that matched at some moment t with {@code from <= t <
     * until}, each with its latest version that matched within; null leaves that end open.
     */
    public IndexQuery window(Instant from, Instant until) {
        return with(query.withWindow(from == null ? null : from.toString(), until == null ? null : until.toString()));
    }

    /** {@link #window(Instant, Instant)} with timeuuid ends: from the version {@code from} on, until before {@code until}'s tick. */
    public IndexQuery window(UUID from, UUID until) {
        return with(query.withWindow(from == null ? null : from.toString(), until == null ? null : until.toString()));
    }

    /**
     * {@code fresh=true}: read your writes. Waits until the repair service's safe time passes the
     * moment of the read, at most the client's {@link GsiClient.Builder#freshTimeout}, then answers
     * as of that moment; needs {@link GsiClient.Builder#service}.
     */
    public IndexQuery fresh() {
        return with(query.fresh());
    }

    /** {@link #fresh()} waiting at most {@code maxWait} ({@code max_wait}; never beyond the client's fresh timeout). */
    public IndexQuery fresh(Duration maxWait) {
        if (maxWait == null || maxWait.isNegative()) {
            throw new GsiBadRequestException("bad_fresh", "max_wait must be a duration of zero or more, not " + maxWait, null);
        }
        return with(query.fresh().withMaxWait(maxWait));
    }

    /** Reads one page, waiting for it. */
    public IndexPage read() {
        try {
            return page(client.reader().read(query));
        } catch (RuntimeException e) {
            throw Errors.unchecked(e);
        }
    }

    /** Reads one page without blocking the calling thread; the future fails with a {@link GsiException} as {@link #read} throws it. */
    public CompletableFuture<IndexPage> readAsync() {
        CompletableFuture<IndexReader.Page> page;
        try {
            page = client.reader().readAsync(query);
        } catch (RuntimeException e) {
            page = CompletableFuture.failedFuture(e);
        }
        return page.handle((p, e) -> e == null ? CompletableFuture.completedFuture(page(p)) : CompletableFuture.<IndexPage>failedFuture(Errors.map(e)))
                .thenCompose(f -> f);
    }

    /**
     * Reads this page and every page after it, following {@code next}, and returns their items: all
     * in memory, so for reads of unknown size page with {@link #next} instead. Every page answers as
     * of the first page's moment.
     */
    public List<IndexItem> readAll() {
        List<IndexItem> items = new ArrayList<>();
        IndexQuery q = this;
        while (true) {
            IndexPage p = q.read();
            items.addAll(p.items());
            if (p.next() == null) {
                return items;
            }
            q = q.next(p.next());
        }
    }

    private static IndexPage page(IndexReader.Page p) {
        List<IndexItem> items = new ArrayList<>(p.items().size());
        for (Map<String, Object> i : p.items()) {
            items.add(new IndexItem(i));
        }
        return new IndexPage(items, p.next(), p.asOf());
    }

    @Override
    public String toString() {
        return query.keyspace() + "." + query.table() + "/" + query.index() + query.values();
    }
}
