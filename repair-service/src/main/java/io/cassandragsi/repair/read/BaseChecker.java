package io.cassandragsi.repair.read;

import io.cassandragsi.maintain.Version;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.store.BaseTable;
import io.cassandragsi.repair.store.BaseVersions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Decides a run of index rows at a read's query time (or in its window of time): each row's {@link
 * EntryDecision} from the index alone, then, for the rows it leaves to the base, the checks against the base table,
 * asynchronously: queries of up to {@value BaseTable#ROWS_PER_QUERY} rows where the table allows
 * it ({@link BaseVersions#readsManyCurrent}, {@link #querySize}), else one query per row; at
 * most {@code checkConcurrency} queries in flight. An entry that claimed a match the base denies
 * is a false positive, sent to {@link ReadRepair}.
 */
final class BaseChecker {
    private final int checkConcurrency;
    private final ReadRepair repair;
    private final LongAdder baseChecks;
    private final LongAdder falsePositives;

    BaseChecker(int checkConcurrency, ReadRepair repair, LongAdder baseChecks, LongAdder falsePositives) {
        this.checkConcurrency = checkConcurrency;
        this.repair = repair;
        this.baseChecks = baseChecks;
        this.falsePositives = falsePositives;
    }

    /**
     * The items of the matches among {@code rows}, in row order, each with its decision from the
     * index alone ({@code decisions}, in row order, none SKIP; the read's source made them).
     */
    CompletableFuture<List<Map<String, Object>>> decide(ReadPlan read, List<IndexRow> rows, List<EntryDecision> decisions) {
        IndexPlan plan = read.plan();
        ItemLayout layout = read.layout();
        BaseVersions base = read.stores().base();
        UUID q = read.q();
        Item[] decided = new Item[rows.size()];
        List<Integer> checkedAt = new ArrayList<>();
        List<Supplier<CompletableFuture<Item>>> checks = new ArrayList<>();
        List<List<ByteBuffer>> current = new ArrayList<>();
        CompletableFuture<List<Version>> batch = new CompletableFuture<>();
        for (int n = 0; n < rows.size(); n++) {
            IndexRow r = rows.get(n);
            EntryDecision d = decisions.get(n);
            if (d == EntryDecision.SKIP) {
                continue;
            }
            if (d == EntryDecision.MATCH) {
                decided[n] = layout.fromRow(r);
                continue;
            }
            if (plan.perVersion()) {
                UUID tid = layout.tidInKey(r);
                List<ByteBuffer> key = layout.entryKey(r);
                checkedAt.add(n);
                checks.add(() -> checkVersion(read, base, key, tid));
                continue;
            }
            UUID tid = layout.tid(r);
            boolean claims = d.claimed();
            List<ByteBuffer> key = layout.entryKey(r);
            List<ByteBuffer> rowKey = layout.rowKey(key);
            checkedAt.add(n);
            if (read.from() != null) { // a window: the row's latest version in it that has the key
                checks.add(() -> {
                    baseChecks.increment();
                    return base.window(rowKey, read.from(), q).thenApply(versions -> judgeCurrent(read, key, rowKey, claims, tid,
                            versions.stream().filter(v -> key.equals(read.tablePlan().entryKey(plan, v))).findFirst().orElse(null)));
                });
            } else if (base.readsManyCurrent()) {
                int at = current.size();
                current.add(rowKey);
                checks.add(() -> batch.thenApply(versions -> judgeCurrent(read, key, rowKey, claims, tid, versions.get(at))));
            } else {
                checks.add(() -> {
                    baseChecks.increment();
                    return base.currentAt(rowKey, q)
                            .thenApply(v -> judgeCurrent(read, key, rowKey, claims, tid, v));
                });
            }
        }
        if (!current.isEmpty()) {
            // the rows whose current version is needed, a few per query, the queries side by side
            baseChecks.add(current.size());
            List<Supplier<CompletableFuture<List<Version>>>> queries = new ArrayList<>();
            int size = querySize(current.size());
            for (int from = 0; from < current.size(); from += size) {
                List<List<ByteBuffer>> part = current.subList(from, Math.min(current.size(), from + size));
                queries.add(() -> base.currentAtAll(part, q));
            }
            Bounded.run(queries, checkConcurrency).whenComplete((parts, e) -> {
                if (e != null) {
                    batch.completeExceptionally(e);
                    return;
                }
                List<Version> all = new ArrayList<>(current.size());
                parts.forEach(all::addAll);
                batch.complete(all);
            });
        }
        if (checks.isEmpty()) {
            return CompletableFuture.completedFuture(matches(decided));
        }
        return Bounded.run(checks, checkConcurrency).thenApply(items -> {
            for (int k = 0; k < items.size(); k++) {
                decided[checkedAt.get(k)] = items.get(k);
            }
            return matches(decided);
        });
    }

    /**
     * Rows per base query when {@code rows} current versions are needed: as few queries as {@link
     * BaseTable#ROWS_PER_QUERY} allows, of even size (120 rows: three queries of 40, not two of 50
     * and one of 20, since a node reads one query's rows one after another).
     */
    static int querySize(int rows) {
        int queries = (rows + BaseTable.ROWS_PER_QUERY - 1) / BaseTable.ROWS_PER_QUERY;
        return Math.max(1, (rows + queries - 1) / Math.max(1, queries));
    }

    private static List<Map<String, Object>> matches(Item[] decided) {
        List<Map<String, Object>> out = new ArrayList<>(decided.length);
        for (Item item : decided) {
            if (item != null) {
                out.add(item);
            }
        }
        return out;
    }

    /**
     * The item of an entry if the base version {@code v} (current at the query time, or the
     * window's latest with the key) has its key; else read repair if it claimed to.
     */
    private Item judgeCurrent(ReadPlan read, List<ByteBuffer> key, List<ByteBuffer> rowKey, boolean claims, UUID tid, Version v) {
        IndexPlan plan = read.plan();
        if (v != null && key.equals(read.tablePlan().entryKey(plan, v))) {
            return read.layout().fromVersion(v);
        }
        if (claims) {
            falsePositives.increment();
            repair.queue(read.def(), read.kind(), rowKey, tid);
        }
        return null;
    }

    private CompletableFuture<Item> checkVersion(ReadPlan read, BaseVersions base, List<ByteBuffer> key, UUID tid) {
        baseChecks.increment();
        return base.version(read.layout().rowKey(key), tid).thenApply(v -> {
            if (v != null && key.equals(read.tablePlan().entryKey(read.plan(), v))) {
                return read.layout().fromVersion(v);
            }
            falsePositives.increment();
            return null;
        });
    }
}
