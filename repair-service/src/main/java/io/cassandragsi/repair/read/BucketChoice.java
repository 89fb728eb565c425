package io.cassandragsi.repair.read;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketTable;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.BucketPeriod;
import io.cassandragsi.repair.store.MergedSelect;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a read pages through a bucket instead of the index table (docs/design.md section 8.2):
 * an eventual read as of a fixed past moment ({@code as_of}, not {@code safe}), or in a window
 * whose both ends lie in one bucket, of an index that declares a bucket, when that bucket has a
 * valid seal; an eventual window read over several buckets merges them ({@link #mergedLabels})
 * when every one has a valid seal. The later pages of a read keep the source of its first page: a
 * bucket sealed again in between fails them with 400 {@code bad_next}.
 */
final class BucketChoice {
    private static final Logger LOG = LoggerFactory.getLogger(BucketChoice.class);

    private BucketChoice() {}

    /**
     * A read through a bucket met an entry of a seal newer than the valid one it reads by: a seal
     * began after the read looked at the bucket's state, and is overwriting its entries (docs/design.md
     * section 8.2). The entries read are then a mix of two seals, so the read starts again (a first
     * page; the bucket's state is no longer valid, so it reads the index table) or fails with 400
     * {@code bad_next} (a later page).
     */
    static final class Resealed extends RuntimeException {
        Resealed(String label) {
            super("bucket " + label + " is being sealed again", null, false, false);
        }
    }

    /** How many times a first page that met a seal in progress is read again before it fails with 503. */
    static final int RESEALED_RETRIES = 2;

    /**
     * Runs {@code attempt} (a read's page); when it fails because a bucket it read was being sealed
     * again ({@link Resealed}), a first page runs again, at most {@value #RESEALED_RETRIES} more
     * times (counted in {@code again}), then fails with 503; a later page fails with 400 {@code
     * bad_next}. Any other outcome is the attempt's.
     */
    static <T> CompletableFuture<T> retryResealed(java.util.function.Supplier<CompletableFuture<T>> attempt, boolean firstPage,
            java.util.concurrent.atomic.LongAdder again) {
        return attempt.get().exceptionallyCompose(e -> retry(e, attempt, firstPage, again, 1));
    }

    private static <T> CompletableFuture<T> retry(Throwable e, java.util.function.Supplier<CompletableFuture<T>> attempt, boolean firstPage,
            java.util.concurrent.atomic.LongAdder again, int tries) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : e;
        if (!(cause instanceof Resealed)) {
            return CompletableFuture.failedFuture(e);
        }
        if (!firstPage) {
            return CompletableFuture.failedFuture(ReadException.badRequest("bad_next", cause.getMessage()
                    + " since the first page of this read (its history changed); read again from the first page"));
        }
        if (tries > RESEALED_RETRIES) {
            return CompletableFuture.failedFuture(ReadException.unavailable(cause.getMessage() + "; read again", cause));
        }
        again.increment();
        try {
            return attempt.get().exceptionallyCompose(f -> retry(f, attempt, firstPage, again, tries + 1));
        } catch (RuntimeException f) {
            return CompletableFuture.failedFuture(f);
        }
    }

    /**
     * Whether an entry of seal {@code entrySeal} counts for a read by {@code validSeal}: an earlier
     * seal's entry (one the valid seal no longer has) does not; a later seal's is {@link Resealed}.
     */
    static boolean counts(String label, UUID validSeal, UUID entrySeal) {
        if (entrySeal == null) {
            return false;
        }
        if (entrySeal.equals(validSeal)) {
            return true;
        }
        if (io.cassandragsi.index.Tids.compare(entrySeal, validSeal) > 0) {
            throw new Resealed(label);
        }
        return false;
    }

    /** The label of the one bucket the read lies in, or null when it cannot read a bucket. */
    static String label(ReadRequest request, boolean consistent, IndexPlan plan, UUID q) {
        BucketPeriod period = plan.index().bucket();
        if (period == null || consistent || request.safe() || request.fixedTime() == null) {
            return null;
        }
        String label = period.label(Tids.instant(q));
        if (request.window() && (request.from.equals(ReadRequest.EARLIEST) || !period.label(Tids.instant(request.from)).equals(label))) {
            return null;
        }
        return label;
    }

    /**
     * The bucket a read pages through, or null for the index table: on a first page ({@code
     * tokenSeal} unknown, {@code firstPage} true) the bucket's seal if valid; on a later page the
     * seal its token names, which must still be the valid one.
     */
    static CompletableFuture<ReadPlan.Bucket> resolve(Catalog.Indexed table, IndexPlan plan, String label, boolean firstPage, UUID tokenSeal,
            com.datastax.oss.driver.api.core.ConsistencyLevel cl) {
        BucketTable bucketTable = table.bucketTables.get(plan);
        if (!firstPage && tokenSeal == null) {
            return CompletableFuture.completedFuture(null);
        }
        if (label == null || bucketTable == null || !table.knowsBuckets()) {
            if (!firstPage) {
                throw ReadException.badRequest("bad_next", "'next' pages through a bucket this service no longer reads; read again from the first page");
            }
            return CompletableFuture.completedFuture(null);
        }
        String ks = table.definition.keyspace();
        CompletableFuture<BucketsTable.State> state;
        try {
            state = table.buckets().state(ks, table.definition.table(), plan.index().name(), label, cl);
        } catch (RuntimeException e) {
            state = CompletableFuture.failedFuture(e);
        }
        int first = bucketTable.layout().firstColumn();
        int seal = bucketTable.layout().sealColumn();
        return state.handle((s, e) -> {
            if (firstPage) {
                if (e != null) {
                    LOG.debug("bucket {} of {}: seal not known, reading {}: {}", label, plan.tableName(), plan.tableName(), e.toString());
                    return null;
                }
                return s.valid() ? new ReadPlan.Bucket(label, s.seal(), first, seal) : null;
            }
            if (e != null) {
                throw e instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(e);
            }
            if (!s.valid() || !tokenSeal.equals(s.seal())) {
                throw ReadException.badRequest("bad_next", "bucket " + label + " of index " + plan.index().name()
                        + " was sealed again since the first page of this read (its history changed); read again from the first page");
            }
            return new ReadPlan.Bucket(label, tokenSeal, first, seal);
        });
    }

    /**
     * The labels of the buckets an eventual window read with both ends given merges (docs/design.md
     * section 8.2), oldest first: at least two, at most {@value BucketMerge#MAX_BUCKETS}, of an
     * index whose clustering columns share one order; else null (one bucket, or the index table).
     */
    static List<String> mergedLabels(ReadRequest request, boolean consistent, IndexPlan plan, UUID q) {
        BucketPeriod period = plan.index().bucket();
        if (period == null || consistent || !request.window() || request.fixedTime() == null || request.from.equals(ReadRequest.EARLIEST)
                || MergedSelect.order(plan.index()) == null) {
            return null;
        }
        List<String> labels = BucketMerge.labels(period, request.from, q);
        return labels == null || labels.size() < 2 ? null : labels;
    }

    /**
     * The buckets a window read from {@code from} to {@code q} merges, with their valid seals and
     * shares of the window; null for the index table. A first page merges when every bucket has a
     * valid seal; a later page ({@code tokenSeals} from its token, {@link BucketMerge#seals})
     * merges the same seals or fails with 400 {@code bad_next}.
     */
    static CompletableFuture<List<BucketMerge.Part>> resolveMerge(Catalog.Indexed table, IndexPlan plan, List<String> labels, boolean firstPage,
            UUID tokenSeals, UUID from, UUID q, com.datastax.oss.driver.api.core.ConsistencyLevel cl) {
        if (table.bucketTables.get(plan) == null || !table.knowsBuckets()) {
            if (!firstPage) {
                throw ReadException.badRequest("bad_next", "'next' pages through buckets this service no longer reads; read again from the first page");
            }
            return CompletableFuture.completedFuture(null);
        }
        String ks = table.definition.keyspace();
        List<CompletableFuture<BucketsTable.State>> states = new ArrayList<>(labels.size());
        for (String label : labels) {
            try {
                states.add(table.buckets().state(ks, table.definition.table(), plan.index().name(), label, cl));
            } catch (RuntimeException e) {
                states.add(CompletableFuture.failedFuture(e));
            }
        }
        BucketPeriod period = plan.index().bucket();
        return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new)).handle((ignored, e) -> {
            if (e != null) {
                if (firstPage) {
                    LOG.debug("buckets {} of {}: seals not known, reading {}: {}", labels, plan.tableName(), plan.tableName(), e.toString());
                    return null;
                }
                throw e instanceof RuntimeException r ? r : new java.util.concurrent.CompletionException(e);
            }
            List<BucketMerge.Part> parts = new ArrayList<>(labels.size());
            for (int i = 0; i < labels.size(); i++) {
                BucketsTable.State s = states.get(i).join();
                if (!s.valid()) {
                    break;
                }
                parts.add(BucketMerge.part(period, labels.get(i), s.seal(), from, q));
            }
            boolean all = parts.size() == labels.size();
            if (firstPage) {
                return all ? parts : null;
            }
            if (!all || !BucketMerge.seals(parts).equals(tokenSeals)) {
                throw ReadException.badRequest("bad_next", "a bucket of index " + plan.index().name() + " in " + labels.get(0) + ".."
                        + labels.get(labels.size() - 1) + " was sealed again since the first page of this read (its history changed);"
                        + " read again from the first page");
            }
            return parts;
        });
    }
}
