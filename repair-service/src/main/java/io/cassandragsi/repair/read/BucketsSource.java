package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.BucketLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * Buckets merged as a read's source (docs/design.md sections 8.2 and 8.5), one bucket or several:
 * a fetch reads their entries merged in clustering order ({@link ReadStores#buckets}), at most
 * as many per bucket as entries are wanted, keeps the complete groups of one row's entries and
 * decides each ({@link BucketMerge#decide}). A position is the clustering key of the last group
 * consumed, which the next fetch resumes behind.
 */
final class BucketsSource implements EntrySource {
    private final ReadPlan read;
    private final Source.Buckets buckets;
    private final ReadStores.Select select;
    private final LongAdder rowsRead;
    private final UUID seals;
    private final BucketLayout layout;
    private final Map<String, BucketMerge.Part> parts = new HashMap<>();

    BucketsSource(ReadPlan read, Source.Buckets buckets, ReadStores.Select select, LongAdder rowsRead) {
        this.read = read;
        this.buckets = buckets;
        this.select = select;
        this.rowsRead = rowsRead;
        this.seals = buckets.seals();
        this.layout = BucketLayout.of(read.plan().index());
        buckets.parts().forEach(p -> parts.put(p.label(), p));
    }

    @Override
    public CompletableFuture<Fetched> fetch(PageToken.Resume resume, int wanted) {
        List<ByteBuffer> behind = resume == null ? null : ((PageToken.BucketsResume) resume).behind();
        int perPartition = BucketMerge.perBucket(wanted, parts.size());
        return read.stores().buckets(select, buckets.labels(), behind, perPartition).thenApply(rows -> {
            rowsRead.add(rows.size());
            return decide(rows, perPartition);
        });
    }

    private Fetched decide(List<IndexRow> rows, int perPartition) {
        List<BucketMerge.Entry> entries = new ArrayList<>(rows.size());
        for (IndexRow r : rows) {
            entries.add(entry(r));
        }
        boolean more = BucketMerge.truncated(entries, perPartition);
        int complete = BucketMerge.complete(entries, perPartition);
        List<IndexRow> candidates = new ArrayList<>();
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
        PageToken.Resume rest = more ? new PageToken.BucketsResume(seals, lastKey) : null;
        return new Fetched(candidates, decisions, k -> new PageToken.BucketsResume(seals, keys.get(k - 1)), rest, complete);
    }

    /**
     * A fetched row as the merge sees it: its clustering key, {@code _tid}, {@code _first},
     * {@code _deleted} and {@code _seal} where a bucket select has them ({@code layout}), and its
     * bucket, the column after them (store.MergedSelect).
     */
    private BucketMerge.Entry entry(IndexRow r) {
        ItemLayout items = read.layout();
        List<ByteBuffer> clustering = items.clustering(r);
        String label = StandardCharsets.UTF_8.decode(r.get(layout.sealColumn() + 1).duplicate()).toString();
        return new BucketMerge.Entry(label, clustering, items.tid(r), uuid(r, layout.firstColumn()), items.deleted(r), uuid(r, layout.sealColumn()));
    }

    private static UUID uuid(IndexRow r, int column) {
        ByteBuffer b = r.get(column);
        return b == null ? null : Tids.uuid(b);
    }
}
