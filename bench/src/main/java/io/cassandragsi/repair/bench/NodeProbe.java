package io.cassandragsi.repair.bench;

import io.cassandragsi.repair.cli.CommandFailedException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the benchmark observes of the node and the machine: the node's CPU time (from
 * {@code /proc/<pid>/stat}, so that reading it costs the node nothing), flushes and the compaction
 * backlog over the node's JMX port, the CPU time of this process and the machine's busy time
 * (from {@code /proc/stat}).
 */
final class NodeProbe implements AutoCloseable {
    private static final String STORAGE_SERVICE = "org.apache.cassandra.db:type=StorageService";
    private static final String COMPACTION_MANAGER = "org.apache.cassandra.db:type=CompactionManager";
    private static final String PENDING_COMPACTIONS = "org.apache.cassandra.metrics:type=Compaction,name=PendingTasks";
    private static final String RECONCILE_READS = "org.apache.cassandra.metrics:type=ReadRepair,name=ReconcileRead";

    private final long pid;
    private final long clockTicksPerSecond;
    private final JMXConnector jmx;
    private final MBeanServerConnection mbeans;

    private NodeProbe(long pid, long clockTicksPerSecond, JMXConnector jmx) throws IOException {
        this.pid = pid;
        this.clockTicksPerSecond = clockTicksPerSecond;
        this.jmx = jmx;
        this.mbeans = jmx.getMBeanServerConnection();
    }

    /**
     * Finds the node's process by its command line (LocalCluster names it {@code
     * -Dcassandra-gsi.node=node0@<address>} and gives it {@code -Dcassandra.storagedir=<node dir>})
     * and connects to its JMX port on 127.0.0.1.
     */
    static NodeProbe attach(String nodeName, String address, Path nodeDir, int jmxPort) {
        String nameMarker = "-Dcassandra-gsi.node=" + nodeName + "@" + address;
        String dirMarker = "-Dcassandra.storagedir=" + nodeDir.toAbsolutePath();
        List<Long> pids = ProcessHandle.allProcesses()
                .filter(h -> h.pid() != ProcessHandle.current().pid())
                .filter(h -> {
                    List<String> args = commandLine(h.pid());
                    return args.contains(nameMarker) && args.contains(dirMarker);
                })
                .map(ProcessHandle::pid)
                .toList();
        if (pids.size() != 1) {
            throw new CommandFailedException("cannot tell the node's process: " + pids.size() + " process(es) have " + nameMarker
                    + " and " + dirMarker + " on their command line");
        }
        long pid = pids.get(0);
        if (readCpuTicks(pid) < 0) {
            throw new CommandFailedException("cannot read the node's CPU time from /proc/" + pid + "/stat"
                    + " (the benchmark needs Linux /proc)");
        }
        try {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
            JMXConnector connector = JMXConnectorFactory.connect(url, Map.of());
            return new NodeProbe(pid, clockTicksPerSecond(), connector);
        } catch (IOException e) {
            throw new CommandFailedException("cannot connect to the node's JMX port 127.0.0.1:" + jmxPort + ": " + e.getMessage(), e);
        }
    }

    long pid() {
        return pid;
    }

    /** CPU time (user + system, all threads) the node has used since it started. */
    long nodeCpuNanos() {
        long ticks = readCpuTicks(pid);
        if (ticks < 0) {
            throw new CommandFailedException("the node (pid " + pid + ") is gone: /proc/" + pid + "/stat cannot be read");
        }
        return ticks * 1_000_000_000L / clockTicksPerSecond;
    }

