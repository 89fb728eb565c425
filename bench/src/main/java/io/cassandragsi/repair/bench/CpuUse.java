package io.cassandragsi.repair.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the CPU of a measurement went: this JVM's own CPU time (the benchmark's client threads,
 * and the service when it runs in-process) against the whole machine's busy time from the
 * kernel's {@code /proc/stat}, whose difference is the rest of the machine (the Cassandra nodes).
 * On a machine without {@code /proc/stat} nothing is measured.
 */
final class CpuUse {
    /** Counters at one moment; {@code machineBusy} and {@code machineTotal} in clock ticks, -1 when unknown. */
    record Sample(long ownNanos, long machineBusy, long machineTotal) {}

    /**
     * Between two samples: this JVM's CPU and the rest of the machine's, in microseconds, and the
     * share of the machine's capacity that was busy (1 = every core all the time).
     */
    record Share(double ownMicros, double restMicros, double busy, double seconds) {
        /** Both together (either may be null: unknown); {@code busy} weighted by their lengths. */
        static Share plus(Share a, Share b) {
            if (a == null || b == null) {
                return null;
            }
            double seconds = a.seconds + b.seconds;
            return new Share(a.ownMicros + b.ownMicros, a.restMicros + b.restMicros, (a.busy * a.seconds + b.busy * b.seconds) / seconds,
                    seconds);
        }
    }

    private static final Path PROC_STAT = Path.of("/proc/stat");

    private CpuUse() {}

    static Sample sample() {
        long own = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        long busy = -1;
        long total = -1;
        try {
            // "cpu  user nice system idle iowait irq softirq steal ..." in clock ticks
            String[] f = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
            total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            busy = total - Long.parseLong(f[4]) - Long.parseLong(f[5]);
        } catch (IOException | RuntimeException e) {
            busy = -1;
        }
        return new Sample(own, busy, total);
    }

    /** The share between two samples, or null when the machine's counters are unknown. */
    static Share between(Sample a, Sample b) {
        if (a.machineBusy() < 0 || b.machineBusy() < 0 || b.machineTotal() <= a.machineTotal()) {
            return null;
        }
        double tickMicros = 1e6 / 100; // USER_HZ is 100 on Linux
        double machineBusyMicros = (b.machineBusy() - a.machineBusy()) * tickMicros;
        double ownMicros = (b.ownNanos() - a.ownNanos()) / 1e3;
        double busy = (double) (b.machineBusy() - a.machineBusy()) / (b.machineTotal() - a.machineTotal());
        double seconds = (b.machineTotal() - a.machineTotal()) * tickMicros / 1e6 / Runtime.getRuntime().availableProcessors();
        return new Share(ownMicros, Math.max(0, machineBusyMicros - ownMicros), busy, seconds);
    }
}
