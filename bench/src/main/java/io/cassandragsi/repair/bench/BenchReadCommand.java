package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.cli.GsiCommand;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.service.GsiServer;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import io.undertow.Undertow;
import io.undertow.util.Headers;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.function.Predicate;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gsi bench read}: index read latency, one local node, same data, same run: our eventual,
 * consistent and {@code as_of=safe} reads through HTTP and through the Java API, next to the same question asked of a
 * materialized view and of SAI through CQL. Sequential requests (latency, not throughput),
 * interleaved in blocks so that every query type sees the same machine.
 */
@Command(name = "read", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Measure index read latency (p50/p99) on one local Cassandra 5.0 node that this command starts: gsi eventual and"
                + " consistent reads over HTTP and through the Java API, a materialized view and SAI through CQL; LIMIT 10 and 100,"
                + " a value with few matches and one with many. Writes target/bench/read.json (--nodes 3: three local nodes, RF=3,"
                + " LOCAL_QUORUM, read-3.json).",
            "Also prints, for reference, our index table read through CQL and the HTTP round trip alone (http-floor),"
                    + " then the p50 ratios against the targets (eventual vs MV: Java <= 1.1, HTTP <= 1.5; consistent vs SAI: < 1;"
                    + " as_of=safe through Java vs MV <= 1.1 and vs SAI < 1),"
                    + " also written to read.json.",
            "Takes about 3 minutes; --quick about 1.5 (with less JIT warm-up: higher figures)."})
public final class BenchReadCommand implements Callable<Integer> {
    static final int KEYS = 20_000;
    static final int HOT_MATCHES = 1_400;
    static final int RARE_MATCHES = 5;
    static final long HOT = 1;
    static final long RARE = 2;
    private static final String INSERT = "INSERT INTO bench_read.revisions (key, tid, length, value) VALUES (?, ?, ?, ?)";

    @Option(names = "--quick", description = "200 measured requests per query instead of 1000.")
    boolean quick;

    @Option(names = "--requests", paramLabel = "N", description = "Measured requests per query (default 1000, --quick 200).")
    Integer requests;

