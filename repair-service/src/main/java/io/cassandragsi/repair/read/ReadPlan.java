package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.cql.BoundStatement;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.Catalog;
import java.util.UUID;
import java.util.function.Function;

/**
 * One read, resolved and bound: its table and index, the layout of its items, the bound index
 * select, the query time {@code q} (a window read's last tid), a window read's start {@code from}
 * (null: a read of one moment), the limit, whether it is consistent, and the fingerprint its page
 * tokens carry, and the bucket it reads (null: the index table). What {@link Pager} and {@link
 * BaseChecker} work from.
 */
record ReadPlan(Catalog.Indexed table, IndexPlan plan, ItemLayout layout, BoundStatement statement, UUID q, UUID from, int limit,
        boolean consistent, Fingerprint fingerprint, Bucket bucket) {

    /**
     * The bucket a read pages through instead of the index table (docs/design.md section 8.2): its
     * label, its valid seal, and where a selected row holds {@code _first} and {@code _seal}.
     */
    record Bucket(String label, UUID seal, int firstColumn, int sealColumn) {}

    /** The moment the answer is as of: q, or a window's end (exclusive), one 100-ns tick after q. */
    java.time.Instant answerTime() {
        return answerTime(q, from != null);
    }

    /** The moment an answer with query time {@code q} is as of, of a window read or not. */
    static java.time.Instant answerTime(UUID q, boolean window) {
        return window ? Tids.instant(q).plusNanos(100) : Tids.instant(q);
    }

    /**
     * The query's fingerprint for its page tokens at query time {@code q}, computed when a token
     * is first encoded or decoded.
     */
    static final class Fingerprint {
        private final Function<UUID, String> canonical;
        private final UUID q;
        private byte[] hash;

        Fingerprint(Function<UUID, String> canonical, UUID q) {
            this.canonical = canonical;
            this.q = q;
        }

        byte[] get() {
            if (hash == null) {
                hash = PageToken.fingerprint(canonical.apply(q));
            }
            return hash;
        }
    }
}
