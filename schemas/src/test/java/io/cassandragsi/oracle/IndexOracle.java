package io.cassandragsi.oracle;

import io.cassandragsi.schema.AttrType;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The expected index of one table, computed from its history alone (docs/design.md section 11): from the
 * definition and Cassandra's documented semantics, with an entry-key derivation of its own, written
 * again here on purpose so that it shares nothing with the code it judges ({@code
 * OracleIndependenceTest}). It reads of the definition only what the definition file says (the
 * attributes, the primary key, each index's hash, range and projected attributes) and derives the
 * rest from docs/design.md (the contract) and docs/limits.md:
 *
 * <ul>
 *   <li>a table is versioned when the definition does not say {@code "versioned": false} and its
 *       last clustering attribute is a timeuuid, the tid;
 *   <li>an index table's key is the hash attributes (none: the index name as a constant), the range
 *       attributes, then the remaining base primary-key attributes, less the tid unless the hash or
 *       range attributes hold it (then the index keeps an entry per version);
 *   <li>a version or row has no entry in an index when a key attribute is null, a hash value is
 *       empty, or the key takes more than 65,535 bytes in Cassandra's composite encoding (2 bytes of
 *       length and an end byte per value).
 * </ul>
 *
 * <p><b>Versioned tables</b> ({@link #write}, {@link #delete}): an index that keeps one entry across
 * versions has, per entry key, {@code _tid} = the latest remaining version that has the key, and
 * {@code _deleted} = the first later version of that row that does not have it (null when the latest
 * version has it); an entry whose key no remaining version has must not match. An index whose key
 * holds the tid has exactly one entry per remaining version. At query time q a row matches with the
 * version current at q (the latest with a tid not after q).
 *
 * <p><b>Unversioned tables</b> ({@link #row}): what the base holds now decides (README, the
 * timestamp rule for unversioned tables): a row has the entry whose key its live cells give, with
 * {@code _tid} the 100-ns tick ten times the newest write timestamp among its key cells, and the
 * live projected values.
 */
public final class IndexOracle {
    private final TableDef def;
    private final List<String> attributes;
    private final int tidAttribute;
    private final int[] rowKeyAttributes;
    private final Map<String, Layout> layouts = new LinkedHashMap<>();
    /** Versioned: row key -> remaining versions by tid, in timeuuid order. */
    private final Map<List<ByteBuffer>, TreeMap<UUID, List<ByteBuffer>>> versions = new LinkedHashMap<>();
    /** Unversioned: row key -> the row's live cells now. */
    private final Map<List<ByteBuffer>, List<Cell>> current = new LinkedHashMap<>();

    /** One index's key: per key column, the attribute position, or -1 for the constant; how many form the partition. */
    private record Layout(String name, int[] key, int partitionSize, int[] proj, boolean perVersion) {}

    /** An attribute's live cell in an unversioned row: its value (null: none) and its write timestamp in microseconds. */
    public record Cell(ByteBuffer value, long writetime) {
        public static final Cell NONE = new Cell(null, Long.MIN_VALUE);
    }

    public IndexOracle(TableDef def) {
        this.def = def;
        this.attributes = new ArrayList<>(def.attributes().keySet());
        List<Column> clustering = def.clustering();
        boolean endsInTimeuuid = !clustering.isEmpty() && clustering.get(clustering.size() - 1).type() == AttrType.TIMEUUID;
        boolean versioned = !Boolean.FALSE.equals(def.versionedFlag()) && endsInTimeuuid;
        this.tidAttribute = versioned ? attributes.indexOf(clustering.get(clustering.size() - 1).name()) : -1;
        List<Integer> rowKey = new ArrayList<>();
        for (Column c : def.partitionKey()) {
            rowKey.add(attributes.indexOf(c.name()));
        }
        for (Column c : clustering) {
            int a = attributes.indexOf(c.name());
            if (a != tidAttribute) {
                rowKey.add(a);
            }
        }
        this.rowKeyAttributes = rowKey.stream().mapToInt(Integer::intValue).toArray();
        for (Index index : def.indexes().values()) {
            layouts.put(index.name(), layout(index));
        }
    }

    private Layout layout(Index index) {
        List<Integer> key = new ArrayList<>();
        List<String> named = new ArrayList<>();
        for (Column c : index.hash()) {
            key.add(attributes.indexOf(c.name()));
            named.add(c.name());
        }
        if (key.isEmpty()) {
            key.add(-1);
        }
        int partitionSize = key.size();
        for (Column c : index.range()) {
            key.add(attributes.indexOf(c.name()));
            named.add(c.name());
        }
        boolean perVersion = tidAttribute >= 0 && named.contains(attributes.get(tidAttribute));
        List<Column> primaryKey = new ArrayList<>(def.partitionKey());
        primaryKey.addAll(def.clustering());
        for (Column c : primaryKey) {
            int a = attributes.indexOf(c.name());
            if (named.contains(c.name()) || (a == tidAttribute && !perVersion)) {
                continue;
            }
            key.add(a);
        }
        int[] proj = index.proj().stream().mapToInt(c -> attributes.indexOf(c.name())).toArray();
        return new Layout(index.name(), key.stream().mapToInt(Integer::intValue).toArray(), partitionSize, proj, perVersion);
    }

    private Layout layout(String index) {
        Layout l = layouts.get(index);
        if (l == null) {
            throw new IllegalArgumentException("no index " + index + " in " + def.qualifiedName() + " (" + layouts.keySet() + ")");
        }
        return l;
    }

    public TableDef definition() {
        return def;
    }

    public boolean versioned() {
        return tidAttribute >= 0;
    }

    /** True when the index's key holds the tid: one entry per version, no {@code _tid} or {@code _deleted}. */
    public boolean perVersion(String index) {
        return layout(index).perVersion();
    }

    /** The names of the index table's key columns, partition first (the constant one named {@code _index}). */
    public List<String> keyColumns(String index) {
        List<String> out = new ArrayList<>();
        for (int a : layout(index).key()) {
            out.add(a < 0 ? "_index" : attributes.get(a));
        }
        return out;
    }

    /** The attribute positions of the index's projections. */
    public int[] projections(String index) {
        return layout(index).proj().clone();
    }

    /** A version's or row's row key: the primary-key values, less the tid. */
    public List<ByteBuffer> rowKey(List<ByteBuffer> values) {
        List<ByteBuffer> out = new ArrayList<>(rowKeyAttributes.length);
        for (int a : rowKeyAttributes) {
            out.add(values.get(a));
        }
        return List.copyOf(out);
    }

    /** A version's tid (versioned tables). */
    public UUID tid(List<ByteBuffer> values) {
        ByteBuffer b = values.get(tidAttribute);
        return new UUID(b.getLong(b.position()), b.getLong(b.position() + 8));
    }

    /** Cassandra's largest key: 65,535 bytes in its composite encoding. */
    static final int MAX_KEY_BYTES = 0xFFFF;

    /**
     * The entry key that a version or row with these attribute values (by position, in definition
     * order; null: no value) has in the index, or null when it has no entry there.
     */
    public List<ByteBuffer> entryKey(String index, List<ByteBuffer> values) {
        Layout l = layout(index);
        List<ByteBuffer> key = new ArrayList<>(l.key().length);
        int bytes = 0;
        for (int i = 0; i < l.key().length; i++) {
            int a = l.key()[i];
            ByteBuffer v = a < 0 ? ByteBuffer.wrap(l.name().getBytes(StandardCharsets.UTF_8)) : values.get(a);
            if (v == null || (i < l.partitionSize() && !v.hasRemaining())) {
                return null;
            }
            bytes += 2 + v.remaining() + 1;
            key.add(v.asReadOnlyBuffer());
        }
        return bytes > MAX_KEY_BYTES ? null : Collections.unmodifiableList(key);
    }

    private List<ByteBuffer> proj(Layout l, List<ByteBuffer> values) {
        ByteBuffer[] out = new ByteBuffer[l.proj().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(l.proj()[i]);
        }
        return Collections.unmodifiableList(Arrays.asList(out));
    }

    // ----- versioned tables

    /** A complete version (every attribute, null for a null): a later write of the same tid replaces it, as in Cassandra. */
    public void write(List<ByteBuffer> values) {
        if (!versioned()) {
            throw new IllegalStateException(def.qualifiedName() + " is unversioned: give its rows to row()");
        }
        versions.computeIfAbsent(rowKey(values), k -> new TreeMap<>(Timeuuids::compare)).put(tid(values), nullable(values));
    }

    public void write(ByteBuffer... values) {
        write(Arrays.asList(values));
    }

    private static List<ByteBuffer> nullable(List<ByteBuffer> values) {
        return Collections.unmodifiableList(new ArrayList<>(values));
    }

    /** A version that went away (a delete, an expiry). */
    public void delete(List<ByteBuffer> rowKey, UUID tid) {
        TreeMap<UUID, List<ByteBuffer>> row = versions.get(rowKey);
        if (row != null) {
            row.remove(tid);
        }
    }

    /** The remaining versions, per row key, in timeuuid order. */
    public Map<List<ByteBuffer>, NavigableMap<UUID, List<ByteBuffer>>> rows() {
        return Collections.unmodifiableMap(versions);
    }

    /**
     * An expected entry: the row it stands for, {@code tid} (versioned: the latest version with the
     * key; per-version: the version), {@code deleted} (versioned, one entry across versions: the first
     * later version without the key, else null), the projected values of the {@code tid} version, and
     * {@code versionTicks} (unversioned: the 100-ns tick of its {@code _tid}; else the tid's).
     */
    public record Entry(List<ByteBuffer> rowKey, UUID tid, UUID deleted, List<ByteBuffer> proj, long versionTicks) {}

    /** The expected entries of an index: entry key to entry. Versioned tables from the versions, unversioned ones from the rows. */
    public Map<List<ByteBuffer>, Entry> expected(String index) {
        return versioned() ? expectedVersioned(layout(index)) : expectedUnversioned(layout(index));
    }

    private Map<List<ByteBuffer>, Entry> expectedVersioned(Layout l) {
        Map<List<ByteBuffer>, Entry> out = new LinkedHashMap<>();
        for (Map.Entry<List<ByteBuffer>, TreeMap<UUID, List<ByteBuffer>>> row : versions.entrySet()) {
            List<Map.Entry<UUID, List<ByteBuffer>>> ascending = new ArrayList<>(row.getValue().entrySet());
            for (int i = 0; i < ascending.size(); i++) {
                List<ByteBuffer> values = ascending.get(i).getValue();
                List<ByteBuffer> key = entryKey(l.name(), values);
                if (key == null) {
                    continue;
                }
                UUID tid = ascending.get(i).getKey();
                UUID deleted = null;
                if (!l.perVersion() && i + 1 < ascending.size() && !key.equals(entryKey(l.name(), ascending.get(i + 1).getValue()))) {
                    deleted = ascending.get(i + 1).getKey();
                }
                // ascending: a later version with the key replaces an earlier one's entry
                out.put(key, new Entry(row.getKey(), tid, deleted, proj(l, values), Timeuuids.ticks(tid)));
            }
        }
        return out;
    }

    /** Rows that match at query time {@code q}: entry key to the version current at q that has it. */
    public Map<List<ByteBuffer>, UUID> matchesAt(String index, UUID q) {
        Map<List<ByteBuffer>, UUID> out = new LinkedHashMap<>();
        for (TreeMap<UUID, List<ByteBuffer>> row : versions.values()) {
            Map.Entry<UUID, List<ByteBuffer>> at = row.floorEntry(q);
            if (at == null) {
                continue;
            }
            List<ByteBuffer> key = entryKey(index, at.getValue());
            if (key != null) {
                out.put(key, at.getKey());
            }
        }
        return out;
    }

    /**
     * Rows that match at some moment of a window (docs/design.md section 8.1), entry key to the
     * latest version that has it there: the versions of a row in the window are the one current
     * at {@code from} and those after it up to {@code upTo}; a per-version index lists every version
     * up to {@code upTo}.
     */
    public Map<List<ByteBuffer>, UUID> matchesWithin(String index, UUID from, UUID upTo) {
        Map<List<ByteBuffer>, UUID> out = new LinkedHashMap<>();
        for (TreeMap<UUID, List<ByteBuffer>> row : versions.values()) {
            UUID start = perVersion(index) ? null : row.floorKey(from);
            for (Map.Entry<UUID, List<ByteBuffer>> v : row.entrySet()) { // ascending: a later version in the window wins
                boolean inWindow = Timeuuids.compare(v.getKey(), upTo) <= 0
                        && (start == null || Timeuuids.compare(v.getKey(), start) >= 0);
                List<ByteBuffer> key = inWindow ? entryKey(index, v.getValue()) : null;
                if (key != null) {
                    out.put(key, v.getKey());
                }
            }
        }
        return out;
    }

    /**
     * How an observed {@code _deleted} compares with the expected one. A {@code _deleted} written
     * from an incomplete view of the history (a version that arrived later with an older tid, or was
     * in flight during a diff) wins over the exact one under the TS rule, so it may name a later
     * version of the row that does not have the key (README, Limits: "_deleted after late
     * versions"); null-ness is exact.
     */
    public enum DeletedVerdict { EXACT, LATER_NON_MATCHING_VERSION, WRONG }

    public DeletedVerdict judgeDeleted(String index, List<ByteBuffer> entryKey, Entry expected, UUID observed) {
        if (Objects.equals(expected.deleted(), observed)) {
            return DeletedVerdict.EXACT;
        }
        if (expected.deleted() == null || observed == null || Timeuuids.compare(observed, expected.deleted()) < 0) {
            return DeletedVerdict.WRONG;
        }
        TreeMap<UUID, List<ByteBuffer>> row = versions.get(expected.rowKey());
        List<ByteBuffer> v = row == null ? null : row.get(observed);
        return v != null && !entryKey.equals(entryKey(index, v)) ? DeletedVerdict.LATER_NON_MATCHING_VERSION : DeletedVerdict.WRONG;
    }

    /**
     * Whether an entry whose cells read {@code tid} and {@code deleted} (either null) matches at
     * query time {@code q}, judged from the index alone (docs/design.md section 3.1): it has a {@code _tid},
     * and no {@code _deleted} later than {@code _tid} and at or before q. (A read checks an entry with
     * {@code _tid} after q against the base; pass {@code q} null for "now", after everything.)
     */
    public static boolean matches(UUID tid, UUID deleted, UUID q) {
        if (tid == null) {
            return false;
        }
        if (deleted == null || Timeuuids.compare(deleted, tid) <= 0) {
            return true;
        }
        return q != null && Timeuuids.compare(deleted, q) > 0;
    }

    // ----- unversioned tables

    /** An unversioned row as the base holds it now: each attribute's live cell by position (key attributes: their value). */
    public void row(List<Cell> cells) {
        if (versioned()) {
            throw new IllegalStateException(def.qualifiedName() + " is versioned: give it versions with write()");
        }
        List<ByteBuffer> values = new ArrayList<>(cells.size());
        cells.forEach(c -> values.add(c.value()));
        current.put(rowKey(values), List.copyOf(cells));
    }

    /** Forgets an unversioned row (it has no live cell). */
    public void removeRow(List<ByteBuffer> rowKey) {
        current.remove(rowKey);
    }

    private Map<List<ByteBuffer>, Entry> expectedUnversioned(Layout l) {
        Map<List<ByteBuffer>, Entry> out = new LinkedHashMap<>();
        List<Integer> primary = new ArrayList<>();
        for (int a : rowKeyAttributes) {
            primary.add(a);
        }
        for (Map.Entry<List<ByteBuffer>, List<Cell>> row : current.entrySet()) {
            List<ByteBuffer> values = new ArrayList<>();
            row.getValue().forEach(c -> values.add(c.value()));
            List<ByteBuffer> key = entryKey(l.name(), values);
            if (key == null) {
                continue;
            }
            long newest = Long.MIN_VALUE;
            for (int a : l.key()) {
                if (a >= 0 && !primary.contains(a)) {
                    newest = Math.max(newest, row.getValue().get(a).writetime());
                }
            }
            out.put(key, new Entry(row.getKey(), null, null, proj(l, values), Math.multiplyExact(newest, 10L)));
        }
        return out;
    }
}
