package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.cli.GsiCommand;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.BucketPeriod;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench bucket}: a read in the past through a time bucket against the same read through
 * the index table, on a fast-flipping index (docs/design.md sections 3.7 and 8.2): orders that go
 * from {@code new} to {@code paid}, {@code shipped} and {@code done} within a day or two, over 30
 * days. The index table of {@code status = new} holds every order ever made; the day bucket only
 * the orders that were new that day. Same data, same run, alternating blocks; both answers are
 * compared item by item.
 */
@Command(name = "bucket", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure a read in the past through a day bucket against the same read through the index table, on one local node"
                + " that this command starts: a fast-flipping status index over 30 days of orders, eventual reads as of a past moment"
                + " and in a one-hour window of a past day or a three-day window (merging 4 buckets), LIMIT 100. Prints p50/p99, index rows read and base checks per read, and"
                + " the p50 ratio (target: the index table's at least 5 times the bucket's). Writes target/bench/bucket.json.",
            "Takes about 4 minutes; --quick about 2."})
public final class BenchBucketCommand implements Callable<Integer> {
    static final int DAYS = 30;
    static final String[] STATUSES = {"new", "paid", "shipped", "done"};

    @Option(names = "--quick", description = "100 orders a day and 100 measured requests per read instead of 400 and 400.")
    boolean quick;

