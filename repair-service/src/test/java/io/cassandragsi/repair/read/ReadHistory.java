package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.repair.store.IndexColumns;
import io.cassandragsi.schema.BucketLayout;
import io.cassandragsi.schema.BucketPeriod;
import io.cassandragsi.schema.Index;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * A random history of a versioned table {@code (key, tid, length, value)} over four days, and the
 * index and bucket entries that a repaired index holds for it, written from the index's documented
 * invariants (docs/design.md sections 3.1, 3.7 and 4.2), into a {@link MemoryReadStores}: an entry
 * per row and length with {@code _tid} the latest version with that length and {@code _deleted}
 * the next version's tid, or a later one (a late mark); for a consistent read's index, also stale
 * entries (a mark never written, a claim the base never had), which only the base checks put
 * right. A bucket of a day holds, per row and length current at some moment of the day, the latest
 * and earliest such versions and the exact end of the latest's interval, with its seal; some days
 * are not sealed, some hold an earlier seal's leftovers. Every tid has an even 100-ns tick of its
 * own, so that query times on odd ticks fall between versions.
 */
final class ReadHistory {
    static final String DEFINITION = """
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                                                {"type": "bucket", "period": "day"}]}}
            """;
    /** The versioned table with a per-version index: the tid in the entry key, newest first; one entry per version. */
    static final String PER_VERSION = """
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {"by_length_tid": [{"type": "hash", "attribute": "length"}, {"type": "range", "order": "desc", "attribute": "tid"},
                                                    {"type": "proj", "attribute": "value"}]}}
            """;
    /** An unversioned table: rows overwritten in place, the base keeps only the current one. */
    static final String UNVERSIONED = """
            {"keyspace": "ks", "table": "users",
             "attributes": {"key": "string", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}],
             "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}]}}
            """;
    static final Instant START = Instant.parse("2025-03-03T00:00:00Z");
    static final long SPAN = 4L * 24 * 3600 * 10_000_000L;
    static final int LENGTHS = 3;
    private static final UUID SEAL = Tids.maxAtTicks(Tids.ticks(START) + 3 * SPAN);
    private static final UUID OLD_SEAL = Tids.maxAtTicks(Tids.ticks(START) - SPAN);

    final Map<String, List<ReadOracle.Version>> rows = new LinkedHashMap<>();
    private final Random random;
    private final boolean versioned;
    /**
     * Whether each bucket is sealed, and whether it holds an earlier seal's leftovers: drawn per
     * label from this, so that twins built again after later writes keep them (a write after a
     * bucket's day changes no seal, docs/design.md section 9.4).
     */
    private final long sealSeed;
    /** Buckets sealed again (the newest seal), and those whose new seal is still being written (its state names the one before). */
    private final Map<String, UUID> resealed = new java.util.HashMap<>();
    private final java.util.Set<String> sealing = new java.util.HashSet<>();
    /** Every tick a version has: each has its own. */
    private final java.util.Set<Long> ticks = new java.util.HashSet<>();

    /** {@code versioned}: a history of {@link #DEFINITION}, else of {@link #UNVERSIONED} (each "version" a write of the row). */
    ReadHistory(Random random, boolean versioned) {
        this.random = random;
        this.versioned = versioned;
        this.sealSeed = random.nextLong();
        int rowCount = 1 + random.nextInt(10);
        for (int r = 0; r < rowCount; r++) {
            List<ReadOracle.Version> versions = new ArrayList<>();
            int n = 1 + random.nextInt(5);
            for (int i = 0; i < n; i++) {
                long tick;
                do {
                    tick = Tids.ticks(START) + 2 * (long) (random.nextDouble() * (SPAN / 2));
                } while (!ticks.add(tick));
                Integer length = random.nextInt(5) == 0 ? null : 1 + random.nextInt(LENGTHS);
                versions.add(new ReadOracle.Version(Tids.fromTicks(tick, random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L), length,
                        "v" + random.nextInt(1000)));
            }
            versions.sort(java.util.Comparator.comparingLong(v -> v.tid().timestamp()));
            rows.put("k" + r, versions);
        }
    }

