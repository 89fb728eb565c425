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
    record Result(String name, double readsPerSecond, double p50Millis, double p99Millis, long requests) {
        Map<String, Object> toMap() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", name);
            m.put("reads_per_s", Math.round(readsPerSecond));
            m.put("p50_ms", Math.round(p50Millis * 1000) / 1000.0);
            m.put("p99_ms", Math.round(p99Millis * 1000) / 1000.0);
            m.put("requests", requests);
            return m;
        }
    }

    private Saturation() {}

    static List<Result> measure(List<BenchReadCommand.Query> queries, int inFlight, Duration each, PrintWriter out) throws Exception {
        out.printf(Locale.ROOT, "saturation: %d requests in flight, %d s per query (after 1 s not counted)...%n", inFlight, each.toSeconds());
        out.flush();
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        List<Result> results = new ArrayList<>();
        try {
            for (BenchReadCommand.Query q : queries) {
                window(pool, q, inFlight, Duration.ofSeconds(1), null);
                Latencies lat = new Latencies();
                long t0 = System.nanoTime();
                long count = window(pool, q, inFlight, each, lat);
                double seconds = (System.nanoTime() - t0) / 1e9;
                Result r;
                synchronized (lat) {
                    r = new Result(q.name(), count / seconds, lat.percentileMillis(50), lat.percentileMillis(99), count);
                }
                results.add(r);
            }
        } finally {
            pool.shutdownNow();
        }
        out.printf(Locale.ROOT, "%-48s %10s %9s %9s%n", "query (saturated)", "reads/s", "p50 ms", "p99 ms");
        for (Result r : results) {
            out.printf(Locale.ROOT, "%-48s %10.0f %9.3f %9.3f%n", r.name(), r.readsPerSecond(), r.p50Millis(), r.p99Millis());
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
     * Per question, our reads/s over the view's: HTTP eventual (target at least 0.8), and the Java
     * API at {@code as_of=safe}.
     */
    static List<Map<String, Object>> ratios(List<Result> results) {
        Map<String, Double> rps = new LinkedHashMap<>();
        results.forEach(r -> rps.put(r.name(), r.readsPerSecond()));
        List<Map<String, Object>> out = new ArrayList<>();
        for (String name : rps.keySet()) {
            if (!name.startsWith("mv-cql ")) {
                continue;
            }
            String question = name.substring("mv-cql".length());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("question", question.trim());
            Double mv = rps.get(name);
            for (String ours : List.of("gsi-http-eventual", "gsi-http-safe", "gsi-java-eventual", "gsi-java-safe", "http-floor")) {
                Double v = rps.get(ours + question);
                if (v != null && mv > 0) {
                    row.put(ours.replaceFirst("^gsi-", "") + "_vs_mv", Math.round(v / mv * 100) / 100.0);
                }
            }
            out.add(row);
        }
        return out;
    }
}
