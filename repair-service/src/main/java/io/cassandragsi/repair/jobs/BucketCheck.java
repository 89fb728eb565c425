package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.BucketDigest;
import io.cassandragsi.check.RowHistory;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.repair.store.BucketStores;
import io.cassandragsi.repair.store.BucketsTable;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The check of bucket tables (docs/design.md section 9.2), a step of {@link Check}: per bucketed
 * index, the buckets with a valid seal when it begins ({@link #begin}) are compared by digest
 * ({@link BucketDigest}): the expected side from the base rows the check's first pass reads
 * ({@link Part#expect}, the seal's rule), the observed side from a scan of the bucket table
 * ({@link Part#scan}) that counts only the entries of that seal; each range counts once it is done
 * ({@link #commit}). {@link #finish} reads the states again and
 * compares only the buckets whose valid seal is the same at both ends (a seal or a change in
 * between is the sealer's business); with {@code fix}, each bucket that differs gets a change, so
 * the sealer seals it again and reads use the index table meanwhile (section 9.4). Memory is one
 * digest per bucket, whatever the entries.
 */
final class BucketCheck {
    private static final Logger LOG = LoggerFactory.getLogger(BucketCheck.class);

    private final TablePlan plan;
    private final List<IndexPlan> indexes;
    private final BucketStores stores;
    private final int maxExamples;
    private final Map<IndexPlan, Look> looks = new IdentityHashMap<>();

    /** One index: the valid seal of each bucket compared, and its two digests. */
    private record Look(Map<String, UUID> seals, BucketDigest expected, BucketDigest observed) {}

    /** Over {@code indexes} (bucketed indexes of the table {@code plan} is for, each with a bucket table). */
    BucketCheck(TablePlan plan, List<IndexPlan> indexes, BucketStores stores, int maxExamples) {
        if (indexes.isEmpty()) {
            throw new IllegalArgumentException("a bucket check needs a bucketed index");
        }
        this.plan = plan;
        this.indexes = List.copyOf(indexes);
        this.stores = stores;
        this.maxExamples = maxExamples;
    }

    List<IndexPlan> indexes() {
        return indexes;
    }

    /** Reads the buckets' states: those with a valid seal now are the ones compared. Before any read of the base or the bucket tables. */
    void begin() {
        looks.clear();
        for (IndexPlan p : indexes) {
            Map<String, UUID> seals = validSeals(stores.states(p));
            looks.put(p, new Look(seals, new BucketDigest(p.index().bucket(), seals.keySet()), new BucketDigest(p.index().bucket(), seals.keySet())));
        }
    }

    /** Whether {@link #begin} ran: the base rows and the bucket tables are then worth reading for it. */
    boolean begun() {
        return !looks.isEmpty();
    }

    /**
     * What one attempt at one token range adds to the digests, added to them only once the attempt
     * finished ({@link #commit}): a range that fails is read again from its start ({@link
     * RangeRunner#runRetrying}), and must not count twice. One digest per bucket and index.
     */
    final class Part {
        private final Map<IndexPlan, BucketDigest> expected = new IdentityHashMap<>();
        private final Map<IndexPlan, BucketDigest> observed = new IdentityHashMap<>();

        private Part() {
            looks.forEach((p, look) -> {
                expected.put(p, look.expected().empty());
                observed.put(p, look.observed().empty());
            });
        }

        /** A base row the check read: the entries it should have in the compared buckets (a versioned row; buckets only exist on versioned tables). */
        void expect(RowHistory row) {
            if (row instanceof RowHistory.Versions v) {
                expected.forEach((p, digest) -> digest.addRow(plan, p, v.versions()));
            }
        }

        /** One token range of {@code p}'s bucket table: the entries of each compared bucket's valid seal; false when stopped early. */
        boolean scan(IndexPlan p, TokenRange range, Progress progress, BooleanSupplier stop) throws InterruptedException {
            Map<String, UUID> seals = looks.get(p).seals();
            BucketDigest digest = observed.get(p);
            return stores.scan(p, range.start(), range.end(), (label, key, entry, seal) -> {
                progress.entries(1);
                if (seal != null && seal.equals(seals.get(label))) {
                    digest.add(label, key, entry);
                }
            }, stop);
        }
    }

    /** A new attempt at a range ({@link #begin} first). */
    Part part() {
        return new Part();
    }

    /** Counts an attempt that finished its range. */
    void commit(Part part) {
        looks.forEach((p, look) -> {
            look.expected().addAll(part.expected.get(p));
            look.observed().addAll(part.observed.get(p));
        });
    }

    /**
     * Reads the states again and compares each bucket whose valid seal did not change since {@link
     * #begin}; with {@code fix}, records a change for each that differs. Once every range of the
     * base and of the bucket tables was read, or the digests are partial.
     */
    List<CheckResult.BucketReport> finish(boolean fix) {
        List<CheckResult.BucketReport> out = new ArrayList<>();
        for (IndexPlan p : indexes) {
            Look look = looks.get(p);
            Map<String, UUID> now = validSeals(stores.states(p));
            NavigableSet<String> differing = new TreeSet<>();
            List<String> examples = new ArrayList<>();
            long compared = 0;
            long skipped = 0;
            for (Map.Entry<String, UUID> e : look.seals().entrySet()) {
                String label = e.getKey();
                if (!Objects.equals(e.getValue(), now.get(label))) {
                    skipped++; // sealed again, or changed, meanwhile: the digests may mix two histories
                    continue;
                }
                compared++;
                BucketDigest.Sum want = look.expected().sum(label);
                BucketDigest.Sum got = look.observed().sum(label);
                if (!want.equals(got)) {
                    differing.add(label);
                    if (examples.size() < maxExamples) {
                        examples.add(String.format("bucket %s (seal %s): expected %,d entries, found %,d%s", label, e.getValue(), want.count(),
                                got.count(), want.count() == got.count() ? " (entries differ)" : ""));
                    }
                }
            }
            long givenBack = 0;
            if (fix && !differing.isEmpty()) {
                stores.changed(p, differing);
                givenBack = differing.size();
                LOG.info("bucket check of {}.{}: {} bucket(s) differ from the base ({} to {}); a change is recorded, the sealer seals them again",
                        plan.table().qualifiedName(), p.index().name(), differing.size(), differing.first(), differing.last());
            }
            out.add(new CheckResult.BucketReport(p.index().name(), compared, skipped, differing.size(), givenBack, List.copyOf(examples)));
        }
        return out;
    }

    /** The buckets with a valid seal, and that seal. */
    private static Map<String, UUID> validSeals(Map<String, BucketsTable.State> states) {
        Map<String, UUID> out = new TreeMap<>();
        states.forEach((label, s) -> {
            if (s.valid()) {
                out.put(label, s.seal());
            }
        });
        return out;
    }
}