    /**
     * A new version of a random row (or a new row), written after {@code after}: what a writer does
     * while a read pages through the index. Every query time of a read so far is before it.
     */
    void writeAfter(Instant after) {
        long tick;
        do {
            tick = (Tids.ticks(after) & ~1L) + 2 * (1 + random.nextInt(1_000_000)); // even, as every version's
        } while (!ticks.add(tick));
        Integer length = random.nextInt(5) == 0 ? null : 1 + random.nextInt(LENGTHS);
        ReadOracle.Version v = new ReadOracle.Version(Tids.fromTicks(tick, random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L),
                length, "w" + random.nextInt(1000));
        String key = "k" + random.nextInt(rows.size() + 1);
        rows.computeIfAbsent(key, k -> new ArrayList<>()).add(v); // the newest: the list stays ascending
    }

    /**
     * Seals a random day of the history again, as the sealer does after a change (docs/design.md
     * section 9.4): the same entries under a newer seal, the state naming it once every entry is
     * written; half the time the seal is still being written (some entries carry it, the state names
     * the one before). A bucket being sealed ends its seal first.
     */
    void reseal(BucketPeriod day) {
        List<ReadOracle.Version> all = rows.values().stream().flatMap(List::stream).toList();
        String label = day.label(Tids.instant(all.get(random.nextInt(all.size())).tid()));
        UUID before = resealed.getOrDefault(label, SEAL);
        resealed.put(label, Tids.maxAtTicks(Tids.ticks(Tids.instant(before)) + 1_000));
        if (random.nextBoolean()) {
            sealing.add(label);
        } else {
            sealing.remove(label);
        }
    }

    /** Every seal being written is done: each bucket's state names its newest seal. */
    void finishSeals() {
        sealing.clear();
    }

    /** A moment between versions: an odd tick from a little before the history to a little after. */
    UUID between() {
        long tick = Tids.ticks(START) - SPAN / 8 + 2 * (long) (random.nextDouble() * (SPAN * 5 / 8)) + 1;
        return Tids.fromTicks(tick, random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L);
    }

    static ByteBuffer varint(int v) {
        return TypeCodecs.VARINT.encode(BigInteger.valueOf(v), ProtocolVersion.DEFAULT);
    }