    @Option(names = "--only", paramLabel = "TEXT", split = ",",
            description = "Measure only the queries whose name contains one of these texts (e.g. java-eventual,mv-cql), to profile a few.")
    List<String> only;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "1",
            description = "1, or 3: a local three-node cluster, keyspaces at RF=3, every read at LOCAL_QUORUM (MV and SAI too);"
                    + " results in target/bench/read-3.json (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(names = "--in-flight", paramLabel = "N", defaultValue = "0",
            description = "Also measure reads/s at saturation: N requests in flight per query (e.g. 32; 0: only the sequential latency).")
    int inFlight;

    @Option(names = "--write-load", paramLabel = "N", defaultValue = "0",
            description = "Measure under a steady load of N indexed writes per second into the same table (new rows, never the values"
                    + " read), so that the fresh read's wait for the safe time shows under writes; results in read-load.json (default: none).")
    int writeLoad;

    @Option(names = "--maintenance", paramLabel = "MODE", defaultValue = "service",
            description = "The table's maintenance: service or node (docs/design.md section 7.8) (default: ${DEFAULT-VALUE}).")
    String maintenance;

    @picocli.CommandLine.Mixin
    NodeOptions nodeOptions;

    @Spec
    CommandSpec spec;

    /** One query type: its name and how to run one request. */
    record Query(String name, Supplier<CompletionStage<?>> sync) {}

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        int n = requests != null ? requests : quick ? 200 : 1000;
        Path home = Path.of(System.getProperty("gsi.home", ".")).toAbsolutePath().normalize();
        if (nodes != 1 && nodes != 3) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--nodes must be 1 or 3, got " + nodes);
        }
        String results = "target/bench/read" + (nodes == 1 ? "" : "-" + nodes) + (maintenance.equals("node") ? "-node" : "")
                + (writeLoad > 0 ? "-load" : "") + ".json";
        try (BenchNode node = nodeOptions.start(home, "target/bench/read-node", out, nodes)) {
            if (!maintenance.equals("service") && !maintenance.equals("node")) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--maintenance must be service or node, got " + maintenance);
            }
            TableDef def = Definitions.parse("""
                    {"keyspace": "bench_read", "table": "revisions", "maintenance": "%s",
                     "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
                     "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
                     "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}]}}
                    """.formatted(maintenance), "bench_read");
            node.apply(def);
            // SAI first, on the empty table: an index build interrupts the base table's compactions, and the
            // MV's build is one (a three-node run once failed with "View build ... Compaction interrupted")
            node.ddl("CREATE INDEX IF NOT EXISTS revisions_length_sai ON bench_read.revisions (length) USING 'sai'");
            node.ddl("CREATE MATERIALIZED VIEW IF NOT EXISTS bench_read.mv_by_length AS SELECT key, tid, length, value"
                    + " FROM bench_read.revisions WHERE length IS NOT NULL AND key IS NOT NULL AND tid IS NOT NULL"
                    + " PRIMARY KEY ((length), key, tid)");
            node.session.checkSchemaAgreement();
            GsiConfig d = GsiConfig.defaults();
            GsiConfig config = new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false),
                    d.antiEntropy().withEnabled(false)); // measured alone: anti-entropy's background pace is not part of the figure
            try (GsiServer server = new GsiServer(node.session, config); HttpFloor floor = new HttpFloor()) {
                load(node, out);
                BenchNode.awaitDrained(server, java.time.Duration.ofMinutes(2));
                settle(node, out);
                PreparedStatement insert = node.session.prepare(INSERT);
                try (BackgroundWrites load = new BackgroundWrites(node.session, insert, writeLoad)) {
                    measure(node, server, floor, load, n, home.resolve(results), out);
                }
                out.println("wrote " + results);
            }
        }
        return GsiCommand.OK;
    }

    /** Measures every query (and, with --in-flight, its saturation) under the write load, and writes the results. */
    private void measure(BenchNode node, GsiServer server, HttpFloor floor, BackgroundWrites load, int n, Path file, PrintWriter out)
            throws Exception {
        List<Query> queries = queries(node, server, floor);
        List<Map<String, Object>> measured = run(queries, n, out);
        Map<String, Double> p50 = new LinkedHashMap<>();
        measured.forEach(r -> p50.put((String) r.get("name"), (Double) r.get("p50_ms")));
        List<Map<String, Object>> ratios = ReadRatios.of(p50);
        ReadRatios.print(ratios, out);
        List<Saturation.Result> saturated = List.of();
        List<Map<String, Object>> saturatedRatios = List.of();
        if (inFlight > 0) {
            // http-floor too: the HTTP round trip alone at saturation, the floor under every HTTP read's figure
            saturated = Saturation.measure(queries, inFlight, java.time.Duration.ofSeconds(quick ? 3 : 6), 3, out);
            saturatedRatios = Saturation.ratios(saturated);
            out.println("reads/s at saturation over the view's (targets: java-eventual_vs_mv and http-eventual_vs_ceiling at least 0.9): "
                    + saturatedRatios);
        }
        if (writeLoad > 0) {
            out.println(load.summary());
        }
        out.println("fresh reads past their wait bound (503 fresh_timeout), warm-up included: " + freshTimeouts.sum());
        write(file, measured, ratios, n, nodes, saturated, saturatedRatios, inFlight, writeLoad, load.ackedPerSecond());
    }

    private static void load(BenchNode node, PrintWriter out) throws InterruptedException {
        PreparedStatement insert = node.session.prepare(INSERT);
        Random rnd = new Random(42);
        Semaphore inFlight = new Semaphore(128);
        String value = "x".repeat(200);
        long t0 = System.nanoTime();
        for (int k = 0; k < KEYS; k++) {
            long length = k < HOT_MATCHES ? HOT : k < HOT_MATCHES + RARE_MATCHES ? RARE : 10 + rnd.nextInt(1000);
            inFlight.acquire();
            node.session.executeAsync(insert.bind("key-" + k, Uuids.timeBased(), BigInteger.valueOf(length), value))
                    .whenComplete((r, e) -> inFlight.release());
        }
        inFlight.acquire(128);
        out.printf(Locale.ROOT, "loaded %d rows (%d with length %d, %d with length %d) in %.1f s%n", KEYS, HOT_MATCHES, HOT,
                RARE_MATCHES, RARE, (System.nanoTime() - t0) / 1e9);
        out.flush();
    }

    /**
     * Flushes the benchmark's tables and waits for compactions to end, so that every query reads
     * the same settled SSTables and no background work of the load overlaps the measurement.
     */
    private static void settle(BenchNode node, PrintWriter out) throws InterruptedException {
        LocalCluster cluster = node.cluster;
        try (ClusterProbe probe = ClusterProbe.attach(cluster)) {
            long t0 = System.nanoTime();
            probe.flush("bench_read");
            boolean settled = probe.awaitCompactions(java.time.Duration.ofMinutes(2));
            out.printf(Locale.ROOT, "flushed bench_read and %s in %.1f s%n", settled ? "waited for compactions" : "gave up waiting for compactions",
                    (System.nanoTime() - t0) / 1e9);
            out.flush();
        }
    }

    /** Every query of the benchmark (or those {@code --only} names), each ready to run one request. */
    private List<Query> queries(BenchNode node, GsiServer server, HttpFloor floor) throws Exception {
        String base = "http://127.0.0.1:" + server.httpPort() + "/v1/bench_read/revisions//by_length/";
        PreparedStatement mv = node.session.prepare("SELECT key, tid, length, value FROM bench_read.mv_by_length WHERE length = ? LIMIT ?");
        PreparedStatement sai = node.session.prepare("SELECT key, tid, length, value FROM bench_read.revisions WHERE length = ? LIMIT ?");
        IndexReader reader = server.reader();
        // our index table read by hand: what the node costs for our table, next to the MV's
        PreparedStatement indexTable = node.session.prepare("SELECT length, key, value, \"_tid\", \"_deleted\""
                + " FROM bench_read.idx_revisions_by_length_ever WHERE length = ? LIMIT ?");
        Map<String, byte[]> floorBodies = floor.bodies;
        {
            List<Query> queries = new ArrayList<>();
            for (int limit : new int[] {10, 100}) {
                for (long v : new long[] {HOT, RARE}) {
                    String tag = " limit=" + limit + " " + (v == HOT ? "many(" + HOT_MATCHES + ")" : "few(" + RARE_MATCHES + ")");
                    String url = base + v + "?limit=" + limit;
                    queries.add(new Query("gsi-http-eventual" + tag, () -> get(url)));
                    queries.add(new Query("gsi-http-consistent" + tag, () -> get(url + "&consistent=true")));
                    IndexReader.Query q = IndexReader.Query.of("bench_read", "revisions", "by_length", String.valueOf(v)).withLimit(limit);
                    queries.add(new Query("gsi-java-eventual" + tag, () -> CompletableFuture.completedFuture(reader.read(q))));
                    queries.add(new Query("gsi-java-consistent" + tag,
                            () -> CompletableFuture.completedFuture(reader.read(q.withConsistent(true)))));
                    queries.add(new Query("gsi-http-safe" + tag, () -> get(url + "&as_of=safe")));
                    IndexReader.Query safe = q.withAsOf("safe");
                    queries.add(new Query("gsi-java-safe" + tag, () -> CompletableFuture.completedFuture(reader.read(safe))));
                    if (limit == 10 && v == HOT) { // a fresh read waits about the safe time's lag: one shape is enough to see it
                        // a wait past its bound (503 fresh_timeout) is counted, with its latency, not a failure of the run
                        queries.add(new Query("gsi-http-fresh" + tag, () -> countingTimeouts(() -> get(url + "&fresh=true"))));
                        IndexReader.Query fresh = q.fresh();
                        queries.add(new Query("gsi-java-fresh" + tag,
                                () -> countingTimeouts(() -> CompletableFuture.completedFuture(reader.read(fresh)))));
                    }
                    int lim = limit;
                    BigInteger value = BigInteger.valueOf(v);
                    queries.add(new Query("mv-cql" + tag, () -> drain(node.session.executeAsync(mv.bind(value, lim)), BenchReadCommand::decodeBaseRow)));
                    queries.add(new Query("index-table-cql" + tag,
                            () -> drain(node.session.executeAsync(indexTable.bind(value, lim)), BenchReadCommand::decodeIndexRow)));
                    queries.add(new Query("sai-cql" + tag, () -> drain(node.session.executeAsync(sai.bind(value, lim)), BenchReadCommand::decodeBaseRow)));
                    String floorPath = "/" + v + "/" + limit;
                    floorBodies.put(floorPath, get(url).toCompletableFuture().join());
                    String floorUrl = floor.url(floorPath);
                    queries.add(new Query("http-floor" + tag, () -> get(floorUrl)));
                }
            }
            if (only != null) {
                queries.removeIf(q -> only.stream().noneMatch(o -> q.name().contains(o)));
            }
            return queries;
        }
    }

    /** Fresh reads that waited past their bound: 503 {@code fresh_timeout} over HTTP, the same {@code ReadException} in Java. */
    private final java.util.concurrent.atomic.LongAdder freshTimeouts = new java.util.concurrent.atomic.LongAdder();

    private CompletionStage<?> countingTimeouts(Supplier<CompletionStage<?>> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                boolean timedOut = t instanceof io.cassandragsi.repair.read.ReadException r ? "fresh_timeout".equals(r.error())
                        : t.getMessage() != null && t.getMessage().contains("\"fresh_timeout\"");
                if (timedOut) {
                    freshTimeouts.increment();
                    return CompletableFuture.completedFuture(null);
                }
            }
            throw e;
        }
    }

    /**
     * The HTTP round trip alone, as a reference: an Undertow server answering, from its I/O thread,
     * the bytes our server answered to the same eventual read, to the same client. Our HTTP reads
     * can cost no less than this plus the Java read.
     */
    private static final class HttpFloor implements AutoCloseable {
        private final Undertow server;
        private final int port;

        /** The body to answer per path: what our server answered to the same read. */
        final Map<String, byte[]> bodies = new java.util.concurrent.ConcurrentHashMap<>();

        HttpFloor() {
            server = Undertow.builder().addHttpListener(0, "127.0.0.1").setHandler(exchange -> {
                byte[] body = bodies.get(exchange.getRequestPath());
                exchange.setStatusCode(body == null ? 404 : 200);
                exchange.getResponseHeaders().put(Headers.CONTENT_TYPE, "application/json");
                exchange.getResponseSender().send(ByteBuffer.wrap(body == null ? new byte[0] : body));
            }).build();
            server.start();
            port = ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
        }

        String url(String path) {
            return "http://127.0.0.1:" + port + path;
        }

        @Override
        public void close() {
            server.stop();
        }
    }

    /** Runs the queries in interleaved blocks, warm-up first, and prints and returns their p50 and p99. */
    private static List<Map<String, Object>> run(List<Query> queries, int n, PrintWriter out) throws Exception {
        Map<String, Latencies> lat = new LinkedHashMap<>();
        for (Query q : queries) {
            lat.put(q.name(), new Latencies());
        }
        int block = 25;
        // long enough that the reader's code is compiled like the driver's, which every query shares:
        // with a fifth of this, our reads ran partly unoptimized and p99s were five times higher
        int warmup = 2 * n;
        out.println("measuring " + queries.size() + " queries x " + n + " requests (after " + warmup + " warm-up requests each)...");
        out.flush();
        for (int done = -warmup; done < n; done += block) {
            for (Query q : queries) {
                for (int i = 0; i < block; i++) {
                    long t0 = System.nanoTime();
                    q.sync().get().toCompletableFuture().get();
                    long t = System.nanoTime() - t0;
                    if (done >= 0) {
                        lat.get(q.name()).add(t);
                    }
                }
            }
        }
        List<Map<String, Object>> results = new ArrayList<>();
        out.printf(Locale.ROOT, "%-48s %9s %9s%n", "query", "p50 ms", "p99 ms");
        for (Map.Entry<String, Latencies> e : lat.entrySet()) {
            double p50 = e.getValue().percentileMillis(50);
            double p99 = e.getValue().percentileMillis(99);
            out.printf(Locale.ROOT, "%-48s %9.3f %9.3f%n", e.getKey(), p50, p99);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("name", e.getKey());
            r.put("p50_ms", Math.round(p50 * 1000) / 1000.0);
            r.put("p99_ms", Math.round(p99 * 1000) / 1000.0);
            r.put("requests", e.getValue().size());
            results.add(r);
        }
        out.flush();
        return results;
    }

    /**
     * One GET with the JDK's blocking HTTP/1.1 client on the calling thread, which keeps the
     * connection alive between requests, as a client application would; the whole body is read
     * (which returns the connection to the keep-alive cache) and anything but a 200 fails the run.
     * (The JDK's asynchronous {@code java.net.http.HttpClient} hands each request and response
     * between its own threads; that alone cost 0.5 to 3 ms per request on a busy two-core machine,
     * more than the server's whole answer.)
     */
    private static CompletionStage<byte[]> get(String url) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection(Proxy.NO_PROXY);
            int status = c.getResponseCode();
            if (status != 200) {
                try (InputStream err = c.getErrorStream()) {
                    throw new IllegalStateException("GET " + url + " answered " + status + ": "
                            + (err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
            try (InputStream in = c.getInputStream()) {
                return CompletableFuture.completedFuture(in.readAllBytes());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads every row of every page and decodes its values, as a client would: the same work our
     * Java API does when it returns items (the index key, the base key with its tid, the projection).
     */
    private static CompletionStage<Integer> drain(CompletionStage<AsyncResultSet> first, Predicate<Row> decode) {
        return first.thenCompose(rs -> {
            int count = 0;
            for (Row row : rs.currentPage()) {
                if (decode.test(row)) {
                    count++;
                }
            }
            int c = count;
            return rs.hasMorePages() ? drain(rs.fetchNextPage(), decode).thenApply(x -> x + c) : CompletableFuture.completedFuture(c);
        });
    }

    /** An MV or base row: key, tid, length, value. */
    private static boolean decodeBaseRow(Row row) {
        return row.getString(0) != null && row.getUuid(1) != null && row.getBigInteger(2) != null && row.getString(3) != null;
    }

    /** An index table row: length, key, value, _tid (and _deleted, null here). */
    private static boolean decodeIndexRow(Row row) {
        return row.getBigInteger(0) != null && row.getString(1) != null && row.getString(2) != null && row.getUuid(3) != null;
    }

    private void write(Path file, List<Map<String, Object>> results, List<Map<String, Object>> ratios, int n, int nodes,
            List<Saturation.Result> saturated, List<Map<String, Object>> saturatedRatios, int inFlight, int writeLoad, double writesAcked)
            throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        ArrayNode arr = root.putArray("queries");
        for (Map<String, Object> r : results) {
            arr.add(json.valueToTree(r));
        }
        ArrayNode ratioArray = root.putArray("ratios");
        for (Map<String, Object> r : ratios) {
            ratioArray.add(json.valueToTree(r));
        }
        ArrayNode sat = root.putArray("saturation");
        saturated.forEach(r -> sat.add(json.valueToTree(r.toMap())));
        ArrayNode satRatios = root.putArray("saturation_ratios");
        saturatedRatios.forEach(r -> satRatios.add(json.valueToTree(r)));
        ObjectNode cfg = root.putObject("config");
        cfg.put("in_flight", inFlight);
        cfg.put("maintenance", maintenance);
        cfg.put("fresh_timeouts", freshTimeouts.sum());
        cfg.put("write_load_per_second", writeLoad).put("writes_acknowledged_per_second", Math.round(writesAcked));
        cfg.put("keys", KEYS).put("many_matches", HOT_MATCHES).put("few_matches", RARE_MATCHES).put("requests_per_query", n)
                .put("value_bytes", 200).put("nodes", nodes).put("consistency", "LOCAL_QUORUM for every read, RF=" + nodes);
        Files.createDirectories(file.getParent());
        Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }
}
