package io.cassandragsi.maintain;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.VersionRow;
import io.cassandragsi.oracle.LwwTable;
import io.cassandragsi.oracle.LwwTable.Cell;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Order;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * The in-memory twin of a versioned base table ({@link VersionReads}, docs/design.md section 6.1)
 * on the one last-write-wins model ({@link LwwTable}): a row of the twin's table is one version,
 * named by its partition key values ({@code List<ByteBuffer>}) and its clustering values, the tid
 * last ({@code List<ByteBuffer>}). A version is visible while {@link LwwTable#exists} says so (its
 * row marker or one of its cells lives), with the values a read returns now.
 *
 * <p>Writes are mutations made now and landing when run ({@link #write}, the deletes): a test
 * keeps a version "not visible yet" by not running its mutation, and lands mutations in any order.
 * One replica: every read is as consistent as {@link ReadLevel#SERIAL}; the levels asked for are
 * kept in {@link #levels}. Clustering values before the tid compare as unsigned bytes (right for
 * text and blobs; not for negative numbers), tids as Cassandra's {@code TimeUUIDType}.
 */
public final class MemoryVersions implements VersionReads {
    private static final ByteBuffer EMPTY = ByteBuffer.allocate(0);

    private final TableDef def;
    private final List<String> names;
    private final int tidAttribute;
    private final int[] partitionAttributes;
    private final int[] prefixAttributes;
    /** What {@link #newest} reads of a version: the row key, the tid and the indexes' key attributes. */
    private final BitSet newestKnown = new BitSet();
    private final LongSupplier nowMillis;
    private final boolean readsManyNewest;
    /** The base table: partition key values, then clustering values (the tid last). */
    public final LwwTable table;
    /** Every read level asked for, in order. */
    public final List<ReadLevel> levels = new ArrayList<>();

    public MemoryVersions(TablePlan plan, LongSupplier nowMillis) {
        this.def = plan.table();
        if (!def.versioned()) {
            throw new IllegalArgumentException(def.qualifiedName() + " is not versioned");
        }
        this.names = new ArrayList<>(def.attributes().keySet());
        this.tidAttribute = plan.tidAttribute();
        this.partitionAttributes = positions(def.partitionKey());
        this.prefixAttributes = positions(def.clusteringPrefix());
        this.nowMillis = nowMillis;
        int tidAt = def.clustering().size() - 1;
        this.table = new LwwTable(nowMillis, (Comparator<List<ByteBuffer>>) (a, b) -> compareClustering(a, b, tidAt));
        for (int a : partitionAttributes) {
            newestKnown.set(a);
        }
        for (int a : prefixAttributes) {
            newestKnown.set(a);
        }
        newestKnown.set(tidAttribute);
        for (IndexPlan p : plan.indexes()) {
            for (int a : p.keyAttributes()) {
                if (a >= 0) {
                    newestKnown.set(a);
                }
            }
        }
        this.readsManyNewest = def.partitionKey().size() == 1 && def.clusteringPrefix().isEmpty() && def.tid().order() == Order.DESC;
    }

    private int[] positions(List<Column> columns) {
        return columns.stream().mapToInt(c -> names.indexOf(c.name())).toArray();
    }

    /**
     * Clustering values in order: the tid's ({@code tidAt}) as timeuuids, the others as unsigned
     * bytes. A shorter list is a prefix bound: equal to every clustering it begins (a range delete
     * of a row's versions).
     */
    private static int compareClustering(List<ByteBuffer> a, List<ByteBuffer> b, int tidAt) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            int c = i == tidAt ? Tids.compare(Tids.uuid(a.get(i)), Tids.uuid(b.get(i))) : LwwTable.compareUnsigned(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    private long nowInSec() {
        return Math.floorDiv(nowMillis.getAsLong(), 1000L);
    }

    // ----- writes: mutations made now (their TTLs count from now), landing when run

    /**
     * The base mutation of a write of version {@code v} at client timestamp {@code w}: an {@code
     * INSERT} ({@code insert}: with a row marker) or an {@code UPDATE} of the attributes {@code v}
     * carries (a null as a tombstone), with {@code ttl} (0: none).
     */
    public Runnable write(VersionRow v, boolean insert, long w, int ttl) {
        List<ByteBuffer> pk = values(v, partitionAttributes);
        List<ByteBuffer> clustering = values(v, prefixAttributes);
        clustering.add(v.get(tidAttribute));
        long nowSec = nowInSec();
        Map<String, Cell> cells = new LinkedHashMap<>();
        for (int a = 0; a < names.size(); a++) {
            if (!primaryKey(a) && v.has(a)) {
                ByteBuffer value = v.get(a);
                cells.put(names.get(a), value == null ? Cell.tombstone(w, nowSec) : Cell.written(value, w, ttl, nowSec));
            }
        }
        return () -> {
            if (insert) {
                table.mergeMarker(pk, clustering, Cell.written(EMPTY, w, ttl, nowSec));
            }
            cells.forEach((column, cell) -> table.merge(pk, clustering, column, cell));
        };
    }

    private boolean primaryKey(int attribute) {
        return attribute == tidAttribute || def.isPrimaryKey(names.get(attribute));
    }

    private static List<ByteBuffer> values(VersionRow v, int[] attributes) {
        List<ByteBuffer> out = new ArrayList<>(attributes.length + 1);
        for (int a : attributes) {
            out.add(v.get(a));
        }
        return out;
    }

    /** {@code DELETE ... WHERE <row key> AND tid = ?}: one version. */
    public Runnable deleteVersion(List<ByteBuffer> rowKey, UUID tid, long ts) {
        List<ByteBuffer> clustering = prefix(rowKey);
        clustering.add(Tids.bytes(tid));
        return () -> table.deleteRow(partition(rowKey), clustering, ts);
    }

    /** {@code DELETE ... WHERE <row key> AND tid >= from AND tid <= to}: a range of a row's versions. */
    public Runnable deleteRange(List<ByteBuffer> rowKey, UUID from, UUID to, long ts) {
        List<ByteBuffer> lower = prefix(rowKey);
        lower.add(Tids.bytes(from));
        List<ByteBuffer> upper = prefix(rowKey);
        upper.add(Tids.bytes(to));
        return () -> table.deleteRange(partition(rowKey), lower, true, upper, true, ts);
    }

    /** {@code DELETE ... WHERE <row key>}: every version of a row (a range delete when the row key has clustering values). */
    public Runnable deleteRow(List<ByteBuffer> rowKey, long ts) {
        List<ByteBuffer> prefix = prefix(rowKey);
        return prefix.isEmpty() ? deletePartition(rowKey, ts) : () -> table.deleteRange(partition(rowKey), prefix, true, prefix, true, ts);
    }

    /** {@code DELETE ... WHERE <partition key>}. */
    public Runnable deletePartition(List<ByteBuffer> partitionKey, long ts) {
        List<ByteBuffer> pk = List.copyOf(partitionKey);
        return () -> table.deletePartition(pk, ts);
    }

    private List<ByteBuffer> partition(List<ByteBuffer> rowKey) {
        return List.copyOf(rowKey.subList(0, partitionAttributes.length));
    }

    private List<ByteBuffer> prefix(List<ByteBuffer> rowKey) {
        return new ArrayList<>(rowKey.subList(partitionAttributes.length, rowKey.size()));
    }

    // ----- reads

    @SuppressWarnings("unchecked")
    private List<Version> visible(List<ByteBuffer> pk, List<ByteBuffer> prefix) {
        List<Version> out = new ArrayList<>();
        for (Object c : table.clusterings(pk)) {
            List<ByteBuffer> clustering = (List<ByteBuffer>) c;
            if ((prefix == null || clustering.subList(0, prefix.size()).equals(prefix)) && table.exists(pk, clustering)) {
                out.add(version(pk, clustering));
            }
        }
        out.sort(Version.ASCENDING);
        return out;
    }

    private Version version(List<ByteBuffer> pk, List<ByteBuffer> clustering) {
        ByteBuffer[] values = new ByteBuffer[names.size()];
        for (int i = 0; i < partitionAttributes.length; i++) {
            values[partitionAttributes[i]] = pk.get(i);
        }
        for (int i = 0; i < prefixAttributes.length; i++) {
            values[prefixAttributes[i]] = clustering.get(i);
        }
        values[tidAttribute] = clustering.get(clustering.size() - 1);
        for (int a = 0; a < names.size(); a++) {
            if (!primaryKey(a)) {
                values[a] = table.value(pk, clustering, names.get(a));
            }
        }
        return new Version(values, tidAttribute);
    }

    @Override
    public List<Version> neighbourhood(List<ByteBuffer> rowKey, UUID min, UUID max, ReadLevel level) {
        levels.add(level);
        List<Version> all = visible(partition(rowKey), prefix(rowKey));
        List<Version> out = new ArrayList<>();
        Version before = null;
        Version after = null;
        for (Version v : all) {
            if (Tids.compare(v.tid(), min) < 0) {
                before = v;
            } else if (Tids.compare(v.tid(), max) <= 0) {
                out.add(v);
            } else if (after == null) {
                after = v;
            }
        }
        if (before != null) {
            out.add(0, before);
        }
        if (after != null) {
            out.add(after);
        }
        return out;
    }

    @Override
    public boolean readsManyNewest() {
        return readsManyNewest;
    }

    /** Of each version the row key, the tid and the indexes' key attributes only (the others read as not known). */
    @Override
    public CompletableFuture<Map<ByteBuffer, List<Version>>> newest(List<ByteBuffer> partitionKeys, int perPartition) {
        if (!readsManyNewest || partitionKeys.size() > VersionedTable.ROWS_PER_READ) {
            throw new IllegalArgumentException("newest reads up to " + VersionedTable.ROWS_PER_READ + " rows that are whole partitions, tids"
                    + " descending: not " + partitionKeys.size() + " rows of " + def.qualifiedName());
        }
        Map<ByteBuffer, List<Version>> out = new LinkedHashMap<>();
        for (ByteBuffer pk : new LinkedHashSet<>(partitionKeys)) {
            List<Version> all = visible(List.of(pk), null);
            List<Version> newestFirst = new ArrayList<>();
            for (int i = all.size() - 1; i >= 0 && newestFirst.size() < perPartition; i--) {
                ByteBuffer[] values = all.get(i).values().clone();
                for (int a = 0; a < values.length; a++) {
                    values[a] = newestKnown.get(a) ? values[a] : null;
                }
                newestFirst.add(new Version(values, tidAttribute, (BitSet) newestKnown.clone()));
            }
            if (!newestFirst.isEmpty()) {
                out.put(pk, newestFirst);
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public List<Version> versions(List<ByteBuffer> rowKey, ReadLevel level) {
        levels.add(level);
        return visible(partition(rowKey), prefix(rowKey));
    }

    @Override
    public List<List<Version>> partition(List<ByteBuffer> partitionKey, ReadLevel level) {
        levels.add(level);
        Map<List<ByteBuffer>, List<Version>> rows = new LinkedHashMap<>();
        List<Version> all = visible(List.copyOf(partitionKey), null);
        all.sort((a, b) -> compareClustering(rowKey(a), rowKey(b), -1));
        for (Version v : all) {
            rows.computeIfAbsent(rowKey(v), k -> new ArrayList<>()).add(v);
        }
        rows.values().forEach(r -> r.sort(Version.ASCENDING));
        return new ArrayList<>(rows.values());
    }

    @Override
    public List<ByteBuffer> rowKey(Version v) {
        List<ByteBuffer> key = new ArrayList<>(partitionAttributes.length + prefixAttributes.length);
        for (int a : partitionAttributes) {
            key.add(v.values()[a]);
        }
        for (int a : prefixAttributes) {
            key.add(v.values()[a]);
        }
        return key;
    }
}
