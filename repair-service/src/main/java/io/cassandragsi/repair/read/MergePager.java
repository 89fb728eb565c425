package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.IndexTable;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Pages a window read over several buckets (docs/design.md sections 8.2 and 8.5): fetches the
 * buckets' entries merged in clustering order ({@code store.MergedSelect}), decides each complete
 * group of one row's entries ({@link BucketMerge}), hands the groups that need the base to the
 * {@link BaseChecker} a run at a time, as {@link Pager} does, and ends the page with a token that
 * resumes behind the clustering key of the last row it consumed.
 */
final class MergePager {
    /**
     * One window read over several buckets: the read, the restrictions of its select, and the
     * buckets with their shares of the window, oldest first.
     */
    record MergedRead(ReadPlan read, IndexTable.Shape shape, List<ByteBuffer> fixed, ByteBuffer lower, ByteBuffer upper,
            List<BucketMerge.Part> parts) {}

    private final CqlSession session;
    private final PageToken tokens;
    private final BaseChecker checker;
    private final LongAdder rowsRead;
    private final ConsistencyLevel cl;

    MergePager(CqlSession session, ConsistencyLevel cl, PageToken tokens, BaseChecker checker, LongAdder rowsRead) {
        this.session = session;
        this.cl = cl;
        this.tokens = tokens;
        this.checker = checker;
        this.rowsRead = rowsRead;
    }

    /** A page of {@code m} behind clustering key {@code resume} (null: from the start). */
    CompletableFuture<IndexReader.Page> first(MergedRead m, List<ByteBuffer> resume) {
        return fetch(m, resume, BucketMerge.perBucket(Pager.fetchSize(0, m.read().limit(), 0), m.parts().size()),
                new ArrayList<>(m.read().limit()));
    }

    /**
     * Fetches up to {@code perPartition} entries of each bucket behind {@code resume}, decides the
     * complete groups, and fetches again behind the last of them, twice as many, while items are
     * missing: never more than {@value BucketMerge#MAX_FETCHED} entries in all per fetch.
     */
    private CompletableFuture<IndexReader.Page> fetch(MergedRead m, List<ByteBuffer> resume, int perPartition, List<Map<String, Object>> items) {
        ReadPlan read = m.read();
        List<String> labels = m.parts().stream().map(BucketMerge.Part::label).toList();
        return read.table().bucketTables.get(read.plan()).merged()
                .bind(m.shape(), labels, m.fixed(), m.lower(), m.upper(), resume, perPartition)
                .thenCompose(b -> session.executeAsync(b.setConsistencyLevel(cl).build()).toCompletableFuture())
                .thenCompose(rs -> {
                    List<Row> rows = new ArrayList<>(rs.remaining());
                    rs.currentPage().forEach(rows::add);
                    rowsRead.add(rows.size());
                    return decideFetched(m, rows, perPartition, items);
                });
    }

    private CompletableFuture<IndexReader.Page> decideFetched(MergedRead m, List<Row> rows, int perPartition, List<Map<String, Object>> items) {
        ReadPlan read = m.read();
        io.cassandragsi.schema.BucketLayout layout = read.table().bucketTables.get(read.plan()).layout();
        List<BucketMerge.Entry> entries = new ArrayList<>(rows.size());
        for (Row r : rows) {
            entries.add(entry(read, layout, r));
        }
        boolean more = BucketMerge.truncated(entries, perPartition);
        int complete = BucketMerge.complete(entries, perPartition);
        Map<String, BucketMerge.Part> parts = new java.util.HashMap<>();
        m.parts().forEach(p -> parts.put(p.label(), p));
        List<Row> candidates = new ArrayList<>();
        List<EntryDecision> decisions = new ArrayList<>();
        List<List<ByteBuffer>> keys = new ArrayList<>();
        List<ByteBuffer> lastKey = null;
        for (int start = 0; start < complete;) {
            int end = start + 1;
            while (end < complete && entries.get(end).clustering().equals(entries.get(start).clustering())) {
                end++;
            }
            BucketMerge.Decision d = BucketMerge.decide(entries.subList(start, end), parts);
            lastKey = entries.get(start).clustering();
            if (d.decision() != EntryDecision.SKIP) {
                candidates.add(rows.get(start + d.at()));
                decisions.add(d.decision());
                keys.add(lastKey);
            }
            start = end;
        }
        List<ByteBuffer> resumeAt = lastKey;
        return Pager.consume(checker, read, candidates, decisions, 0, items).thenCompose(consumed -> {
            if (items.size() >= read.limit()) {
                if (consumed == candidates.size() && !more) {
                    return done(read, items, null);
                }
                return done(read, items, token(m, keys.get(consumed - 1)));
            }
            if (!more) {
                return done(read, items, null);
            }
            return fetch(m, resumeAt, BucketMerge.perBucket(Pager.fetchSize(0, read.limit() - items.size(), perPartition), m.parts().size()), items);
        });
    }

    private static CompletableFuture<IndexReader.Page> done(ReadPlan read, List<Map<String, Object>> items, String next) {
        return CompletableFuture.completedFuture(new IndexReader.Page(items, next, read.answerTime()));
    }

    private String token(MergedRead m, List<ByteBuffer> resume) {
        ReadPlan read = m.read();
        return tokens.encode(new PageToken.Position(read.fingerprint().get(), read.q(), io.cassandragsi.schema.Composite.encode(resume).array(), 0,
                null, BucketMerge.seals(m.parts())));
    }

    /**
     * A fetched row as the merge sees it: its clustering key, {@code _tid}, {@code _first},
     * {@code _deleted} and {@code _seal} where a bucket select has them ({@code layout}), and its
     * bucket, the column after them (store.MergedSelect).
     */
    private static BucketMerge.Entry entry(ReadPlan read, io.cassandragsi.schema.BucketLayout layout, Row r) {
        ItemLayout items = read.layout();
        List<ByteBuffer> key = items.entryKey(r);
        List<ByteBuffer> clustering = key.subList(read.plan().partitionSize(), key.size());
        return new BucketMerge.Entry(r.getString(layout.sealColumn() + 1), clustering, items.tid(r), uuid(r, layout.firstColumn()), items.deleted(r),
                uuid(r, layout.sealColumn()));
    }

    private static UUID uuid(Row r, int column) {
        ByteBuffer b = r.getBytesUnsafe(column);
        return b == null ? null : Tids.uuid(b);
    }
}
