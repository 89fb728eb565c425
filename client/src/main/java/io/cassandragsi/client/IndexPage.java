package io.cassandragsi.client;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One page of a read: its items in index order, the token of the next page (absent once the read
 * reached its end) and the moment the answer is as of (docs/http-api.md, Reads: {@code items},
 * {@code next}, {@code as_of}).
 *
 * @param items the page's items, in index order
 * @param next the token that {@link IndexQuery#next} takes to read the next page; null at the end
 *     (a page that fills its limit exactly at the end may still carry one, whose page is empty)
 * @param asOf the moment the answer is as of: the first page's moment for a read of now, the
 *     window's end for a window read
 */
public record IndexPage(List<IndexItem> items, String next, Instant asOf) {
    public IndexPage {
        items = List.copyOf(items);
    }

    /** The next page's token, or empty at the end. */
    public Optional<String> nextToken() {
        return Optional.ofNullable(next);
    }

    /** Whether there may be another page. */
    public boolean hasNext() {
        return next != null;
    }
}
