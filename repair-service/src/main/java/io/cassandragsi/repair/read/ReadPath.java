package io.cassandragsi.repair.read;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.BucketsTable;
import io.cassandragsi.schema.TableDef;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One page of a parsed read through its {@link ReadStores} (docs/design.md sections 8.2 and 8.5):
 * decodes the token, reads the states of the buckets the read could use once, plans the source
 * ({@link ReadPlanner}) and pages through it ({@link Pager}). What {@link IndexReader} runs once it
 * has resolved the table and index, parsed the request and fixed the query time; with stores in
 * memory, what the unit tests run.
 */
final class ReadPath {
    private static final Logger LOG = LoggerFactory.getLogger(ReadPath.class);

    private final PageToken tokens;
    private final Pager pager;
    private final LongAdder rowsRead;
    private final LongAdder bucketReads;
    private final LongAdder mergedReads;

    /** Counts the entries fetched ({@code rowsRead}) and the first pages through one bucket and through several. */
    ReadPath(PageToken tokens, Pager pager, LongAdder rowsRead, LongAdder bucketReads, LongAdder mergedReads) {
        this.tokens = tokens;
        this.pager = pager;
        this.rowsRead = rowsRead;
        this.bucketReads = bucketReads;
        this.mergedReads = mergedReads;
    }

    /** One read's table and index, as the path reads them. */
    record Target(TableDef def, TablePlan tablePlan, IndexPlan plan, ItemLayout layout, ReadStores stores) {}

    /** The page of {@code request} as of {@code readTime}, or as of the query time its token carries. */
    CompletableFuture<IndexReader.Page> page(ReadRequest request, Target target, UUID readTime) {
        IndexReader.Query query = request.query;
        UUID asOf = request.fixedTime();
        PageToken.Resume resume = null;
        UUID q = readTime;
        if (query.next() != null) {
            PageToken.Position p = tokens.decode(query.next(), at -> PageToken.fingerprint(request.canonical(asOf != null ? asOf : at)));
            q = p.queryTime();
            resume = p.resume();
        }
        if (request.window() && Tids.compare(request.from, q) > 0) { // an open window that starts after now: nothing in it yet
            return CompletableFuture.completedFuture(new IndexReader.Page(List.of(), null, ReadPlan.answerTime(q, true)));
        }
        IndexPlan plan = target.plan();
        List<String> labels = target.stores().hasBuckets() ? ReadPlanner.labels(request, query.consistent(), plan, q) : null;
        boolean first = resume == null;
        PageToken.Resume at = resume;
        UUID time = q;
        CompletableFuture<Map<String, BucketsTable.State>> states = first || !(resume instanceof PageToken.IndexResume)
                ? bucketStates(target, labels, first)
                : CompletableFuture.completedFuture(null);
        return states.thenCompose(s -> {
            Source source = first ? ReadPlanner.first(plan, labels, s, request.from, time) : ReadPlanner.later(plan, at, labels, s, request.from, time);
            ReadPlan read = new ReadPlan(target.def(), target.tablePlan(), ReadKind.of(target.def()), plan, target.layout(), target.stores(), time,
                    request.from, request.limit, query.consistent(), new ReadPlan.Fingerprint(request::canonical, time));
            ReadStores.Select select = new ReadStores.Select(request.shape(), request.fixed, request.lower == null ? null : request.lower.value(),
                    request.upper == null ? null : request.upper.value());
            PageToken.Resume from = first ? null : ReadPlanner.resume(at);
            if (source instanceof Source.Buckets buckets) {
                if (first) {
                    (buckets.parts().size() == 1 ? bucketReads : mergedReads).increment();
                }
                return pager.page(read, new BucketsSource(read, buckets, select, rowsRead), from);
            }
            return pager.page(read, new IndexTableSource(read, select, rowsRead), from);
        });
    }

    /** The states of buckets {@code labels} (null for none); a first page that cannot read them reads the index table (null), a later page fails. */
    private static CompletableFuture<Map<String, BucketsTable.State>> bucketStates(Target target, List<String> labels, boolean firstPage) {
        if (labels == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Map<String, BucketsTable.State>> states;
        try {
            states = target.stores().bucketStates(labels);
        } catch (RuntimeException e) {
            states = CompletableFuture.failedFuture(e);
        }
        if (!firstPage) {
            return states;
        }
        return states.exceptionally(e -> {
            LOG.debug("buckets {} of {}: seals not known, reading {}: {}", labels, target.plan().tableName(), target.plan().tableName(), e.toString());
            return null;
        });
    }
}
