package io.cassandragsi.index;

import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The pure core of the write path (docs/design.md section 1): which index entries a version of a base row
 * yields, and which entries stop matching between consecutive versions (the sibling diff). Used by
 * the trigger on every write and by the repair service; no Cassandra or driver types here.
 */
public final class TablePlan {
    private final TableDef table;
    private final List<IndexPlan> indexes;
    private final int tidAttribute;
    private final boolean hasEverIndex;

    private TablePlan(TableDef table, Collection<Index> indexes) {
        this.table = table;
        List<IndexPlan> plans = new ArrayList<>();
        for (Index index : indexes) {
            plans.add(new IndexPlan(table, index));
        }
        this.indexes = List.copyOf(plans);
        this.tidAttribute = table.versioned() ? new ArrayList<>(table.attributes().keySet()).indexOf(table.tid().name()) : -1;
        this.hasEverIndex = plans.stream().anyMatch(p -> !p.perVersion());
    }

    /** A plan for all indexes of the definition. */
    public static TablePlan of(TableDef table) {
        return new TablePlan(table, table.indexes().values());
    }

    /** A plan for some indexes (each index may come from its own copy of the definition). */
    public static TablePlan of(TableDef table, Collection<Index> indexes) {
        return new TablePlan(table, indexes);
    }

    public TableDef table() {
        return table;
    }

    public List<IndexPlan> indexes() {
        return indexes;
    }

    /** True when some index declares a bucket (docs/design.md section 3.7). */
    public boolean hasBuckets() {
        return indexes.stream().anyMatch(p -> p.index().bucket() != null);
    }

    /** The tid's attribute position; -1 for an unversioned table. */
    public int tidAttribute() {
        return tidAttribute;
    }

    public boolean versioned() {
        return tidAttribute >= 0;
    }

    /** True when some index keeps one entry across versions, so every write needs a sibling diff. */
    public boolean hasEverIndex() {
        return hasEverIndex;
    }

    /**
     * An index entry for one version: the index-table key (partition values then clustering
     * values), and the projections: {@code projKnown[i]} false means the write did not carry
     * projection {@code i} (leave the cell alone); true with a null value means an explicit null.
     */
    public record Entry(IndexPlan index, List<ByteBuffer> key, ByteBuffer[] proj, boolean[] projKnown) {
        public boolean complete() {
            for (boolean known : projKnown) {
                if (!known) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.index == index && e.key.equals(key)
                    && Arrays.equals(e.proj, proj) && Arrays.equals(e.projKnown, projKnown);
        }

        @Override
        public int hashCode() {
            return key.hashCode() * 31 + Arrays.hashCode(proj);
        }
    }

    /**
     * What one version yields: its entries, whether anything could not be derived from it alone,
     * the indexes whose entry key is too large for Cassandra to store (left unindexed, see {@link
     * #MAX_KEY_BYTES}), and whether the write carried every index's key attributes (so that every
     * entry key of the version is known, projections aside).
     */
    public record Derivation(List<Entry> entries, boolean complete, List<IndexPlan> oversized, boolean keysKnown) {}

    /**
     * Derives the index entries of one version from what the write carries. An index whose key
     * attribute the write does not carry gets no entry and makes the derivation incomplete (the
     * repair service completes it from the stored version); a key attribute that is null means no
     * entry at all (sparse index).
     */
    public Derivation derive(VersionRow row) {
        List<Entry> entries = new ArrayList<>(indexes.size());
        List<IndexPlan> oversized = List.of();
        boolean complete = true;
        boolean keysKnown = true;
        for (IndexPlan plan : indexes) {
            List<ByteBuffer> key = key(plan, row);
            if (key == UNKNOWN) {
                complete = false;
                keysKnown = false;
                continue;
            }
            if (key == TOO_LARGE) {
                oversized = oversized.isEmpty() ? new ArrayList<>(1) : oversized;
                oversized.add(plan);
                continue;
            }
            if (key == null) {
                continue;
            }
            int[] projAttrs = plan.projAttributes();
            ByteBuffer[] proj = new ByteBuffer[projAttrs.length];
            boolean[] known = new boolean[projAttrs.length];
            for (int i = 0; i < projAttrs.length; i++) {
                if (row.has(projAttrs[i])) {
                    known[i] = true;
                    proj[i] = row.get(projAttrs[i]);
                } else {
                    complete = false;
                }
            }
            entries.add(new Entry(plan, key, proj, known));
        }
        return new Derivation(entries, complete, oversized, keysKnown);
    }

    private static final List<ByteBuffer> UNKNOWN = List.of();
    private static final List<ByteBuffer> TOO_LARGE = Arrays.asList(new ByteBuffer[0]);

    /**
     * Cassandra rejects key values over 64 KiB and empty partition-key values; a version whose
     * index key would hold one gets no entry in that index, like a null (documented in README).
     */
    public static final int MAX_KEY_VALUE = 0xFFFF;

    /**
     * The most an entry key may take in Cassandra's composite encoding (2 length bytes, the value and
     * an end byte per component): a composite partition key over it is dropped at flush ("Key size
     * ... skipping row"), and the rows table keeps the whole key as one composite component. A
     * bigger key is left unindexed and counted, never a failed write.
     */
    public static final int MAX_KEY_BYTES = 0xFFFF;

