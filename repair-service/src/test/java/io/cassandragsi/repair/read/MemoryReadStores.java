package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import io.cassandragsi.maintain.Version;
import io.cassandragsi.repair.store.BaseVersions;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.schema.Composite;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * {@link ReadStores} in memory, as Cassandra answers them, for an index whose partition is one
 * value, its clustering the rest of the entry key in an order the history gives (for a row key
 * alone, text order; for a per-version index, tid descending, then row key): the index table's
 * select in clustering order, paged behind the last row returned (a page that fills its size carries a
 * paging state even when nothing follows, as Cassandra's may); the buckets' merged select with
 * its per-partition limit taken per bucket before the merge, rows of one clustering key from
 * several buckets in any order; the bucket states; and the base table, whose rows are named by
 * their key: a versioned one's versions by tid (Cassandra's timeuuid order), or an unversioned
 * one's current rows.
 */
final class MemoryReadStores implements ReadStores {
    private final int keySize;
    private final Comparator<List<ByteBuffer>> order;
    private final int labelColumn;
    private final List<IndexRow> index = new ArrayList<>();
    private final Map<String, List<IndexRow>> buckets = new HashMap<>();
    private final Map<String, BucketsTable.State> states = new HashMap<>();
    private final Map<String, List<Version>> versions = new HashMap<>();
    /** The rows of an unversioned table: one version each, the current row, whatever the query time. */
    private final Map<String, Version> currentRows = new HashMap<>();
    private final boolean readsMany;
    private final Random random;

    /**
     * Columns of an index row: the partition value's (0), the clustering's (the rest of the first
     * {@code keySize}) in {@code order}, and a bucket row's label (after {@code _first} and {@code _seal}).
     */
    MemoryReadStores(int keySize, Comparator<List<ByteBuffer>> order, int labelColumn, boolean readsMany, Random random) {
        this.keySize = keySize;
        this.order = order;
        this.labelColumn = labelColumn;
        this.readsMany = readsMany;
        this.random = random;
    }

    void indexRow(IndexRow row) {
        index.add(row);
    }

    void bucketRow(String label, IndexRow row) {
        buckets.computeIfAbsent(label, l -> new ArrayList<>()).add(row);
    }

    void state(String label, BucketsTable.State state) {
        states.put(label, state);
    }

    /** A row's versions, in any order. */
    void versions(String key, List<Version> rowVersions) {
        List<Version> sorted = new ArrayList<>(rowVersions);
        sorted.sort(Version.ASCENDING);
        versions.put(key, sorted);
    }

    /** The current row of an unversioned table. */
    void currentRow(String key, Version row) {
        currentRows.put(key, row);
    }

    private List<ByteBuffer> clustering(IndexRow r) {
        return java.util.Arrays.asList(r.columns()).subList(1, keySize);
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.UTF_8.decode(b.duplicate()).toString();
    }

    /** The rows of the read's partition behind {@code behind} (null: all), in clustering order. */
    private List<IndexRow> partition(List<IndexRow> rows, Select select, List<ByteBuffer> behind) {
        ByteBuffer partition = select.fixed().get(0);
        List<IndexRow> out = new ArrayList<>();
        for (IndexRow r : rows) {
            if (r.get(0).equals(partition) && (behind == null || order.compare(clustering(r), behind) > 0)) {
                out.add(r);
            }
        }
        out.sort(Comparator.comparing(this::clustering, order));
        return out;
    }

    @Override
    public CompletableFuture<IndexPage> indexPage(Select select, byte[] pagingState, int size) {
        if (select.shape().fixedRanges() != 0 || select.shape().lowerOp() != null || select.shape().upperOp() != null) {
            throw new IllegalArgumentException("this twin reads whole partitions only");
        }
        List<IndexRow> rows = partition(index, select, pagingState == null ? null : Composite.decode(ByteBuffer.wrap(pagingState)));
        List<IndexRow> page = new ArrayList<>(rows.subList(0, Math.min(size, rows.size())));
        byte[] next = page.size() == size ? Composite.encode(clustering(page.get(page.size() - 1))).array() : null;
        return CompletableFuture.completedFuture(new IndexPage(page, next));
    }

    @Override
    public CompletableFuture<List<IndexRow>> buckets(Select select, List<String> labels, List<ByteBuffer> behind, int perPartition) {
        List<IndexRow> merged = new ArrayList<>();
        for (String label : labels) {
            List<IndexRow> rows = partition(buckets.getOrDefault(label, List.of()), select, behind);
            merged.addAll(rows.subList(0, Math.min(perPartition, rows.size())));
        }
        Collections.shuffle(merged, random); // the order of one key's rows from several buckets is Cassandra's to choose
        merged.sort(Comparator.comparing(this::clustering, order));
        for (IndexRow r : merged) {
            if (!labels.contains(text(r.get(labelColumn)))) {
                throw new IllegalStateException("a bucket row outside its bucket");
            }
        }
        return CompletableFuture.completedFuture(merged);
    }

    @Override
    public CompletableFuture<Map<String, BucketsTable.State>> bucketStates(List<String> labels) {
        Map<String, BucketsTable.State> out = new HashMap<>();
        labels.forEach(l -> {
            if (states.containsKey(l)) {
                out.put(l, states.get(l));
            }
        });
        return CompletableFuture.completedFuture(out);
    }

    @Override
    public boolean hasBuckets() {
        return true;
    }

    @Override
    public BaseVersions base() {
        return new BaseVersions() {
            @Override
            public CompletableFuture<Version> currentAt(List<ByteBuffer> rowKey, UUID q) {
                return CompletableFuture.completedFuture(current(rowKey, q));
            }

            @Override
            public boolean readsManyCurrent() {
                return readsMany;
            }

            @Override
            public CompletableFuture<List<Version>> currentAtAll(List<List<ByteBuffer>> rowKeys, UUID q) {
                if (!readsMany) {
                    throw new IllegalStateException("this table cannot read many rows in one query");
                }
                List<Version> out = new ArrayList<>();
                rowKeys.forEach(k -> out.add(current(k, q)));
                return CompletableFuture.completedFuture(out);
            }

            @Override
            public CompletableFuture<List<Version>> window(List<ByteBuffer> rowKey, UUID from, UUID upTo) {
                List<Version> newestFirst = new ArrayList<>(row(rowKey));
                Collections.reverse(newestFirst);
                List<Version> out = new ArrayList<>();
                for (Version v : newestFirst) {
                    if (Tids.compare(v.tid(), upTo) > 0) {
                        continue;
                    }
                    out.add(v);
                    if (Tids.compare(v.tid(), from) <= 0) {
                        break;
                    }
                }
                return CompletableFuture.completedFuture(out);
            }

            @Override
            public CompletableFuture<Version> version(List<ByteBuffer> rowKey, UUID tid) {
                return CompletableFuture.completedFuture(row(rowKey).stream().filter(v -> v.tid().equals(tid)).findFirst().orElse(null));
            }
        };
    }

    private List<Version> row(List<ByteBuffer> rowKey) {
        return versions.getOrDefault(text(rowKey.get(0)), List.of());
    }

    private Version current(List<ByteBuffer> rowKey, UUID q) {
        if (!currentRows.isEmpty()) {
            return currentRows.get(text(rowKey.get(0)));
        }
        Version current = null;
        for (Version v : row(rowKey)) {
            if (Tids.compare(v.tid(), q) <= 0) {
                current = v;
            }
        }
        return current;
    }
}
