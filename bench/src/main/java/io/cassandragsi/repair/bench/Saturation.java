package io.cassandragsi.repair.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Reads per second at saturation, how a server is sized: per query, {@code inFlight} client threads
 * each sending one request after another (so that many are always in flight) for a fixed time,
 * after a second of the same not counted; with p50 and p99 of the requests.
 */
final class Saturation {
    /** One query's figures. */
    record Result(String name, double readsPerSecond, double p50Millis, double p99Millis, long requests, CpuUse.Share cpu) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("reads_per_s", Math.round(readsPerSecond));
            m.put("p50_ms", Math.round(p50Millis * 1000) / 1000.0);
            m.put("p99_ms", Math.round(p99Millis * 1000) / 1000.0);
            m.put("requests", requests);
            if (cpu != null) {
                m.put("bench_jvm_cpu_us_per_read", Math.round(cpu.ownMicros() / requests));
                m.put("rest_cpu_us_per_read", Math.round(cpu.restMicros() / requests));
                m.put("machine_busy", Math.round(cpu.busy() * 100) / 100.0);
            }
            return m;
        }
    }

    /**
     * Per query, not counted, before the first round: the JIT of both JVMs (the node's and this
     * one) compiles what saturation makes hot, slowly on a saturated machine; with 1 s, the node's
     * compiler still took a third of the machine during the first round.
     */
    private static final Duration WARM_UP = Duration.ofSeconds(2);

    private Saturation() {}

    /**
     * Measures {@code queries} in {@code rounds} rounds of one window each per query, after one
     * round of {@link #WARM_UP} windows not counted: interleaved, so that what drifts over a run (the JIT of the
     * node and of this JVM, compactions) weighs on every query alike. A query's figures are over
     * all its windows.
     */
    static List<Result> measure(List<BenchReadCommand.Query> queries, int inFlight, Duration each, int rounds, PrintWriter out)
            throws Exception {
        out.printf(Locale.ROOT, "saturation: %d requests in flight, %d rounds of %.1f s per query (after a round of %d s not counted)...%n",
                inFlight, rounds, each.toMillis() / 1000.0 / rounds, WARM_UP.toSeconds());
        out.flush();
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        Map<BenchReadCommand.Query, Latencies> lat = new LinkedHashMap<>();
        Map<BenchReadCommand.Query, long[]> counts = new LinkedHashMap<>(); // requests, nanoseconds
        Map<BenchReadCommand.Query, CpuUse.Share> cpu = new LinkedHashMap<>();
        try {
            for (BenchReadCommand.Query q : queries) {
                window(pool, q, inFlight, WARM_UP, null);
                lat.put(q, new Latencies());
                counts.put(q, new long[2]);
            }
            Duration length = each.dividedBy(rounds);
            for (int round = 0; round < rounds; round++) {
                for (BenchReadCommand.Query q : queries) {
                    CpuUse.Sample before = CpuUse.sample();
                    long t0 = System.nanoTime();
                    long count = window(pool, q, inFlight, length, lat.get(q));
                    counts.get(q)[0] += count;
                    counts.get(q)[1] += System.nanoTime() - t0;
                    CpuUse.Share used = CpuUse.between(before, CpuUse.sample());
                    cpu.put(q, round == 0 ? used : CpuUse.Share.plus(cpu.get(q), used));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        List<Result> results = new ArrayList<>();
        for (BenchReadCommand.Query q : queries) {
            long[] c = counts.get(q);
            Latencies l = lat.get(q);
            synchronized (l) {
                results.add(new Result(q.name(), c[0] / (c[1] / 1e9), l.percentileMillis(50), l.percentileMillis(99), c[0], cpu.get(q)));
            }
        }
        // CPU per read: this JVM (the client threads, and our service for the gsi-* queries) and the
        // rest of the machine (the Cassandra node), from the process's and the kernel's CPU counters
        out.printf(Locale.ROOT, "%-48s %10s %9s %9s %12s %12s %6s%n", "query (saturated)", "reads/s", "p50 ms", "p99 ms", "jvm us/read",
                "rest us/read", "busy");
        for (Result r : results) {
            CpuUse.Share c = r.cpu();
            out.printf(Locale.ROOT, "%-48s %10.0f %9.3f %9.3f %12s %12s %6s%n", r.name(), r.readsPerSecond(), r.p50Millis(), r.p99Millis(),
                    c == null ? "-" : Math.round(c.ownMicros() / r.requests()), c == null ? "-" : Math.round(c.restMicros() / r.requests()),
                    c == null ? "-" : Math.round(c.busy() * 100) + "%");
        }
        out.flush();
        return results;
    }

    /** {@code inFlight} threads sending {@code q} one after another until {@code length} has passed; the requests done (recorded in {@code lat}). */
    private static long window(ExecutorService pool, BenchReadCommand.Query q, int inFlight, Duration length, Latencies lat) throws Exception {
        long end = System.nanoTime() + length.toNanos();
        AtomicLong count = new AtomicLong();
        List<Future<?>> threads = new ArrayList<>();
        for (int i = 0; i < inFlight; i++) {
            threads.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    long t = System.nanoTime();
                    q.sync().get().toCompletableFuture().get();
                    long took = System.nanoTime() - t;
                    count.incrementAndGet();
                    if (lat != null) {
                        synchronized (lat) {
                            lat.add(took);
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : threads) {
            f.get();
        }
        return count.get();
    }

    /**
     * Per question, our reads/s over the view's: HTTP eventual, the Java API eventual (target at
     * least 0.9) and at {@code as_of=safe}; {@code http-eventual_vs_ceiling}, HTTP eventual over the
     * ceiling (target at least 0.9); and {@code http_ceiling_vs_mv}, the most an HTTP read can reach on
     * this machine: the view's CPU per read over the Java read's plus the HTTP exchange's alone
     * (http-floor's), both measured here. It holds while the machine is saturated (every window
     * busy), so that reads/s is the machine's CPU over the CPU per read.
     */
    static List<Map<String, Object>> ratios(List<Result> results) {
        Map<String, Result> byName = new LinkedHashMap<>();
        results.forEach(r -> byName.put(r.name(), r));
        List<Map<String, Object>> out = new ArrayList<>();
        for (String name : byName.keySet()) {
            if (!name.startsWith("mv-cql ")) {
                continue;
            }
            String question = name.substring("mv-cql".length());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("question", question.trim());
            Result mv = byName.get(name);
            for (String ours : List.of("gsi-http-eventual", "gsi-http-safe", "gsi-java-eventual", "gsi-java-safe", "http-floor")) {
                Result r = byName.get(ours + question);
                if (r != null && mv.readsPerSecond() > 0) {
                    row.put(ours.replaceFirst("^gsi-", "") + "_vs_mv", round2(r.readsPerSecond() / mv.readsPerSecond()));
                }
            }
            Result java = byName.get("gsi-java-eventual" + question);
            Result floor = byName.get("http-floor" + question);
            if (java != null && floor != null && cpuPerRead(mv) > 0 && cpuPerRead(java) > 0 && cpuPerRead(floor) > 0) {
                double ceiling = cpuPerRead(mv) / (cpuPerRead(java) + cpuPerRead(floor));
                row.put("http_ceiling_vs_mv", round2(ceiling));
                Result http = byName.get("gsi-http-eventual" + question);
                if (http != null && mv.readsPerSecond() > 0) { // issue 37's target: at least 0.9
                    row.put("http-eventual_vs_ceiling", round2(http.readsPerSecond() / mv.readsPerSecond() / ceiling));
                }
            }
            out.add(row);
        }
        return out;
    }

    /** The whole machine's CPU per read in microseconds, or 0 when unknown. */
    private static double cpuPerRead(Result r) {
        return r.cpu() == null || r.requests() == 0 ? 0 : (r.cpu().ownMicros() + r.cpu().restMicros()) / r.requests();
    }

    private static double round2(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
