package io.cassandragsi.repair.bench;

import java.util.List;
import java.util.Locale;

/**
 * The figures {@code gsi bench bulk} prints (docs/performance.md, "Bulk rebuild: Spark against the
 * service"): per table size the service's rebuild and the Spark rebuild side by side, their ratio
 * per core, how the cost per row moves from the smallest size to the largest, and what one executor
 * core does per second with the sizing of a billion-row table that follows (docs/deployment.md,
 * Spark section).
 */
final class BulkReport {
    /** The rebuilds of one table size: the service's, Spark's, and Spark's with other settings ({@code other}, may be null). */
    record Size(long rows, BulkRun service, BulkRun spark, BulkRun other) {
        List<BulkRun> runs() {
            return other == null ? List.of(service, spark) : List.of(service, spark, other);
        }
    }

    private BulkReport() {}

    static String format(List<Size> sizes) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%-9s %-10s %9s %8s %9s %12s %13s %14s %11s%n", "rows", "variant", "writes", "seconds", "rows/s",
                "rows/s/core", "node us/row", "job us/row", "busy cores"));
        for (Size s : sizes) {
            s.runs().forEach(r -> line(out, r));
            for (BulkRun spark : s.runs().subList(1, s.runs().size())) {
                out.append(String.format(Locale.ROOT, "%-9d %s/service per core: %.2f (rows/s per core), %.2f (rows per job CPU-second)%n",
                        s.rows(), spark.variant(), BulkRun.ratio(spark.rowsPerSecondPerCore(), s.service().rowsPerSecondPerCore()),
                        BulkRun.ratio(spark.rowsPerJobCoreSecond(), s.service().rowsPerJobCoreSecond())));
            }
        }
        if (sizes.size() > 1) {
            Size first = sizes.get(0);
            Size last = sizes.get(sizes.size() - 1);
            out.append(String.format(Locale.ROOT, "cost per row from %d to %d rows (1.00 = flat):%n", first.rows(), last.rows()));
            flatness(out, "service", first.service(), last.service());
            flatness(out, "Spark", first.spark(), last.spark());
            if (first.other() != null && last.other() != null) {
                flatness(out, first.other().variant(), first.other(), last.other());
            }
        }
        BulkRun spark = sizes.get(sizes.size() - 1).spark();
        out.append(String.format(Locale.ROOT, "one executor core (Spark, %d rows): %.0f rows per second of its CPU; here, sharing %d cores with the"
                + " node, %.0f rows/s per core%n", spark.rows(), spark.rowsPerJobCoreSecond(), spark.cores(), spark.rowsPerSecondPerCore()));
        double billion = BulkRun.BILLION;
        out.append(String.format(Locale.ROOT, "a billion rows: %.1f executor core-hours of CPU and %.1f Cassandra core-hours (at the CPU per row"
                + " above); %.1f core-hours at this machine's rate per core%n", BulkRun.coreHours(spark.jobMicrosPerRow(), billion),
                BulkRun.coreHours(spark.nodeMicrosPerRow(), billion), BulkRun.coreHoursAtRate(spark.rowsPerSecondPerCore(), billion)));
        return out.toString();
    }

    private static void line(StringBuilder out, BulkRun r) {
        out.append(String.format(Locale.ROOT, "%-9d %-10s %9d %8.1f %9.0f %12.0f %13.1f %14.1f %11.2f%n", r.rows(), r.variant(), r.writes(),
                r.seconds(), r.rowsPerSecond(), r.rowsPerSecondPerCore(), r.nodeMicrosPerRow(), r.jobMicrosPerRow(), r.busyCores()));
    }

    private static void flatness(StringBuilder out, String variant, BulkRun small, BulkRun large) {
        out.append(String.format(Locale.ROOT, "  %-10s node CPU per row x%.2f, job CPU per row x%.2f, seconds per row x%.2f%n", variant,
                BulkRun.ratio(large.nodeMicrosPerRow(), small.nodeMicrosPerRow()), BulkRun.ratio(large.jobMicrosPerRow(), small.jobMicrosPerRow()),
                BulkRun.ratio(1 / large.rowsPerSecond(), 1 / small.rowsPerSecond())));
    }
}
