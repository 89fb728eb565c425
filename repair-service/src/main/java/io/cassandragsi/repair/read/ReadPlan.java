package io.cassandragsi.repair.read;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.TableDef;
import java.util.UUID;
import java.util.function.Function;

/**
 * One read, resolved: its table's definition, plan and kind, its index, the stores it reads, the layout of its items, the query time {@code q} (a
 * window read's last tid), a window read's start {@code from} (null: a read of one moment), the
 * limit, whether it is consistent, and the fingerprint its page tokens carry. What {@link Pager},
 * the sources and {@link BaseChecker} work from, whichever source it reads.
 */
record ReadPlan(TableDef def, TablePlan tablePlan, ReadKind kind, IndexPlan plan, ItemLayout layout, ReadStores stores, UUID q, UUID from, int limit, boolean consistent,
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
