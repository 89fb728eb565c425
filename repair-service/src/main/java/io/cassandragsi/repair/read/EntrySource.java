package io.cassandragsi.repair.read;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * A read's {@link Source} as the {@link Pager} sees it (docs/design.md section 8.5): fetches from a
 * position on, returning the entries that are candidates with their decisions, and where the read
 * resumes behind each.
 */
interface EntrySource {
    /**
     * Fetches about {@code wanted} entries from {@code resume} on (null: the start), and decides
     * them ({@link EntryDecision}; the ones decided SKIP are left out of the candidates).
     */
    CompletableFuture<Fetched> fetch(PageToken.Resume resume, int wanted);

    /**
     * One fetch: its candidates in index order with their decisions; {@code after.apply(k)} is the
     * position behind the first k candidates (k at least 1); {@code rest} the position behind every
     * entry fetched, or null when the source holds no more; {@code fetched} how many entries came.
     */
    record Fetched(List<IndexRow> candidates, List<EntryDecision> decisions, IntFunction<PageToken.Resume> after, PageToken.Resume rest,
            int fetched) {}
}
