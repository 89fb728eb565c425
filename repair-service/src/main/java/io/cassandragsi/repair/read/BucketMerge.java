package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.BucketPeriod;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The rules of a window read over several buckets (docs/design.md section 8.2): which buckets it
 * reads and each one's share of the window, which rows of a merged fetch are complete, and what a
 * row's entries in those buckets decide. Pure: unit-tested without a node.
 *
 * <p>One fetch reads the bucket partitions of the window together, {@code PER PARTITION LIMIT p},
 * merged by Cassandra in clustering order ({@code ORDER BY} over an {@code IN} of labels). A row
 * that had the key in several buckets has one entry in each, next to each other in that order: a
 * group. The latest bucket whose share of the window the row matched in makes the item.
 */
final class BucketMerge {
    /** A window over more buckets than this reads the index table: one fetch reads this many partitions at most. */
    static final int MAX_BUCKETS = 32;

    /**
     * Entries one fetch may return in all: the coordinator holds them to sort (the select is
     * unpaged), so the per-bucket limit shrinks as buckets grow ({@link #perBucket}).
     */
    static final int MAX_FETCHED = 5000;

    private BucketMerge() {}

    /** The {@code PER PARTITION LIMIT} of a fetch over {@code buckets} buckets that wants {@code wanted} entries of each: at most {@link #MAX_FETCHED} in all, at least 1. */
    static int perBucket(int wanted, int buckets) {
        return Math.max(1, Math.min(wanted, MAX_FETCHED / buckets));
    }

    /**
     * One bucket of the window: its label, its valid seal, and its share of the window, the tids
     * from {@code from} to {@code upTo} (both included): the window cut to the bucket's moments
     * (from the first timeuuid of its first 100-ns tick, as the seal counts them).
     */
    record Part(String label, UUID seal, UUID from, UUID upTo) {}

    /** One fetched entry: its bucket, its clustering key (a group's identity), and the seal's columns. */
    record Entry(String label, List<ByteBuffer> clustering, UUID tid, UUID first, UUID deleted, UUID seal) {}

    /** What a group decides: {@code at} is the entry (index in the group) that makes the item or is checked; -1 for SKIP. */
    record Decision(EntryDecision decision, int at) {
        static final Decision SKIP = new Decision(EntryDecision.SKIP, -1);
    }

    /**
     * The labels of the buckets a window from {@code from} to {@code upTo} (tids, both included)
     * overlaps, oldest first, or null when there are more than {@link #MAX_BUCKETS}.
     */
    static List<String> labels(BucketPeriod period, UUID from, UUID upTo) {
        String last = period.label(Tids.instant(upTo));
        List<String> out = new ArrayList<>();
        for (String label = period.label(Tids.instant(from)); label.compareTo(last) <= 0; label = period.next(label)) {
            if (out.size() == MAX_BUCKETS) {
                return null;
            }
            out.add(label);
        }
        return out;
    }

    /** The share of the window from {@code from} to {@code upTo} that lies in bucket {@code label}. */
    static Part part(BucketPeriod period, String label, UUID seal, UUID from, UUID upTo) {
        UUID start = Tids.minAtTicks(Tids.ticks(period.start(label)));
        UUID last = Tids.maxAtTicks(Tids.ticks(period.end(label)) - 1);
        return new Part(label, seal, Tids.compare(from, start) > 0 ? from : start, Tids.compare(upTo, last) < 0 ? upTo : last);
    }

    /** Whether some bucket returned {@code perPartitionLimit} entries: it may hold more, and the read must fetch again. */
    static boolean truncated(List<Entry> fetched, int perPartitionLimit) {
        Map<String, Integer> counts = new HashMap<>();
        for (Entry e : fetched) {
            if (counts.merge(e.label(), 1, Integer::sum) >= perPartitionLimit) {
                return true;
            }
        }
        return false;
    }

    /**
     * How many of a fetch's entries (in the order Cassandra merged them) form complete groups. A
     * bucket that returned {@code perPartitionLimit} entries may hold more after its last one, L;
     * every entry up to the least such L (in merge order) is complete, in every bucket, and so is
     * the rest of L's group. When no bucket was cut short, all are.
     */
    static int complete(List<Entry> fetched, int perPartitionLimit) {
        Map<String, Integer> counts = new HashMap<>();
        for (Entry e : fetched) {
            counts.merge(e.label(), 1, Integer::sum);
        }
        Map<String, Integer> seen = new HashMap<>();
        for (int i = 0; i < fetched.size(); i++) {
            String label = fetched.get(i).label();
            int n = seen.merge(label, 1, Integer::sum);
            if (n == perPartitionLimit && counts.get(label) == perPartitionLimit) {
                int end = i;
                while (end + 1 < fetched.size() && fetched.get(end + 1).clustering().equals(fetched.get(i).clustering())) {
                    end++;
                }
                return end + 1;
            }
        }
        return fetched.size();
    }

    /**
     * The decision of one group, its entries of one row in the window's buckets: only entries of
     * their bucket's valid seal count (an entry of a later seal throws {@link Resealed}); from the latest bucket back, the first whose entry is not
     * SKIP in its share of the window ({@link EntryDecision#inBucketWindow}) decides. A MATCH is
     * the row's latest version with the key in the window, since no later bucket's share has one;
     * a CHECK is left to the window's versions in the base, which decide for the whole window.
     */
    static Decision decide(List<Entry> group, Map<String, Part> parts) {
        int best = -1;
        EntryDecision decision = EntryDecision.SKIP;
        String bestLabel = null;
        for (int i = 0; i < group.size(); i++) {
            Entry e = group.get(i);
            Part part = parts.get(e.label());
            if (part == null || !Resealed.counts(e.label(), part.seal(), e.seal())) {
                continue; // an earlier seal's entry, which the valid one no longer has
            }
            EntryDecision d = EntryDecision.inBucketWindow(e.tid(), e.first(), e.deleted(), part.from(), part.upTo());
            if (d != EntryDecision.SKIP && (bestLabel == null || e.label().compareTo(bestLabel) > 0)) {
                best = i;
                decision = d;
                bestLabel = e.label();
            }
        }
        return best < 0 ? Decision.SKIP : new Decision(decision, best);
    }

    /**
     * An identity of the buckets a read merges and their seals, which its page tokens carry: a
     * later page whose buckets were sealed again since (their history changed) is refused.
     */
    static UUID seals(List<Part> parts) {
        java.security.MessageDigest d = io.cassandragsi.index.Sha256.digest();
        for (Part p : parts) {
            io.cassandragsi.index.Sha256.part(d, java.nio.charset.StandardCharsets.UTF_8.encode(p.label()));
            io.cassandragsi.index.Sha256.part(d, Tids.bytes(p.seal()));
        }
        ByteBuffer h = ByteBuffer.wrap(d.digest());
        return new UUID(h.getLong(), h.getLong());
    }
}
