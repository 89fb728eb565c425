package io.cassandragsi.repair.read;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.Catalog;
import java.util.UUID;
import java.util.function.Function;

/**
 * One read, resolved: its table, the table's kind, its index, the layout of its items, the query time {@code q} (a
 * window read's last tid), a window read's start {@code from} (null: a read of one moment), the
 * limit, whether it is consistent, and the fingerprint its page tokens carry. What {@link Pager},
 * the sources and {@link BaseChecker} work from, whichever source it reads.
 */
record ReadPlan(Catalog.Indexed table, ReadKind kind, IndexPlan plan, ItemLayout layout, UUID q, UUID from, int limit, boolean consistent,
        Fingerprint fingerprint) {

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
