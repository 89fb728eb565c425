package io.cassandragsi.repair.bench;

import java.time.Instant;

/**
 * What one phase (one variant, one round) measured. Writes are those acknowledged inside the
 * phase; CPU times are deltas over the phase, except {@code flushNodeCpuNanos}, the node's CPU in
 * the flush and compaction wait right after it.
 *
 * @param round 1-based; 0 for the warm-up round, which is printed but not summarised
 * @param machineBusyCores average busy cores of the whole machine during the phase (node, client
 *     and everything else), or NaN where /proc/stat cannot be read
 * @param settled whether compactions had finished when the wait after the phase ended
 * @param firstError the first failure's message, or null
 * @param digestMismatches reads the nodes' coordinators had to reconcile during the phase, summed
 *     over the nodes (Cassandra's ReadRepair.ReconcileRead meter): replicas that disagreed, which
 *     costs full data reads and blocking read repair; always 0 on one node
 * @param nodeTaken writes the in-node maintainers took during the phase (node-mode variants)
 * @param nodeHandedOff of those, the ones they handed to the repair service
 * @param serviceIdleCpuNanos what the repair service's CPU rate while idle, measured right before
 *     the phase, comes to over the phase and its drain: the part of {@code serviceCpuNanos} the
 *     service would spend with no writes at all (its polling, and a fresh JVM's compiling)
 */
record PhaseResult(
        Variant variant,
        int round,
        Instant started,
        Instant ended,
        double seconds,
        long writes,
        long errors,
        long nodeCpuNanos,
        long flushNodeCpuNanos,
        double flushSeconds,
        boolean settled,
        long clientCpuNanos,
        double machineBusyCores,
        String firstError,
        long serviceCpuNanos,
        double drainSeconds,
        long digestMismatches,
        long nodeTaken,
        long nodeHandedOff,
        long serviceIdleCpuNanos) {

    PhaseResult(Variant variant, int round, Instant started, Instant ended, double seconds, long writes, long errors, long nodeCpuNanos,
            long flushNodeCpuNanos, double flushSeconds, boolean settled, long clientCpuNanos, double machineBusyCores, String firstError,
            long serviceCpuNanos, double drainSeconds, long digestMismatches) {
        this(variant, round, started, ended, seconds, writes, errors, nodeCpuNanos, flushNodeCpuNanos, flushSeconds, settled, clientCpuNanos,
                machineBusyCores, firstError, serviceCpuNanos, drainSeconds, digestMismatches, 0, 0, 0);
    }

    /** The share of the writes the in-node maintainers took that they handed to the repair service (NaN when they took none). */
    double handedOffShare() {
        return nodeTaken == 0 ? Double.NaN : (double) nodeHandedOff / nodeTaken;
    }

    PhaseResult(Variant variant, int round, Instant started, Instant ended, double seconds, long writes, long errors, long nodeCpuNanos,
            long flushNodeCpuNanos, double flushSeconds, boolean settled, long clientCpuNanos, double machineBusyCores, String firstError) {
        this(variant, round, started, ended, seconds, writes, errors, nodeCpuNanos, flushNodeCpuNanos, flushSeconds, settled, clientCpuNanos,
                machineBusyCores, firstError, 0, 0, 0, 0, 0, 0);
    }

    /** The repair service's CPU per acknowledged write (end-to-end variants; 0 for the others), in µs. */
    double serviceCpuUsPerWrite() {
        return perWrite(serviceCpuNanos);
    }

    /** The idle share of {@link #serviceCpuUsPerWrite} ({@code serviceIdleCpuNanos} per write), in µs. */
    double serviceIdleCpuUsPerWrite() {
        return perWrite(serviceIdleCpuNanos);
    }

    boolean warmup() {
        return round == 0;
    }

    double writesPerSecond() {
        return seconds <= 0 ? 0 : writes / seconds;
    }

    /** Node CPU per acknowledged write during the phase, in µs; NaN when nothing was written. */
    double nodeCpuUsPerWrite() {
        return perWrite(nodeCpuNanos);
    }

    double flushNodeCpuUsPerWrite() {
        return perWrite(flushNodeCpuNanos);
    }

    double clientCpuUsPerWrite() {
        return perWrite(clientCpuNanos);
    }

    private double perWrite(long nanos) {
        return writes == 0 ? Double.NaN : nanos / 1000.0 / writes;
    }

    /** Average cores busy outside the node and this process during the phase (the noise), or NaN. */
    double otherBusyCores() {
        if (Double.isNaN(machineBusyCores) || seconds <= 0) {
            return Double.NaN;
        }
        return Math.max(0, machineBusyCores - (nodeCpuNanos + clientCpuNanos + serviceCpuNanos) / 1e9 / seconds);
    }
}