    /** CPU time this JVM (the load generator and the driver) has used. */
    static long clientCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return ProcessHandle.current().info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
    }

    /** Busy and total jiffies of the whole machine from the first line of /proc/stat, if readable. */
    static Optional<long[]> machineJiffies() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat"), StandardCharsets.US_ASCII).get(0);
            return Optional.of(parseProcStat(first));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * Parses the {@code cpu} line of /proc/stat into {busy, total} jiffies: idle and iowait are
     * idle; guest time is already counted in user time.
     */
    static long[] parseProcStat(String cpuLine) {
        String[] f = cpuLine.trim().split("\\s+");
        if (!f[0].equals("cpu")) {
            throw new IllegalArgumentException("not the cpu line of /proc/stat: " + cpuLine);
        }
        long total = 0;
        long idle = 0;
        for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
            long v = Long.parseLong(f[i]);
            total += v;
            if (i == 4 || i == 5) {
                idle += v;
            }
        }
        return new long[] {total - idle, total};
    }

    /** Average busy cores between two {@link #machineJiffies()} readings, or NaN. */
    static double busyCores(Optional<long[]> before, Optional<long[]> after, int cores) {
        if (before.isEmpty() || after.isEmpty()) {
            return Double.NaN;
        }
        long busy = after.get()[0] - before.get()[0];
        long total = after.get()[1] - before.get()[1];
        return total <= 0 ? Double.NaN : cores * (double) busy / total;
    }

    /** utime + stime in clock ticks from /proc/{pid}/stat, or -1 when it cannot be read. */
    static long readCpuTicks(long pid) {
        try {
            return parseCpuTicks(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** utime (field 14) + stime (field 15) of a /proc/{pid}/stat line; the command name may hold spaces. */
    static long parseCpuTicks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state), so field n is f[n - 3]
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    static long clockTicksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            if (p.waitFor() == 0) {
                return Long.parseLong(out);
            }
        } catch (IOException | NumberFormatException e) {
            // fall through to Linux's usual value
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 100;
    }

    private static List<String> commandLine(long pid) {
        try {
            return List.of(Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"), StandardCharsets.UTF_8).split("\0"));
        } catch (IOException | RuntimeException e) {
            return List.of(); // gone meanwhile, or not ours to read
        }
    }

    /**
     * Flushes memtables to SSTables: {@code target} is a keyspace or {@code keyspace.table}, as
     * {@code nodetool flush} takes them. Returns when the flush has completed.
     */
    void flush(String target) {
        int dot = target.indexOf('.');
        String keyspace = dot < 0 ? target : target.substring(0, dot);
        String[] tables = dot < 0 ? new String[0] : new String[] {target.substring(dot + 1)};
        try {
            mbeans.invoke(new ObjectName(STORAGE_SERVICE), "forceKeyspaceFlush", new Object[] {keyspace, tables},
                    new String[] {String.class.getName(), String[].class.getName()});
        } catch (Exception e) {
            throw new CommandFailedException("flushing " + target + " over JMX failed: " + e, e);
        }
    }

    /**
     * Waits until the node runs no compaction and has none pending, polling twice a second, at most
     * {@code max}. Returns whether it settled.
     */
    boolean awaitCompactions(Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (true) {
            if (compactionBacklog() == 0) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(500);
        }
    }

    /**
     * Reads this node coordinated whose replicas disagreed (digest mismatches), since it started:
     * each cost full data reads and, where the table has blocking read repair, repair writes.
     */
    long digestMismatches() {
        try {
            Object count = mbeans.getAttribute(new ObjectName(RECONCILE_READS), "Count");
            return count instanceof Number n ? n.longValue() : 0;
        } catch (Exception e) {
            throw new CommandFailedException("reading the read repair meter over JMX failed: " + e, e);
        }
    }

    /**
     * The node's in-node maintainers ({@code io.cassandragsi:type=Maintainer,*} in its JMX):
     * writes taken and not finished, writes taken and handed to the repair service, writes taken,
     * repairs tried again, plain writes read together with others', each summed over the maintainers (a reloaded trigger jar starts a new one);
     * then the selects and mutations the maintainers did on this node's replica alone (counted per node, so the largest);
     * then the writes the trigger offered a maintainer that refused them, being full ({@code io.cassandragsi:type=Trigger}
     * {@code MaintainerRefused}): their markers went to the repair service's shards.
     */
    long[] maintainers() {
        long[] out = new long[8];
        try {
            for (ObjectName name : mbeans.queryNames(new ObjectName("io.cassandragsi:type=Trigger"), null)) {
                out[7] += ((Number) mbeans.getAttribute(name, "MaintainerRefused")).longValue();
            }
            for (ObjectName name : mbeans.queryNames(new ObjectName("io.cassandragsi:type=Maintainer,*"), null)) {
                out[0] += ((Number) mbeans.getAttribute(name, "Backlog")).longValue();
                out[1] += ((Number) mbeans.getAttribute(name, "HandedOff")).longValue();
                out[2] += ((Number) mbeans.getAttribute(name, "Queued")).longValue();
                out[3] += ((Number) mbeans.getAttribute(name, "Retried")).longValue();
                out[4] += ((Number) mbeans.getAttribute(name, "Prefetched")).longValue();
                out[5] = Math.max(out[5], ((Number) mbeans.getAttribute(name, "LocalReads")).longValue());
                out[6] = Math.max(out[6], ((Number) mbeans.getAttribute(name, "LocalWrites")).longValue());
            }
            return out;
        } catch (Exception e) {
            throw new CommandFailedException("reading the in-node maintainers over JMX failed: " + e, e);
        }
    }

    /** Running plus pending compactions. */
    int compactionBacklog() {
        try {
            Object running = mbeans.getAttribute(new ObjectName(COMPACTION_MANAGER), "Compactions");
            Object pending = mbeans.getAttribute(new ObjectName(PENDING_COMPACTIONS), "Value");
            return (running instanceof List<?> l ? l.size() : 0) + (pending instanceof Number n ? n.intValue() : 0);
        } catch (Exception e) {
            throw new CommandFailedException("reading the compaction backlog over JMX failed: " + e, e);
        }
    }

    @Override
    public void close() {
        try {
            jmx.close();
        } catch (IOException e) {
            // the node is going away anyway
        }
    }
}