    /** An entry key's size in Cassandra's composite encoding: what {@link #MAX_KEY_BYTES} bounds. */
    public static int keyBytes(List<ByteBuffer> key) {
        int size = 0;
        for (ByteBuffer v : key) {
            size += 3 + v.remaining();
        }
        return size;
    }

    /** The entry key of a version for one index; null when sparse, {@link #UNKNOWN} when not carried, {@link #TOO_LARGE}. */
    private static List<ByteBuffer> key(IndexPlan plan, VersionRow row) {
        int[] attrs = plan.keyAttributes();
        ByteBuffer[] key = new ByteBuffer[attrs.length];
        for (int i = 0; i < attrs.length; i++) {
            int a = attrs[i];
            if (a < 0) {
                key[i] = plan.constantPartition();
                continue;
            }
            if (!row.has(a)) {
                return UNKNOWN;
            }
            ByteBuffer v = row.get(a);
            if (v == null || (i < plan.partitionSize() && !v.hasRemaining())) {
                return null;
            }
            key[i] = v;
        }
        List<ByteBuffer> out = Arrays.asList(key);
        return keyBytes(out) > MAX_KEY_BYTES ? TOO_LARGE : out;
    }

    /** One write the repair service makes to an index table. */
    public sealed interface IndexWrite permits Upsert, MarkDeleted, Reconciled, Removed {
        IndexPlan index();

        List<ByteBuffer> key();

        /** The write timestamp TS of the version the write is for. */
        long timestamp();
    }

    /** Entry matches at version {@code tid}: {@code _tid = tid} plus projections, at TS(tid) ({@code _deleted} is left alone). */
    public record Upsert(Entry entry, ByteBuffer tid, long timestamp) implements IndexWrite {
        @Override
        public IndexPlan index() {
            return entry.index();
        }

        @Override
        public List<ByteBuffer> key() {
            return entry.key();
        }
    }

    /** A projected cell of an unversioned table's entry: its value (null: delete it) at its own TS and TTL (0: none). */
    public record ProjCell(ByteBuffer value, long timestamp, int ttl) {}

    /**
     * An entry of an unversioned table as the base row has it now ({@link RowReconcile}): {@code
     * _tid} at its own TS with the TTL of the first key cell to expire (0: none), and each
     * projection that needs a write (null: leave it alone) at its own TS and TTL. No row marker:
     * the entry lives as long as its {@code _tid}. Also a versioned entry's correction ({@link
     * VersionRecompute}), where {@code tid} may be null (leave {@code _tid} alone).
     */
    public record Reconciled(IndexPlan index, List<ByteBuffer> key, ByteBuffer tid, long timestamp, int ttl, ProjCell[] proj)
            implements IndexWrite {}

    /**
     * The entry of an index that keeps one per version, whose version went away: the entry row is
     * deleted at {@code timestamp} (such entries have no {@code _deleted}; {@link
     * VersionRecompute#perVersion}).
     */
    public record Removed(IndexPlan index, List<ByteBuffer> key, long timestamp) implements IndexWrite {}

    /** Entry stopped matching at version {@code deletedAt}: {@code _deleted = deletedAt} at TS(deletedAt). */
    public record MarkDeleted(IndexPlan index, List<ByteBuffer> key, ByteBuffer deletedAt, long timestamp) implements IndexWrite {}

    /**
     * The sibling diff. {@code versions} are complete versions of one base row (every attribute
     * present), in ascending tid order, without gaps between them. For each consecutive pair whose
     * entry key differs in an index that keeps one entry across versions, the older key's entry is
     * marked deleted at the newer tid. With {@code upsertAll}, every version's entries are
     * (re-)upserted too: for versions the trigger could not index completely.
     */
    public List<IndexWrite> diff(List<? extends VersionRow> versions, boolean upsertAll) {
        List<IndexWrite> writes = new ArrayList<>();
        if (upsertAll) {
            for (VersionRow v : versions) {
                ByteBuffer tid = v.get(tidAttribute);
                long ts = WriteTimestamps.ofSerialized(tid);
                for (Entry e : derive(v).entries()) {
                    writes.add(new Upsert(e, tid, ts));
                }
            }
        }
        for (int i = 1; i < versions.size(); i++) {
            VersionRow older = versions.get(i - 1);
            VersionRow newer = versions.get(i);
            ByteBuffer newerTid = newer.get(tidAttribute);
            long ts = WriteTimestamps.ofSerialized(newerTid);
            for (IndexPlan plan : indexes) {
                if (plan.perVersion()) {
                    continue;
                }
                List<ByteBuffer> before = key(plan, older);
                List<ByteBuffer> after = key(plan, newer);
                if (before != null && before != UNKNOWN && before != TOO_LARGE && !before.equals(after)) {
                    writes.add(new MarkDeleted(plan, before, newerTid, ts));
                }
            }
        }
        return writes;
    }

    /** True when the version's entry key for this index is over {@link #MAX_KEY_BYTES}: it has no entry, and that is counted. */
    public boolean keyTooLarge(IndexPlan plan, VersionRow version) {
        return key(plan, version) == TOO_LARGE;
    }

    /** The entry key of a complete version for one index; null when the version has no entry. */
    public List<ByteBuffer> entryKey(IndexPlan plan, VersionRow version) {
        List<ByteBuffer> key = key(plan, version);
        return key == UNKNOWN || key == TOO_LARGE ? null : key;
    }
}
