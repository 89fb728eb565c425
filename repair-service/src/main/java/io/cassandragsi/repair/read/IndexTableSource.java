package io.cassandragsi.repair.read;

import io.cassandragsi.schema.ClusteringOrder;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * The index table as a read's source (docs/design.md section 8.5): its select, in pages
 * ({@link ReadStores#indexPage}). A position is the paging state of a page, how many of its rows
 * were consumed and the clustering key of the last of them. Entries written since into those rows'
 * span (new ones appear; an entry expires) would shift a count, so a resumed fetch starts behind
 * that key in the index's clustering order ({@link ClusteringOrder}): the rows up to it were
 * consumed, or were written after the read's query time, which they cannot match at.
 */
final class IndexTableSource implements EntrySource {
    private final ReadPlan read;
    private final ReadStores.Select select;
    private final LongAdder rowsRead;
    private final ClusteringOrder order;

    IndexTableSource(ReadPlan read, ReadStores.Select select, LongAdder rowsRead) {
        this.read = read;
        this.select = select;
        this.rowsRead = rowsRead;
        this.order = ClusteringOrder.of(read.plan().index().clusteringColumns());
    }

    @Override
    public CompletableFuture<Fetched> fetch(PageToken.Resume resume, int wanted) {
        PageToken.IndexResume at = resume == null ? PageToken.IndexResume.at(null) : (PageToken.IndexResume) resume;
        // twice the rows consumed on top: room for as many entries written into their span since
        int size = Math.min(IndexReader.MAX_LIMIT, 2 * at.offset() + wanted);
        byte[] state = at.pagingState();
        return read.stores().indexPage(select, state, size).thenApply(page -> {
            List<IndexRow> rows = page.rows();
            rowsRead.add(rows.size());
            int skip = at.behind() != null ? behind(rows.stream().map(this::clustering).toList(), at.behind(), order)
                    : at.offset() == 0 ? 0 : resume(rows.stream().map(this::rowId).toList(), at.offset(), at.lastRow());
            List<IndexRow> candidates = new ArrayList<>(rows.size() - skip);
            List<EntryDecision> decisions = new ArrayList<>(rows.size() - skip);
            List<Integer> positions = new ArrayList<>(rows.size() - skip);
            for (int i = skip; i < rows.size(); i++) {
                EntryDecision d = decide(rows.get(i));
                if (d != EntryDecision.SKIP) {
                    candidates.add(rows.get(i));
                    decisions.add(d);
                    positions.add(i);
                }
            }
            // rows not yet past the key resumed behind: the next page of the index still starts behind it
            List<ByteBuffer> stillBehind = skip == rows.size() ? at.behind() : null;
            PageToken.Resume rest = page.next() == null ? null : new PageToken.IndexResume(page.next(), 0, stillBehind, null);
            return new Fetched(candidates, decisions, k -> {
                int row = positions.get(k - 1);
                return new PageToken.IndexResume(state, row + 1, clustering(rows.get(row)), null);
            }, rest, rows.size());
        });
    }

    /** Where a resumed page starts in rows of clustering keys {@code keys} (in {@code order}): behind the last that is not after {@code behind}. */
    static int behind(List<List<ByteBuffer>> keys, List<ByteBuffer> behind, ClusteringOrder order) {
        int skip = 0;
        while (skip < keys.size() && order.compare(keys.get(skip), behind) <= 0) {
            skip++;
        }
        return skip;
    }

    /**
     * Where a resumed page of an earlier token (a digest of the last row's key) starts in rows of
     * identities {@code rowIds}: behind {@code lastRow} if they hold it, else behind {@code skip} rows.
     */
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

    /** One entry's decision at the read's query time, or in its window: a per-version index's, else the table kind's ({@link ReadKind}). */
    private EntryDecision decide(IndexRow r) {
        ItemLayout layout = read.layout();
        if (read.plan().perVersion()) {
            return EntryDecision.ofVersionEntry(read.consistent(), layout.tidInKey(r), read.q());
        }
        UUID tid = layout.tid(r);
        UUID deleted = layout.deleted(r);
        return read.from() == null ? read.kind().atMoment(read.consistent(), tid, deleted, read.q())
                : read.kind().inWindow(read.consistent(), tid, deleted, read.from(), read.q());
    }

    private List<ByteBuffer> clustering(IndexRow row) {
        return read.layout().clustering(row);
    }

    private byte[] rowId(IndexRow row) {
        return PageToken.rowId(read.layout().entryKey(row));
    }
}