    @picocli.CommandLine.Mixin
    NodeOptions nodeOptions;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        int perDay = quick ? 100 : 400;
        int n = quick ? 100 : 400;
        Path home = Path.of(System.getProperty("gsi.home", ".")).toAbsolutePath().normalize();
        try (BenchNode node = nodeOptions.start(home, "target/bench/bucket-node", out)) {
            TableDef def = Definitions.parse("""
                    {"keyspace": "bench_bucket", "table": "orders",
                     "attributes": {"id": "string", "tid": "timeuuid", "status": "string", "note": "string"},
                     "index": [{"type": "hash", "attribute": "id"}, {"type": "range", "order": "desc", "attribute": "tid"}],
                     "secondaryIndexes": {"by_status": [{"type": "hash", "attribute": "status"}, {"type": "proj", "attribute": "note"},
                                                        {"type": "bucket", "period": "day"}]}}
                    """, "bench_bucket");
            node.apply(def);
            Instant origin = BucketPeriod.DAY.start(BucketPeriod.DAY.label(Instant.now().minus(Duration.ofDays(DAYS + 2))));
            // the history goes in around the trigger, as a table in use before its index: then rebuild fills the index and seals the buckets
            node.ddl("DROP TRIGGER IF EXISTS " + CqlGenerator.TRIGGER_NAME + " ON bench_bucket.orders");
            long versions = load(node, origin, perDay, out);
            node.ddl(CqlGenerator.createTrigger(def));
            GsiConfig d = GsiConfig.defaults();
            GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                    d.antiEntropy().withEnabled(false));
            try (GsiServer server = new GsiServer(node.session, config)) {
                long t0 = System.nanoTime();
                Jobs jobs = new Jobs(node.session, config);
                JobState state = jobs.rebuild("bench_bucket", "orders", "by_status", RebuildOptions.defaults(), null).state();
                out.printf(Locale.ROOT, "rebuild (index table, then the day buckets sealed) %s in %.1f s%n", state, (System.nanoTime() - t0) / 1e9);
                out.flush();
                if (state != JobState.DONE) {
                    throw new IllegalStateException("rebuild ended " + state);
                }
                // what the check costs with the bucket tables it now compares (docs/design.md section 9.2)
                long c0 = System.nanoTime();
                CheckResult check = jobs.check("bench_bucket", "orders", "by_status", false, null);
                double checkSeconds = (System.nanoTime() - c0) / 1e9;
                out.printf(Locale.ROOT, "check (index table, then the day buckets against the base) %s in %.1f s: %s%n", check.state(), checkSeconds,
                        check.buckets().stream().map(b -> b.compared() + " buckets compared, " + b.differing() + " differing").toList());
                out.flush();
                IndexReader buckets = server.reader();
                try (IndexReader ever = new IndexReader(node.session, new Catalog(node.session), null, ConsistencyLevel.LOCAL_QUORUM, null,
                        IndexReader.CHECK_CONCURRENCY)) {
                    Map<String, Object> report = measure(buckets, ever, origin, n, out);
                    report.put("orders", (long) perDay * DAYS);
                    report.put("check_s", Math.round(checkSeconds * 10) / 10.0);
                    report.put("check_buckets_differing", check.buckets().stream().mapToLong(CheckResult.BucketReport::differing).sum());
                    report.put("versions", versions);
                    Path file = home.resolve("target/bench/bucket.json");
                    Files.createDirectories(file.getParent());
                    ObjectNode json = new ObjectMapper().valueToTree(report);
                    Files.writeString(file, json.toPrettyString());
                    out.println("wrote target/bench/bucket.json");
                }
            }
        }
        return GsiCommand.OK;
    }

    /** Writes the orders: each new on its day, then paid, shipped and done within a day or two; returns the versions written. */
    private static long load(BenchNode node, Instant origin, int perDay, PrintWriter out) throws InterruptedException {
        PreparedStatement insert = node.session.prepare("INSERT INTO bench_bucket.orders (id, tid, status, note) VALUES (?, ?, ?, ?)");
        Random rnd = new Random(42);
        Semaphore inFlight = new Semaphore(128);
        long t0 = System.nanoTime();
        long count = 0;
        for (int day = 0; day < DAYS; day++) {
            for (int i = 0; i < perDay; i++) {
                String id = "o-" + day + "-" + i;
                long at = Tids.ticks(origin.plus(Duration.ofDays(day))) + (long) (rnd.nextDouble() * 864_000_000_000L);
                for (String status : STATUSES) {
                    inFlight.acquire();
                    node.session.executeAsync(insert.bind(id, Tids.fromTicks(at, rnd.nextLong()), status, "note " + i))
                            .whenComplete((r, e) -> inFlight.release());
                    count++;
                    at += 1 + (long) (rnd.nextDouble() * 432_000_000_000L); // the next status within 12 hours
                }
            }
        }
        inFlight.acquire(128);
        out.printf(Locale.ROOT, "loaded %d orders (%d versions) over %d days in %.1f s%n", (long) perDay * DAYS, count, DAYS,
                (System.nanoTime() - t0) / 1e9);
        out.flush();
        return count;
    }

    /** One read of the run: as of a past moment, in a one-hour window of a past day, or in a three-day window. */
    private record Read(String name, IndexReader.Query query) {}

    private static Map<String, Object> measure(IndexReader buckets, IndexReader ever, Instant origin, int n, PrintWriter out) {
        Random rnd = new Random(7);
        List<Read> reads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Instant q = origin.plus(Duration.ofDays(2 + rnd.nextInt(DAYS - 4))).plusSeconds(3600 + rnd.nextInt(20 * 3600));
            String status = rnd.nextBoolean() ? "new" : "paid";
            IndexReader.Query base = IndexReader.Query.of("bench_bucket", "orders", "by_status", status).withLimit(100);
            reads.add(switch (i % 3) {
                case 0 -> new Read("as-of", base.withAsOf(q.toString()));
                case 1 -> new Read("window", base.withWindow(q.toString(), q.plusSeconds(3600).toString()));
                // over 4 day buckets, merged (docs/design.md section 8.2)
                default -> new Read("3-days", base.withWindow(q.toString(), q.plus(Duration.ofDays(3)).toString()));
            });
        }
        // warm-up, and the answers compared: the bucket must answer exactly as the index table
        int differ = 0;
        for (Read r : reads.subList(0, Math.min(50, reads.size()))) {
            if (!buckets.read(r.query()).items().equals(ever.read(r.query()).items())) {
                differ++;
            }
        }
        Map<String, Object> report = new LinkedHashMap<>();
        for (String kind : new String[] {"as-of", "window", "3-days"}) {
            Latencies viaBucket = new Latencies();
            Latencies viaEver = new Latencies();
            long[] rows = new long[2];
            long[] checks = new long[2];
            long[] items = new long[2];
            long bucketed0 = buckets.bucketReads.sum() + buckets.mergedReads.sum();
            int count = 0;
            for (Read r : reads) {
                if (!r.name().equals(kind)) {
                    continue;
                }
                count++;
                // alternate which goes first, so that neither always reads a warmer cache
                for (int k = 0; k < 2; k++) {
                    boolean bucketFirst = count % 2 == 0;
                    IndexReader reader = (k == 0) == bucketFirst ? buckets : ever;
                    int at = reader == buckets ? 0 : 1;
                    long r0 = reader.indexRows.sum();
                    long c0 = reader.baseChecks.sum();
                    long t0 = System.nanoTime();
                    IndexReader.Page page = reader.read(r.query());
                    (at == 0 ? viaBucket : viaEver).add(System.nanoTime() - t0);
                    rows[at] += reader.indexRows.sum() - r0;
                    checks[at] += reader.baseChecks.sum() - c0;
                    items[at] += page.items().size();
                }
            }
            long bucketed = buckets.bucketReads.sum() + buckets.mergedReads.sum() - bucketed0;
            double p50b = viaBucket.percentileMillis(50);
            double p50e = viaEver.percentileMillis(50);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("reads", count);
            r.put("through_buckets", bucketed);
            r.put("bucket_p50_ms", p50b);
            r.put("bucket_p99_ms", viaBucket.percentileMillis(99));
            r.put("ever_p50_ms", p50e);
            r.put("ever_p99_ms", viaEver.percentileMillis(99));
            r.put("bucket_rows_per_read", rows[0] / (double) count);
            r.put("ever_rows_per_read", rows[1] / (double) count);
            r.put("bucket_base_checks_per_read", checks[0] / (double) count);
            r.put("ever_base_checks_per_read", checks[1] / (double) count);
            r.put("items_per_read", items[0] / (double) count);
            r.put("p50_ratio_ever_over_bucket", p50e / p50b);
            report.put(kind, r);
            out.printf(Locale.ROOT, "%-8s %d reads (%d through a bucket): bucket p50 %.2f ms p99 %.2f ms, %.0f rows and %.1f base checks per read;"
                    + " index table p50 %.2f ms p99 %.2f ms, %.0f rows and %.1f base checks per read; %.1f items per read; ratio %.1f (target >= 5)%n",
                    kind, count, bucketed, p50b, viaBucket.percentileMillis(99), rows[0] / (double) count, checks[0] / (double) count, p50e,
                    viaEver.percentileMillis(99), rows[1] / (double) count, checks[1] / (double) count, items[0] / (double) count, p50e / p50b);
            out.flush();
        }
        report.put("answers_compared", Math.min(50, reads.size()));
        report.put("answers_that_differ", differ);
        out.printf("answers compared: %d, differing: %d%n", Math.min(50, reads.size()), differ);
        return report;
    }
}
