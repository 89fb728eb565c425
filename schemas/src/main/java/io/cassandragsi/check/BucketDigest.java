package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Sha256;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.BucketPeriod;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * A digest per bucket of one index's bucket entries (docs/design.md sections 3.7 and 9.2): for each
 * label, how many entries and the sum (modulo 2^64, so the order does not matter) of a 64-bit hash
 * of each: its label, entry key (which holds the row key), {@code _tid}, {@code _first}, {@code
 * _deleted} and projections. Memory is one pair of counters per label, whatever the entries.
 *
 * <p>{@code _deleted} counts only when it lies in the entry's bucket: one at or after the start of
 * the next bucket counts as null. A version written in the current bucket legitimately changes the
 * exact {@code _deleted} of the row's entries in earlier buckets ({@link BucketEntries}) without
 * recording a change (section 9.4), and a read inside a bucket cannot tell such a {@code _deleted}
 * from none (section 8.2). Thread-safe; the labels are fixed when it is made, and entries of other
 * labels are ignored.
 */
public final class BucketDigest {
    /** One bucket's digest. */
    public record Sum(long count, long sum) {}

    private final BucketPeriod period;
    private final NavigableSet<String> labels;
    private final Map<String, LongAdder[]> sums = new TreeMap<>();

    public BucketDigest(BucketPeriod period, Collection<String> labels) {
        this.period = period;
        this.labels = new TreeSet<>(labels);
        for (String l : this.labels) {
            sums.put(l, new LongAdder[] {new LongAdder(), new LongAdder()});
        }
    }

    public NavigableSet<String> labels() {
        return labels;
    }

    /** Adds one entry of bucket {@code label}, as a bucket table row holds it (ignored when the label is not one of this digest's). */
    public void add(String label, List<ByteBuffer> key, BucketEntries.Entry entry) {
        LongAdder[] s = sums.get(label);
        if (s == null) {
            return;
        }
        s[0].increment();
        s[1].add(hash(label, key, entry.tid(), entry.first(), deletedInBucket(period, label, entry.deleted()), entry.proj()));
    }

    /** Adds the entries a row's versions (ascending) give in this digest's buckets: what a seal writes for it ({@link BucketEntries#of}). */
    public void addRow(TablePlan plan, IndexPlan index, List<Version> ascending) {
        if (labels.isEmpty()) {
            return;
        }
        BucketEntries.of(plan, index, ascending, labels.first(), labels.last(), labels::contains)
                .forEach((label, byKey) -> byKey.forEach((key, e) -> add(label, key, e)));
    }

    /** An empty digest of the same buckets, to be added to this one later ({@link #addAll}). */
    public BucketDigest empty() {
        return new BucketDigest(period, labels);
    }

    /** Adds what {@code other} (a digest of the same period) counted, bucket by bucket; its labels outside this one's are ignored. */
    public void addAll(BucketDigest other) {
        other.sums.forEach((label, s) -> {
            LongAdder[] mine = sums.get(label);
            if (mine != null) {
                mine[0].add(s[0].sum());
                mine[1].add(s[1].sum());
            }
        });
    }

    /** The digest of {@code label} so far (zero for a label without entries). */
    public Sum sum(String label) {
        LongAdder[] s = sums.get(label);
        return s == null ? new Sum(0, 0) : new Sum(s[0].sum(), s[1].sum());
    }

    /** {@code deleted} when it lies before the start of the bucket after {@code label}, else null. */
    public static UUID deletedInBucket(BucketPeriod period, String label, UUID deleted) {
        if (deleted == null) {
            return null;
        }
        UUID nextStart = Tids.minAtTicks(Tids.ticks(period.start(period.next(label))));
        return Tids.compare(deleted, nextStart) >= 0 ? null : deleted;
    }

    /** The first 64 bits of the SHA-256 of the entry, each part length-prefixed ({@link Sha256}). */
    static long hash(String label, List<ByteBuffer> key, UUID tid, UUID first, UUID deleted, List<ByteBuffer> proj) {
        MessageDigest md = Sha256.digest();
        Sha256.part(md, ByteBuffer.wrap(label.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Sha256.length(md, key.size());
        key.forEach(k -> Sha256.part(md, k));
        Sha256.part(md, tid == null ? null : Tids.bytes(tid));
        Sha256.part(md, first == null ? null : Tids.bytes(first));
        Sha256.part(md, deleted == null ? null : Tids.bytes(deleted));
        Sha256.length(md, proj.size());
        proj.forEach(p -> Sha256.part(md, p));
        return ByteBuffer.wrap(md.digest()).getLong();
    }
}
