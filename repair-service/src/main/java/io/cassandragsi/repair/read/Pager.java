package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Pages through a read's index select until the page has its items: fetches as many index rows
 * as items are still missing ({@link #fetchSize}), hands them to the {@link BaseChecker} a run
 * at a time, and ends the page with the token of the first index row not consumed, so that pages
 * never repeat or skip.
 */
final class Pager {
    private final CqlSession session;
    private final PageToken tokens;
    private final BaseChecker checker;
    /** Index (or bucket) rows fetched. */
    private final java.util.concurrent.atomic.LongAdder rowsRead;

    Pager(CqlSession session, PageToken tokens, BaseChecker checker, java.util.concurrent.atomic.LongAdder rowsRead) {
        this.session = session;
        this.tokens = tokens;
        this.checker = checker;
        this.rowsRead = rowsRead;
    }

    /**
     * The first page of a read resumed at {@code state} (null: the start), behind the {@code skip}
     * rows a token consumed, the last of them {@code lastRow} ({@link PageToken#rowId}; null when
     * none). Entries written since into those rows' span (an entry is never deleted, but new ones
     * appear) would shift a count: the page starts behind {@code lastRow} where the rows read show
     * it, and behind {@code skip} rows only where they do not (the row expired).
     */
    CompletableFuture<IndexReader.Page> first(ReadPlan read, byte[] state, int skip, byte[] lastRow) {
        // twice the rows consumed: room for as many entries written into their span since
        return page(read, state, skip, lastRow, fetchSize(2 * skip, read.limit(), 0), new ArrayList<>(read.limit()));
    }

    /** Where a resumed page starts in {@code rows}: behind {@code lastRow} if they hold it, else behind {@code skip} rows. */
    static int resume(List<byte[]> rowIds, int skip, byte[] lastRow) {
        if (lastRow != null) {
            for (int j = 0; j < rowIds.size(); j++) {
                if (java.util.Arrays.equals(rowIds.get(j), lastRow)) {
                    return j + 1;
                }
            }
        }
        return Math.min(skip, rowIds.size());
    }

    /**
     * Index rows to fetch next: as many as items are still missing (after the {@code skip} rows
     * that a token resumes behind), so that a page whose rows all match ends exactly where the read
     * stops, no row is fetched in vain, and the next token starts a fresh page; a read whose last
     * fetch found entries that no longer match ({@code previous}: the rows it decided, else 0)
     * fetches at least twice as many rows as last time. Never more than {@value IndexReader#MAX_LIMIT} rows,
     * skipped ones included: Cassandra counts the cell tombstones of the rows one read command
     * returns (every entry has one in {@code _deleted}, and one per null projection) and warns
     * above 1,000 ({@code tombstone_warn_threshold}); a read that needs more fetches again.
     */
    static int fetchSize(int skip, int missing, int previous) {
        return Math.min(IndexReader.MAX_LIMIT, skip + Math.max(missing, 2 * previous));
    }

    /**
     * Reads {@code size} index rows at {@code state} and decides them from {@code skip} on; then the
     * next page if items are still missing.
     */
    private CompletableFuture<IndexReader.Page> page(ReadPlan read, byte[] state, int skipped, byte[] lastRow, int size,
            List<Map<String, Object>> items) {
        BoundStatement stmt = read.statement().setPagingState(state == null ? null : ByteBuffer.wrap(state)).setPageSize(size);
        int before = items.size();
        return session.executeAsync(stmt).toCompletableFuture().thenCompose(rs -> {
            List<Row> rows = new ArrayList<>(rs.remaining());
            for (Row row : rs.currentPage()) {
                rows.add(row);
            }
            rowsRead.add(rows.size());
            ByteBuffer nextState = rs.getExecutionInfo().getPagingState();
            int skip = skipped == 0 ? 0 : resume(rows.stream().map(r -> rowId(read, r)).toList(), skipped, lastRow);
            return consume(checker, read, rows, null, skip, items).thenCompose(i -> {
                if (items.size() >= read.limit() && i < rows.size()) {
                    return CompletableFuture.completedFuture(new IndexReader.Page(items, token(read, state, i, rowId(read, rows.get(i - 1))),
                            read.answerTime()));
                }
                if (nextState == null) {
                    return CompletableFuture.completedFuture(new IndexReader.Page(items, null, read.answerTime()));
                }
                byte[] following = bytes(nextState);
                if (items.size() >= read.limit()) {
                    return CompletableFuture.completedFuture(new IndexReader.Page(items, token(read, following, 0, null), read.answerTime()));
                }
                int decided = rows.size() - skip;
                int previous = items.size() - before < decided ? decided : 0;
                return page(read, following, 0, null, fetchSize(0, read.limit() - items.size(), previous), items);
            });
        });
    }

    private String token(ReadPlan read, byte[] state, int offset, byte[] lastRow) {
        return tokens.encode(new PageToken.Position(read.fingerprint().get(), read.q(), state, offset, lastRow,
                read.bucket() == null ? null : read.bucket().seal()));
    }

    private static byte[] rowId(ReadPlan read, Row row) {
        return PageToken.rowId(read.layout().entryKey(row));
    }

    /**
     * Decides rows from {@code from} on until the page has its items, adding them to {@code items}:
     * as many candidates at a time as items are still missing (their base checks run
     * concurrently), then the rest; with each row's decision given in {@code decisions} (null:
     * decided from the row, {@link BaseChecker#decide}). Completes with the index of the first row
     * not consumed.
     */
    static CompletableFuture<Integer> consume(BaseChecker checker, ReadPlan read, List<Row> rows, List<EntryDecision> decisions, int from,
            List<Map<String, Object>> items) {
        int i = from;
        while (i < rows.size() && items.size() < read.limit()) {
            int run = Math.min(rows.size() - i, read.limit() - items.size());
            CompletableFuture<List<Map<String, Object>>> decided = checker.decide(read, rows.subList(i, i + run),
                    decisions == null ? null : decisions.subList(i, i + run));
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

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
