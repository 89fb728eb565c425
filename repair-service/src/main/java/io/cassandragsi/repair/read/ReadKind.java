package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.util.UUID;

/**
 * What differs between kinds of table for a read (docs/design.md section 8.2), decided once per
 * table: which reads the kind can answer, what an index table's entry decides at a moment or in a
 * window, and how read repair flags a row. The rest of the read path asks its kind and never
 * which kind a table is.
 */
sealed interface ReadKind permits ReadKind.Versioned, ReadKind.Unversioned {
    ReadKind VERSIONED = new Versioned();
    ReadKind UNVERSIONED = new Unversioned();

    /** The kind of {@code def}'s table: the one place a read looks at it. */
    static ReadKind of(TableDef def) {
        return def.versioned() ? VERSIONED : UNVERSIONED;
    }

    /** Refuses (400) a read the kind cannot answer; checked before the read's window is parsed. */
    void refuse(IndexReader.Query query, TableDef def);

    /**
     * An index-table entry of an index that keeps one entry per base row, with its {@code _tid}
     * and {@code _deleted} (either may be null), at query time {@code q}.
     */
    EntryDecision atMoment(boolean consistent, UUID tid, UUID deleted, UUID q);

    /**
     * As {@link #atMoment}, in a window read: did its row match at some moment from the version
     * current at {@code from} to {@code upTo}? The entry keeps the latest interval in which its row
     * had its key, {@code [_tid, _deleted)}; deleted at {@code from}, that interval and every
     * earlier one ended before the window.
     */
    EntryDecision inWindow(boolean consistent, UUID tid, UUID deleted, UUID from, UUID upTo);

    /** The flags of a read repair's marker ({@code schema.QueueLayout}). */
    int repairFlags();

    /** Whether the entry is marked: a {@code _deleted} later than its {@code _tid}. */
    private static boolean marked(UUID tid, UUID deleted) {
        return deleted != null && tid != null && Tids.compare(deleted, tid) > 0;
    }

    /**
     * A versioned table: the base keeps every version. An entry whose {@code _tid} is after q, or
     * whose mark is after q (a read in the past: the mark may name a later non-matching version
     * than the exact one), is checked against the base version current at q; so is every entry of
     * a consistent read. In a window, an entry that is not marked and starts before the window's
     * end claims a match; one whose {@code _tid} is after the window (an earlier interval may lie
     * in it), that has none, or that is marked is checked against the window's versions.
     */
    final class Versioned implements ReadKind {
        private Versioned() {}

        @Override
        public void refuse(IndexReader.Query query, TableDef def) {}

        /** A moment q is the window from q to q. */
        @Override
        public EntryDecision atMoment(boolean consistent, UUID tid, UUID deleted, UUID q) {
            return inWindow(consistent, tid, deleted, q, q);
        }

        @Override
        public EntryDecision inWindow(boolean consistent, UUID tid, UUID deleted, UUID from, UUID upTo) {
            if (EntryDecision.deletedAt(tid, deleted, from)) {
                return EntryDecision.SKIP;
            }
            if (tid != null && Tids.compare(tid, upTo) <= 0 && !marked(tid, deleted)) {
                return consistent ? EntryDecision.CHECK : EntryDecision.MATCH;
            }
            return EntryDecision.CHECK_UNCLAIMED;
        }

        /** The row is recomputed from all its versions: an entry left behind by a delete, or one whose correction lost to cells a recompute wrote, is put right whatever its cells' timestamps. */
        @Override
        public int repairFlags() {
            return QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE;
        }
    }

    /**
     * An unversioned table: the base keeps no history. An entry without {@code _tid} has expired.
     * An eventual read as of q answers from {@code _tid}/{@code _deleted} alone: a match when
     * {@code _tid <= q} (an entry rewritten after q with the same key is not returned for q); in a
     * window, when its interval meets the window. A consistent read (as of now only) checks every
     * candidate against the current row; consistent reads in the past or in a window are refused.
     */
    final class Unversioned implements ReadKind {
        private Unversioned() {}

        @Override
        public void refuse(IndexReader.Query query, TableDef def) {
            if (!query.consistent()) {
                return;
            }
            String noHistory = def.qualifiedName() + " is unversioned: the base keeps no history, so a consistent read is as of now only; ";
            if (ReadRequest.SAFE.equals(query.asOf())) {
                throw ReadException.badRequest("bad_as_of", noHistory + "read at as_of=safe without consistent=true (answered from the index)");
            }
            if (query.asOf() != null) {
                throw ReadException.badRequest("bad_as_of", noHistory
                        + "leave out as_of, or read without consistent=true (answered from the index's _tid/_deleted)");
            }
            if (query.window()) {
                throw ReadException.badRequest("bad_window", def.qualifiedName() + " is unversioned: the base keeps no history, so a"
                        + " window read cannot be checked against it; read without consistent=true (answered from the index's _tid/_deleted)");
            }
        }

        /** An eventual read's moment q is the window from q to q; a consistent read checks every entry not deleted at q. */
        @Override
        public EntryDecision atMoment(boolean consistent, UUID tid, UUID deleted, UUID q) {
            EntryDecision fromIndex = inWindow(false, tid, deleted, q, q);
            return consistent && tid != null && !EntryDecision.deletedAt(tid, deleted, q) ? EntryDecision.CHECK : fromIndex;
        }

        @Override
        public EntryDecision inWindow(boolean consistent, UUID tid, UUID deleted, UUID from, UUID upTo) {
            if (EntryDecision.deletedAt(tid, deleted, from)) {
                return EntryDecision.SKIP;
            }
            return tid != null && Tids.compare(tid, upTo) <= 0 ? EntryDecision.MATCH : EntryDecision.SKIP;
        }

        @Override
        public int repairFlags() {
            return QueueLayout.FLAG_PARTIAL;
        }
    }
}
