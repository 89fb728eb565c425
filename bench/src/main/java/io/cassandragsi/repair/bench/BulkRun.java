package io.cassandragsi.repair.bench;

/**
 * One rebuild of {@code gsi bench bulk} (docs/performance.md, "Bulk rebuild: Spark against the
 * service"): {@code rows} base versions read and {@code writes} index entries written in {@code
 * seconds}, by a job given {@code cores} cores (the service's rebuild parallelism, or Spark's
 * {@code local[*]}); {@code jobCpuNanos} is the CPU time of the job's JVM over the rebuild, {@code
 * nodeCpuNanos} the Cassandra process's, {@code busyCores} the machine's average busy cores.
 * Unknown CPU figures are negative.
 */
record BulkRun(String variant, long rows, long writes, double seconds, int cores, long jobCpuNanos, long nodeCpuNanos, double busyCores) {
    /** The rows of the sizing paragraph of docs/deployment.md. */
    static final double BILLION = 1e9;

    BulkRun {
        if (rows < 0 || seconds < 0 || cores < 1) {
            throw new IllegalArgumentException("a rebuild of " + rows + " rows in " + seconds + " s on " + cores + " cores");
        }
    }

    double rowsPerSecond() {
        return seconds <= 0 ? 0 : rows / seconds;
    }

    /** Rows per second over the cores the job was given. */
    double rowsPerSecondPerCore() {
        return rowsPerSecond() / cores;
    }

    /** The job JVM's CPU microseconds per row, NaN when unknown. */
    double jobMicrosPerRow() {
        return perRow(jobCpuNanos);
    }

    /** The Cassandra process's CPU microseconds per row, NaN when unknown. */
    double nodeMicrosPerRow() {
        return perRow(nodeCpuNanos);
    }

    /** Rows one core of the job rebuilds per second of its CPU time (what a busy executor core does), NaN when unknown. */
    double rowsPerJobCoreSecond() {
        double micros = jobMicrosPerRow();
        return micros > 0 ? 1e6 / micros : Double.NaN;
    }

    private double perRow(long nanos) {
        return nanos < 0 || rows == 0 ? Double.NaN : nanos / 1e3 / rows;
    }

    /** Core-hours that {@code rows} rows take at {@code microsPerRow} CPU microseconds each. */
    static double coreHours(double microsPerRow, double rows) {
        return microsPerRow * rows / 1e6 / 3600;
    }

    /** Core-hours that {@code rows} rows take at {@code perCore} rows per second per core. */
    static double coreHoursAtRate(double perCore, double rows) {
        return perCore > 0 ? rows / perCore / 3600 : Double.NaN;
    }

    /** {@code a / b}, NaN when either is unknown or {@code b} is 0. */
    static double ratio(double a, double b) {
        return Double.isNaN(a) || Double.isNaN(b) || b == 0 ? Double.NaN : a / b;
    }
}
