package io.cassandragsi.spark;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.spark.connector.cql.CassandraConnector;
import io.cassandragsi.repair.config.ConsistencyConfig;
import io.cassandragsi.repair.jobs.CheckOptions;
import io.cassandragsi.repair.jobs.CheckResult;
import io.cassandragsi.repair.jobs.JobState;
import io.cassandragsi.repair.jobs.RangeJobs;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.jobs.RebuildResult;
import io.cassandragsi.repair.jobs.TokenRange;
import io.cassandragsi.repair.jobs.TokenRanges;
import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.SparkSession;

/**
 * {@code rebuild} and {@code check} of whole indexes on Spark (docs/design.md section 9.5): the
 * Murmur3 ring is cut into {@code splits} token ranges, one Spark task per range; each task takes a
 * session from the spark-cassandra-connector ({@link CassandraConnector}, configured by the {@code
 * spark.cassandra.*} settings) and runs the repair service's own range work on it ({@link
 * RangeJobs}: the same {@code Rebuild} and {@code Check} as {@code ./gsi rebuild} and {@code ./gsi
 * check}, over the project's pure rules). The driver adds up what the ranges report.
 */
public final class SparkJobs {
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);

    private SparkJobs() {}

    /**
     * What a job works on and how: {@code index} null means every index of the table; {@code splits}
     * 0 means four ranges per core of the application, at least 32; {@code rowsPerSecond} caps what
     * each task reads (base versions and index entries, 0: no cap).
     */
    public record Spec(String keyspace, String table, String index, String projectKeyspace, DefaultConsistencyLevel read,
            DefaultConsistencyLevel write, int splits, int maxInFlight, int pageSize, double rowsPerSecond) implements Serializable {
        private static final long serialVersionUID = 1L;

        public Spec {
            if (splits < 0 || splits > TokenRanges.MAX_SPLITS) {
                throw new IllegalArgumentException("--splits must be from 1 to " + TokenRanges.MAX_SPLITS + " (0: automatic), not " + splits);
            }
            if (!(rowsPerSecond >= 0)) {
                throw new IllegalArgumentException("--rows-per-second must be positive (0: no cap), not " + rowsPerSecond);
            }
            if (maxInFlight < 1 || pageSize < 1) {
                throw new IllegalArgumentException("--max-in-flight and --page-size must be positive, not " + maxInFlight + " and " + pageSize);
            }
        }

        public static Spec of(String keyspace, String table, String index) {
            RebuildOptions d = RebuildOptions.defaults();
            ConsistencyConfig c = ConsistencyConfig.defaults();
            return new Spec(keyspace, table, index, "gsi", c.read(), c.write(), 0, d.maxInFlight(), d.pageSize(), 0);
        }

        public Spec withSplits(int n) {
            return new Spec(keyspace, table, index, projectKeyspace, read, write, n, maxInFlight, pageSize, rowsPerSecond);
        }

        RangeJobs open(CqlSession session) {
            ConsistencyConfig c = new ConsistencyConfig(read, write, ConsistencyConfig.defaults().serial());
            return RangeJobs.open(session, projectKeyspace, c, keyspace, table, index);
        }

        RebuildOptions rebuildOptions() {
            return new RebuildOptions(null, false, 1, 0, maxInFlight, pageSize);
        }

        CheckOptions checkOptions(boolean fix, int examples) {
            return new CheckOptions(fix, 1, 0, maxInFlight, pageSize, examples);
        }
    }

    /** Rebuilds the spec's indexes from the base, then seals the ended buckets of those that declare one (on the driver). */
    public static RebuildResult rebuild(SparkSession spark, Spec spec) {
        Instant start = Instant.now();
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        CassandraConnector connector = CassandraConnector.apply(sc.getConf());
        List<String> indexes = indexes(connector, spec);
        List<long[]> ranges = ranges(sc, spec);
        List<RangeJobs.Rebuilt> done = sc.parallelize(ranges, ranges.size()).mapPartitions(new RebuildRanges(connector, spec)).collect();
        long rows = done.stream().mapToLong(RangeJobs.Rebuilt::rows).sum();
        long writes = done.stream().mapToLong(RangeJobs.Rebuilt::writes).sum();
        try (CqlSession session = connector.openSession()) {
            spec.open(session).sealBuckets(spec.rebuildOptions().withParallelism(RebuildOptions.defaultParallelism()));
        }
        return new RebuildResult(id("spark-rebuild"), spec.keyspace(), spec.table(), indexes, JobState.DONE, ranges.size(), 0, done.size(),
                rows, writes, 0, Duration.between(start, Instant.now()), null);
    }

    /** Checks the spec's indexes (with {@code fix}, repairs them), reporting as {@code ./gsi check} does, without the bucket tables. */
    public static CheckResult check(SparkSession spark, Spec spec, boolean fix, int examples) {
        Instant start = Instant.now();
        JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        CassandraConnector connector = CassandraConnector.apply(sc.getConf());
        List<String> indexes = indexes(connector, spec);
        List<long[]> ranges = ranges(sc, spec);
        List<RangeJobs.Checked> found = sc.parallelize(ranges, ranges.size()).mapPartitions(new CheckRanges(connector, spec, fix, examples))
                .collect();
        return RangeJobs.merge(id("spark-check"), spec.keyspace(), spec.table(), fix, indexes, found, examples,
                Duration.between(start, Instant.now()));
    }

    /** The target's index names, resolved on the driver first, so that a bad name fails before any task starts. */
    private static List<String> indexes(CassandraConnector connector, Spec spec) {
        try (CqlSession session = connector.openSession()) {
            return spec.open(session).indexes();
        }
    }

    private static List<long[]> ranges(JavaSparkContext sc, Spec spec) {
        int splits = spec.splits() > 0 ? spec.splits() : Math.min(TokenRanges.MAX_SPLITS, Math.max(32, 4 * sc.defaultParallelism()));
        List<long[]> out = new ArrayList<>();
        for (TokenRange r : TokenRanges.split(splits)) {
            out.add(new long[] {r.start(), r.end()});
        }
        return out;
    }

    private static String id(String kind) {
        return kind + "-" + ID_TIME.format(Instant.now()) + "-" + String.format("%04x", ThreadLocalRandom.current().nextInt(0x10000));
    }

    /** A task's work: its ranges, through one connector session and one catalog. */
    private abstract static class Ranges<R> implements FlatMapFunction<Iterator<long[]>, R> {
        private static final long serialVersionUID = 1L;
        private final CassandraConnector connector;
        final Spec spec;

        Ranges(CassandraConnector connector, Spec spec) {
            this.connector = connector;
            this.spec = spec;
        }

        abstract R range(RangeJobs jobs, TokenRange range) throws InterruptedException;

        @Override
        public Iterator<R> call(Iterator<long[]> ranges) throws Exception {
            List<R> out = new ArrayList<>();
            try (CqlSession session = connector.openSession()) {
                RangeJobs jobs = spec.open(session).paced(spec.rowsPerSecond());
                while (ranges.hasNext()) {
                    long[] r = ranges.next();
                    out.add(range(jobs, new TokenRange(r[0], r[1])));
                }
            }
            return out.iterator();
        }
    }

    private static final class RebuildRanges extends Ranges<RangeJobs.Rebuilt> {
        private static final long serialVersionUID = 1L;

        RebuildRanges(CassandraConnector connector, Spec spec) {
            super(connector, spec);
        }

        @Override
        RangeJobs.Rebuilt range(RangeJobs jobs, TokenRange range) throws InterruptedException {
            return jobs.rebuild(range, spec.rebuildOptions());
        }
    }

    private static final class CheckRanges extends Ranges<RangeJobs.Checked> {
        private static final long serialVersionUID = 1L;
        private final boolean fix;
        private final int examples;

        CheckRanges(CassandraConnector connector, Spec spec, boolean fix, int examples) {
            super(connector, spec);
            this.fix = fix;
            this.examples = examples;
        }

        @Override
        RangeJobs.Checked range(RangeJobs jobs, TokenRange range) throws InterruptedException {
            return jobs.check(range, spec.checkOptions(fix, examples));
        }
    }
}
