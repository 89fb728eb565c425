package io.cassandragsi.check;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.schema.BucketPeriod;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.UUID;

/**
 * The entries of one versioned row in the buckets of an index (docs/design.md section 3.7), from
 * its stored versions: pure, the seal's rule (section 9.4).
 *
 * <p>Version i is current from its tid until the next version's (for the newest, from then on), in
 * timeuuid order: a bucket's moments are the timeuuids from the first of its first 100-ns tick.
 * For bucket L and key K, the row has an entry when some version with key K was current at a
 * moment of L: {@code _tid} is the latest such version, {@code _first} the earliest, {@code
 * _deleted} the first version after {@code _tid} with another key or none (null when there is
 * none), exact, since the seal reads every version; the projections are the {@code _tid}
 * version's. A read as of q in L then decides from the entry alone, except for a q between {@code
 * _first} and {@code _tid}, where the row may have left K and come back.
 */
public final class BucketEntries {
    private BucketEntries() {}

    /** One bucket entry of a row. */
    public record Entry(UUID tid, UUID first, UUID deleted, List<ByteBuffer> proj) {}

    /**
     * The row's entries in each bucket from {@code lo} to {@code hi} (labels of the index's period,
     * both included) that {@code wanted} accepts, by label then entry key; labels where the row has
     * none are left out.
     */
    public static Map<String, Map<List<ByteBuffer>, Entry>> of(TablePlan plan, IndexPlan index, List<Version> ascending, String lo, String hi,
            Predicate<String> wanted) {
        BucketPeriod period = index.index().bucket();
        Map<String, Map<List<ByteBuffer>, Entry>> out = new TreeMap<>();
        if (ascending.isEmpty() || lo.compareTo(hi) > 0) {
            return out;
        }
        int n = ascending.size();
        List<ByteBuffer>[] keys = keys(plan, index, ascending);
        for (int i = 0; i < n; i++) {
            if (keys[i] == null) {
                continue;
            }
            UUID tid = ascending.get(i).tid();
            UUID next = i + 1 < n ? ascending.get(i + 1).tid() : null;
            String from = max(period.label(Tids.instant(tid)), lo);
            String to = next == null ? hi : min(period.label(Tids.instant(next)), hi);
            UUID deleted = deletedAfter(ascending, keys, i);
            List<ByteBuffer> proj = VersionedEntries.projections(index, ascending.get(i));
            for (String label = from; label.compareTo(to) <= 0; label = period.next(label)) {
                if (!wanted.test(label) || (next != null && Tids.compare(next, Tids.minAtTicks(Tids.ticks(period.start(label)))) <= 0)) {
                    continue; // not asked for, or replaced before the bucket's first timeuuid: current at no moment of it
                }
                Map<List<ByteBuffer>, Entry> bucket = out.computeIfAbsent(label, l -> new LinkedHashMap<>());
                Entry previous = bucket.get(keys[i]);
                bucket.put(keys[i], new Entry(tid, previous == null ? tid : previous.first(), deleted, proj));
            }
        }
        return out;
    }

    private static String max(String a, String b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String min(String a, String b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @SuppressWarnings("unchecked")
    private static List<ByteBuffer>[] keys(TablePlan plan, IndexPlan index, List<Version> ascending) {
        List<ByteBuffer>[] keys = new List[ascending.size()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = plan.entryKey(index, ascending.get(i));
        }
        return keys;
    }

    /** The first version after {@code i} whose key is not version i's, or null. */
    private static UUID deletedAfter(List<Version> ascending, List<ByteBuffer>[] keys, int i) {
        for (int j = i + 1; j < ascending.size(); j++) {
            if (!keys[i].equals(keys[j])) {
                return ascending.get(j).tid();
            }
        }
        return null;
    }
}
