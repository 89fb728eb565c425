package io.cassandragsi.repair.bench;

import java.util.Optional;

/**
 * Measures one rebuild of {@code gsi bench bulk} from the JVM that runs it (the bench JVM for the
 * service's rebuild, the child JVM for Spark's): wall time, this JVM's CPU time, the node's CPU time
 * from {@code /proc/<pid>/stat} and the machine's busy cores, as {@link NodeProbe} reads them
 * (docs/performance.md, "Bulk rebuild: Spark against the service").
 */
final class BulkMeter {
    private final long nodePid;
    private final long ticksPerSecond;
    private final long startNanos;
    private final long jobCpu;
    private final long nodeTicks;
    private final Optional<long[]> machine;

    private BulkMeter(long nodePid) {
        this.nodePid = nodePid;
        this.ticksPerSecond = NodeProbe.clockTicksPerSecond();
        this.machine = NodeProbe.machineJiffies();
        this.nodeTicks = NodeProbe.readCpuTicks(nodePid);
        this.jobCpu = NodeProbe.clientCpuNanos();
        this.startNanos = System.nanoTime();
    }

    /** Starts measuring; {@code nodePid} is the Cassandra process. */
    static BulkMeter start(long nodePid) {
        return new BulkMeter(nodePid);
    }

    /** The rebuild that ran since {@link #start}: {@code rows} read, {@code writes} made, on {@code cores} cores. */
    BulkRun stop(String variant, long rows, long writes, int cores) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long job = NodeProbe.clientCpuNanos() - jobCpu;
        long node = NodeProbe.readCpuTicks(nodePid);
        long nodeNanos = node < 0 || nodeTicks < 0 ? -1 : (node - nodeTicks) * 1_000_000_000L / ticksPerSecond;
        double busy = NodeProbe.busyCores(machine, NodeProbe.machineJiffies(), Runtime.getRuntime().availableProcessors());
        return new BulkRun(variant, rows, writes, seconds, cores, job, nodeNanos, busy);
    }
}
