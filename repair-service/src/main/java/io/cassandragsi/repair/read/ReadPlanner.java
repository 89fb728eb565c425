package io.cassandragsi.repair.read;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.MergedSelect;
import io.cassandragsi.schema.BucketPeriod;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Chooses a read's {@link Source} once (docs/design.md section 8.2), from the request, its index
 * and the states of the buckets it could read, which the caller reads once beforehand: pure,
 * unit-tested without a node.
 *
 * <p>An eventual read as of a fixed moment ({@code as_of}, not {@code safe}), or in a window with
 * both ends given over at most {@value BucketMerge#MAX_BUCKETS} buckets, of an index that declares
 * a bucket and whose clustering columns share one order, reads those buckets merged when every one
 * has a valid seal; every other read, and one whose buckets are not all sealed, reads the index
 * table. A later page keeps the source of its first: its token's position says which, and a
 * buckets' position whose seals changed since is 400 {@code bad_next}.
 */
final class ReadPlanner {
    private ReadPlanner() {}

    /**
     * The labels of the buckets that could serve a read with query time {@code q}, oldest first,
     * or null when only the index table can: the bucket of q for a read of one moment, the buckets
     * the window overlaps for a window read.
     */
    static List<String> labels(ReadRequest request, boolean consistent, IndexPlan plan, UUID q) {
        BucketPeriod period = plan.index().bucket();
        if (period == null || consistent || request.fixedTime() == null || MergedSelect.order(plan.index()) == null) {
            return null;
        }
        if (!request.window()) {
            return List.of(period.label(Tids.instant(q)));
        }
        if (request.from.equals(ReadRequest.EARLIEST)) {
            return null;
        }
        return BucketMerge.labels(period, request.from, q);
    }

    /**
     * The source of a first page: the buckets {@code labels} when every one has a valid seal in
     * {@code states} (null: not known), each with its share of the time from {@code from} (a
     * window's start; null: a read of the one moment q) to {@code q}; else the index table.
     */
    static Source first(IndexPlan plan, List<String> labels, Map<String, BucketsTable.State> states, UUID from, UUID q) {
        if (labels == null || states == null) {
            return Source.INDEX_TABLE;
        }
        List<BucketMerge.Part> parts = parts(plan, labels, states, from, q);
        return parts == null ? Source.INDEX_TABLE : new Source.Buckets(parts);
    }

    /**
     * The source of a later page that resumes at {@code resume}: the index table for a position in
     * it; for a position in buckets, the same buckets with the same seals, else 400 {@code
     * bad_next} (their history changed, or the service no longer reads them: {@code labels} or
     * {@code states} null).
     */
    static Source later(IndexPlan plan, PageToken.Resume resume, List<String> labels, Map<String, BucketsTable.State> states, UUID from,
            UUID q) {
        if (resume instanceof PageToken.IndexResume) {
            return Source.INDEX_TABLE;
        }
        if (labels == null || states == null) {
            throw ReadException.badRequest("bad_next", "'next' pages through buckets of index " + plan.index().name()
                    + " that this service no longer reads; read again from the first page");
        }
        if (resume instanceof PageToken.LegacyBuckets && labels.size() == 1) {
            throw ReadException.badRequest("bad_next", "'next' was issued by an earlier version of this service, which paged through"
                    + " one bucket in a way this one no longer does; read again from the first page");
        }
        List<BucketMerge.Part> parts = parts(plan, labels, states, from, q);
        UUID seals = resume instanceof PageToken.BucketsResume b ? b.seals() : ((PageToken.LegacyBuckets) resume).seal();
        if (parts == null || !BucketMerge.seals(parts).equals(seals)) {
            throw ReadException.badRequest("bad_next", (labels.size() == 1 ? "bucket " + labels.get(0)
                    : "a bucket in " + labels.get(0) + ".." + labels.get(labels.size() - 1)) + " of index " + plan.index().name()
                    + " was sealed again since the first page of this read (its history changed); read again from the first page");
        }
        return new Source.Buckets(parts);
    }

    /**
     * Where a later page resumes in {@code source}: its token's position, a version-4 position
     * through several buckets read as the clustering key it carries.
     */
    static PageToken.Resume resume(PageToken.Resume resume) {
        if (resume instanceof PageToken.LegacyBuckets l) {
            if (l.pagingState() == null || l.offset() != 0) {
                throw ReadException.badRequest("bad_next", "'next' is malformed");
            }
            return new PageToken.BucketsResume(l.seal(), io.cassandragsi.schema.Composite.decode(java.nio.ByteBuffer.wrap(l.pagingState())));
        }
        return resume;
    }

    /** The buckets with their valid seals and shares of the time, or null when one has no valid seal. */
    private static List<BucketMerge.Part> parts(IndexPlan plan, List<String> labels, Map<String, BucketsTable.State> states, UUID from, UUID q) {
        BucketPeriod period = plan.index().bucket();
        List<BucketMerge.Part> parts = new ArrayList<>(labels.size());
        for (String label : labels) {
            BucketsTable.State s = states.get(label);
            if (s == null || !s.valid()) {
                return null;
            }
            parts.add(BucketMerge.part(period, label, s.seal(), from == null ? q : from, q));
        }
        return parts;
    }
}