    private static ByteBuffer length(ReadOracle.Version v) {
        return v.length() == null ? null : varint(v.length());
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Cassandra's order of the index's clustering keys, written here from the history's types
     * (text by its characters, all ASCII here; a timeuuid by its time, which no two versions share),
     * not taken from the read path's own {@code ClusteringOrder}.
     */
    private static java.util.Comparator<List<ByteBuffer>> order(Index index) {
        List<io.cassandragsi.schema.Column> columns = index.clusteringColumns();
        return (a, b) -> {
            for (int i = 0; i < columns.size(); i++) {
                io.cassandragsi.schema.Column c = columns.get(i);
                int cmp = switch (c.name()) {
                    case "key" -> StandardCharsets.UTF_8.decode(a.get(i).duplicate()).toString()
                            .compareTo(StandardCharsets.UTF_8.decode(b.get(i).duplicate()).toString());
                    case "tid" -> Long.compare(Tids.uuid(a.get(i)).timestamp(), Tids.uuid(b.get(i)).timestamp());
                    default -> throw new IllegalArgumentException("no order for " + c.name() + " in this twin");
                };
                if (cmp != 0) {
                    return c.order() == io.cassandragsi.schema.Order.DESC ? -cmp : cmp;
                }
            }
            return Integer.compare(a.size(), b.size());
        };
    }

    /** The twin: the base's versions, the index table ({@code stale}: with a consistent read's stale entries), the buckets. */
    MemoryReadStores stores(Index index, boolean stale) {
        IndexColumns columns = IndexColumns.of(index);
        BucketLayout bucket = index.bucket() == null ? null : BucketLayout.of(index);
        int label = bucket == null ? -1 : bucket.sealColumn() + 1;
        if (columns.keyColumn("length") != 0) {
            throw new IllegalStateException("the twin takes the index's partition (length) for its first column");
        }
        MemoryReadStores stores = new MemoryReadStores(columns.keySize(), order(index), label, random.nextBoolean(), random);
        rows.forEach((key, versions) -> {
            if (versioned) {
                List<Version> base = new ArrayList<>();
                for (ReadOracle.Version v : versions) {
                    base.add(new Version(new ByteBuffer[] {text(key), Tids.bytes(v.tid()), length(v), text(v.value())}, 1));
                }
                stores.versions(key, base);
            } else {
                ReadOracle.Version v = versions.get(versions.size() - 1);
                stores.currentRow(key, new Version(new ByteBuffer[] {text(key), length(v), text(v.value())}, -1));
            }
            if (index.perVersion()) {
                versionEntries(stores, columns, key, versions, stale);
                return;
            }
            for (int length = 1; length <= LENGTHS; length++) {
                int last = lastWith(versions, length, versions.size());
                if (last < 0) {
                    if (stale && random.nextInt(6) == 0) { // a claim the base never had
                        ReadOracle.Version v = versions.get(random.nextInt(versions.size()));
                        stores.indexRow(row(columns, columns.cqlNames().size(), key, length, v, null));
                    }
                    continue;
                }
                UUID deleted = last + 1 < versions.size() ? versions.get(last + 1 + random.nextInt(versions.size() - last - 1)).tid() : null;
                if (last + 1 < versions.size() && (random.nextBoolean() || !versioned)) {
                    deleted = versions.get(last + 1).tid(); // the exact mark, else a late one
                }
                if (deleted == null && last > 0 && random.nextBoolean()) {
                    deleted = versions.get(random.nextInt(last)).tid(); // a mark not later than _tid: the entry matches again
                }
                if (stale && random.nextInt(3) == 0) {
                    deleted = null; // a mark never written
                }
                stores.indexRow(row(columns, columns.cqlNames().size(), key, length, versions.get(last), deleted));
            }
        });
        if (bucket == null) {
            return stores;
        }
        BucketPeriod day = index.bucket();
        for (String l = day.label(START.minusNanos(SPAN * 100 / 8)), end = day.label(START.plusNanos(SPAN * 100 / 8 * 9)); l.compareTo(end) <= 0;
                l = day.next(l)) {
            bucket(stores, columns, bucket, l, Tids.ticks(day.start(l)), Tids.ticks(day.end(l)));
        }
        return stores;
    }

    private void bucket(MemoryReadStores stores, IndexColumns columns, BucketLayout bucket, String label, long start, long end) {
        int size = bucket.sealColumn() + 2;
        Random seals = new Random(sealSeed * 31 + label.hashCode());
        UUID seal = resealed.getOrDefault(label, SEAL);
        UUID stateSeal = sealing.contains(label) ? Tids.maxAtTicks(Tids.ticks(Tids.instant(seal)) - 1_000) : seal;
        boolean leftovers = seals.nextInt(5) == 0;
        int entries = 0;
        for (Map.Entry<String, List<ReadOracle.Version>> e : rows.entrySet()) {
            List<ReadOracle.Version> versions = e.getValue();
            for (int length = 1; length <= LENGTHS; length++) {
                int first = -1;
                int latest = -1;
                for (int i = 0; i < versions.size(); i++) {
                    long from = ticks(versions.get(i).tid());
                    long until = i + 1 < versions.size() ? ticks(versions.get(i + 1).tid()) : Long.MAX_VALUE;
                    if (versions.get(i).length() != null && versions.get(i).length() == length && from < end && until > start) {
                        first = first < 0 ? i : first;
                        latest = i;
                    }
                }
                IndexRow r;
                if (latest >= 0) {
                    int endsAt = latest + 1;
                    while (endsAt < versions.size() && versions.get(endsAt).length() != null && versions.get(endsAt).length() == length) {
                        endsAt++;
                    }
                    UUID deleted = endsAt < versions.size() ? versions.get(endsAt).tid() : null;
                    r = row(columns, size, e.getKey(), length, versions.get(latest), deleted);
                    r.columns()[bucket.firstColumn()] = Tids.bytes(versions.get(first).tid());
                    boolean written = !sealing.contains(label) || random.nextBoolean();
                    r.columns()[bucket.sealColumn()] = Tids.bytes(written ? seal : stateSeal);
                    entries++;
                } else if (leftovers && random.nextInt(3) == 0) { // an earlier seal's entry, which this seal no longer has
                    ReadOracle.Version v = versions.get(random.nextInt(versions.size()));
                    r = row(columns, size, e.getKey(), length, v, null);
                    r.columns()[bucket.firstColumn()] = Tids.bytes(v.tid());
                    r.columns()[bucket.sealColumn()] = Tids.bytes(OLD_SEAL);
                } else {
                    continue;
                }
                r.columns()[size - 1] = text(label);
                stores.bucketRow(label, r);
            }
        }
        if (seals.nextInt(6) != 0) {
            stores.state(label, new BucketsTable.State(stateSeal, null, entries));
        } else if (seals.nextBoolean()) {
            stores.state(label, new BucketsTable.State(null, null, 0)); // never sealed
        }
    }

    /**
     * A per-version index's entries of one row: one per version with a length ({@code stale}: and
     * now and then one the base never had, a version under another length), docs/design.md section 3.2.
     */
    private void versionEntries(MemoryReadStores stores, IndexColumns columns, String key, List<ReadOracle.Version> versions, boolean stale) {
        for (ReadOracle.Version v : versions) {
            if (v.length() != null) {
                stores.indexRow(versionRow(columns, key, v.length(), v));
            }
            if (stale && random.nextInt(4) == 0) {
                stores.indexRow(versionRow(columns, key, v.length() == null ? 1 : 1 + v.length() % LENGTHS, v));
            }
        }
    }

    private static IndexRow versionRow(IndexColumns columns, String key, int length, ReadOracle.Version v) {
        ByteBuffer[] c = new ByteBuffer[columns.cqlNames().size()];
        c[columns.keyColumn("length")] = varint(length);
        c[columns.keyColumn("tid")] = Tids.bytes(v.tid());
        c[columns.keyColumn("key")] = text(key);
        c[columns.column("value")] = text(v.value());
        return new IndexRow(c);
    }

    private static long ticks(UUID tid) {
        return Tids.ticks(Tids.instant(tid));
    }

    /** The index of the last version with {@code length} before {@code upTo}, or -1. */
    private static int lastWith(List<ReadOracle.Version> versions, int length, int upTo) {
        for (int i = upTo - 1; i >= 0; i--) {
            if (versions.get(i).length() != null && versions.get(i).length() == length) {
                return i;
            }
        }
        return -1;
    }

    /** An index row of {@code size} columns (a bucket row's {@code _first}, {@code _seal} and label left to set). */
    private static IndexRow row(IndexColumns columns, int size, String key, int length, ReadOracle.Version v, UUID deleted) {
        ByteBuffer[] c = new ByteBuffer[size];
        c[columns.keyColumn("length")] = varint(length);
        c[columns.keyColumn("key")] = text(key);
        c[columns.column("value")] = text(v.value());
        c[columns.tidColumn()] = Tids.bytes(v.tid());
        c[columns.deletedColumn()] = deleted == null ? null : Tids.bytes(deleted);
        return new IndexRow(c);
    }
}
