package io.cassandragsi.repair.read;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Pages through a read's {@link EntrySource}, whichever it is, until the page has its items
 * (docs/design.md section 8.5): fetches as many entries as items are still missing ({@link
 * #fetchSize}), hands the candidates to the {@link BaseChecker} a run at a time, and ends the page
 * with the token of the position behind the last candidate consumed, so that pages never repeat or
 * skip.
 */
final class Pager {
    private final PageToken tokens;
    private final BaseChecker checker;

    Pager(PageToken tokens, BaseChecker checker) {
        this.tokens = tokens;
        this.checker = checker;
    }

    /** The page of {@code read} from {@code source} at {@code resume} (null: the start). */
    CompletableFuture<IndexReader.Page> page(ReadPlan read, EntrySource source, PageToken.Resume resume) {
        return fetch(read, source, resume, read.limit(), new ArrayList<>(read.limit()));
    }

    /**
     * Entries to fetch next: as many as items are still missing, so that a page whose entries all
     * match ends exactly where the read stops, no entry is fetched in vain, and the next token
     * starts a fresh page; a read whose last fetch found entries that no longer match ({@code
     * previous}: the entries it fetched, else 0) fetches at least twice as many as last time. Never
     * more than {@value IndexReader#MAX_LIMIT}, the rows a resumed fetch skips included: Cassandra
     * counts the cell tombstones of the rows one read command returns (every entry has one in
     * {@code _deleted}, and one per null projection) and warns above 1,000 ({@code
     * tombstone_warn_threshold}); a read that needs more fetches again.
     */
    static int fetchSize(int skip, int missing, int previous) {
        return Math.min(IndexReader.MAX_LIMIT, skip + Math.max(missing, 2 * previous));
    }

    private CompletableFuture<IndexReader.Page> fetch(ReadPlan read, EntrySource source, PageToken.Resume resume, int wanted,
            List<Map<String, Object>> items) {
        int before = items.size();
        return source.fetch(resume, wanted).thenCompose(f -> consume(checker, read, f.candidates(), f.decisions(), 0, items).thenCompose(i -> {
            if (items.size() >= read.limit()) {
                return done(read, items, i < f.candidates().size() ? f.after().apply(i) : f.rest());
            }
            if (f.rest() == null) {
                return done(read, items, null);
            }
            int previous = items.size() - before < f.fetched() ? f.fetched() : 0;
            return fetch(read, source, f.rest(), fetchSize(0, read.limit() - items.size(), previous), items);
        }));
    }

    private CompletableFuture<IndexReader.Page> done(ReadPlan read, List<Map<String, Object>> items, PageToken.Resume next) {
        String token = next == null ? null : tokens.encode(new PageToken.Position(read.fingerprint().get(), read.q(), next));
        return CompletableFuture.completedFuture(new IndexReader.Page(items, token, read.answerTime()));
    }

    /**
     * Decides candidates from {@code from} on until the page has its items, adding them to {@code
     * items}: as many at a time as items are still missing (their base checks run concurrently),
     * then the rest. Completes with the index of the first candidate not consumed.
     */
    static CompletableFuture<Integer> consume(BaseChecker checker, ReadPlan read, List<IndexRow> rows, List<EntryDecision> decisions, int from,
            List<Map<String, Object>> items) {
        int i = from;
        while (i < rows.size() && items.size() < read.limit()) {
            int run = Math.min(rows.size() - i, read.limit() - items.size());
            CompletableFuture<List<Map<String, Object>>> decided = checker.decide(read, rows.subList(i, i + run), decisions.subList(i, i + run));
            int next = i + run;
            if (!decided.isDone()) {
                return decided.thenCompose(d -> {
                    items.addAll(d);
                    return consume(checker, read, rows, decisions, next, items);
                });
            }
            items.addAll(decided.join());
            i = next;
        }
        return CompletableFuture.completedFuture(i);
    }
}
