package io.cassandragsi.repair.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where the repair service's CPU goes under the end-to-end load ({@code bench write
 * --profile-service}): the JFR execution samples of its JVM, split three ways: by the code the
 * sampled frame runs (our code, the driver, netty, the JDK...), by thread pool, and by the
 * methods of ours on the stack (inclusive). Shares are of samples; multiplied by the service's
 * CPU per marker they give microseconds per marker.
 */
final class ServiceProfile {
    /** Samples counted per key. */
    record Tally(long samples, Map<String, Long> byCode, Map<String, Long> byThread, Map<String, Long> byOurMethod) {}

    private ServiceProfile() {}

    /**
     * Reads the execution samples of the recordings; {@code methods} picks, from a sample's frames
     * (top first), the methods it is counted under (inclusive).
     */
    static Tally read(List<Path> recordings, java.util.function.Function<List<String>, Set<String>> methods) {
        long samples = 0;
        Map<String, Long> byCode = new HashMap<>();
        Map<String, Long> byThread = new HashMap<>();
        Map<String, Long> byOurs = new HashMap<>();
        for (Path file : recordings) {
            try (RecordingFile r = new RecordingFile(file)) {
                while (r.hasMoreEvents()) {
                    RecordedEvent e = r.readEvent();
                    if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                        continue;
                    }
                    RecordedStackTrace stack = e.getStackTrace();
                    List<String> frames = new ArrayList<>();
                    if (stack != null) {
                        for (RecordedFrame f : stack.getFrames()) {
                            frames.add(f.getMethod().getType().getName() + "." + f.getMethod().getName());
                        }
                    }
                    samples++;
                    byCode.merge(codeOf(frames.isEmpty() ? "" : frames.get(0)), 1L, Long::sum);
                    String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
                    byThread.merge(poolOf(thread), 1L, Long::sum);
                    for (String m : methods.apply(frames)) {
                        byOurs.merge(m, 1L, Long::sum);
                    }
                }
            } catch (IOException ex) {
                throw new UncheckedIOException("cannot read the service's recording " + file + ": " + ex.getMessage(), ex);
            }
        }
        return new Tally(samples, byCode, byThread, byOurs);
    }

    /** The library a frame ({@code class.method}) belongs to. */
    static String codeOf(String frame) {
        if (frame.startsWith("io.cassandragsi.")) {
            return "ours";
        }
        if (frame.startsWith("io.netty.") || frame.startsWith("com.datastax.oss.driver.shaded.netty.")) {
            return "netty";
        }
        if (frame.startsWith("com.datastax.")) {
            return "driver";
        }
        if (frame.startsWith("org.apache.cassandra.")) {
            return "cassandra";
        }
        if (frame.startsWith("com.fasterxml.jackson.")) {
            return "jackson";
        }
        if (frame.startsWith("io.undertow.") || frame.startsWith("org.xnio.")) {
            return "undertow";
        }
        if (frame.startsWith("java.") || frame.startsWith("javax.") || frame.startsWith("jdk.") || frame.startsWith("sun.")) {
            return "jdk";
        }
        return frame.isEmpty() ? "(no stack)" : "other";
    }

    /** A thread's pool: its name without the number at its end that tells its members apart. */
    static String poolOf(String thread) {
        return thread.replaceAll("\\d+$", "N");
    }

    /** The distinct methods of ours on a stack (top first), each counted once per sample, without the common package prefix. */
    static Set<String> ours(List<String> frames) {
        return methodsUnder(frames, new String[][] {{"io.cassandragsi.repair.", "io.cassandragsi.repair."}, {"io.cassandragsi.", "io.cassandragsi."}});
    }

    /**
     * On a node: the CQL statement classes' and {@code StorageProxy}'s methods on the stack (what
     * kind of request the work serves), and our trigger's; without the common package prefix.
     */
    static Set<String> nodePaths(List<String> frames) {
        return methodsUnder(frames, new String[][] {{"org.apache.cassandra.cql3.statements.", "org.apache.cassandra.cql3.statements."},
            {"org.apache.cassandra.service.StorageProxy.", "org.apache.cassandra.service."}, {"io.cassandragsi.", "io.cassandragsi."}});
    }

    /** The distinct frames that start with a rule's first prefix, less its second; the first rule that matches a frame applies. */
    private static Set<String> methodsUnder(List<String> frames, String[][] rules) {
        Set<String> out = new LinkedHashSet<>();
        for (String f : frames) {
            for (String[] rule : rules) {
                if (f.startsWith(rule[0])) {
                    out.add(f.substring(rule[1].length()));
                    break;
                }
            }
        }
        return out;
    }

    /** The breakdown as text, with microseconds per marker where {@code microsPerMarker} is known (> 0). */
    static String format(String title, Tally t, double microsPerMarker, int top) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%s (JFR execution samples: %d)%s%n", title, t.samples(),
                microsPerMarker > 0 ? String.format(Locale.ROOT, ", %.0f us per marker in all", microsPerMarker) : ""));
        section(out, "by the code a sample runs", t.byCode(), t.samples(), microsPerMarker, top);
        section(out, "by thread pool", t.byThread(), t.samples(), microsPerMarker, top);
        section(out, "by methods on the stack (inclusive)", t.byOurMethod(), t.samples(), microsPerMarker, top);
        return out.toString();
    }

    private static void section(StringBuilder out, String title, Map<String, Long> counts, long samples, double microsPerMarker, int top) {
        out.append("  ").append(title).append(":\n");
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top).forEach(e -> {
            double share = samples == 0 ? 0 : (double) e.getValue() / samples;
            out.append(String.format(Locale.ROOT, "    %5.1f%%%s  %s%n", 100 * share,
                    microsPerMarker > 0 ? String.format(Locale.ROOT, " %6.1f us", share * microsPerMarker) : "", e.getKey()));
        });
    }
}
