package io.cassandragsi.repair.service;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.http.HttpApi;
import io.cassandragsi.repair.http.JobsAdmin;
import io.cassandragsi.repair.jobs.JobRegistry;
import io.cassandragsi.repair.jobs.Jobs;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/**
 * The running sidecar: the repair service (queue consumer), the index reader and the HTTP API,
 * with their counters published through Micrometer for {@code GET /metrics}.
 */
public final class GsiServer implements AutoCloseable {
    private final RepairService service;
    private final IndexReader reader;
    private final HttpApi http;
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    private final JobRegistry jobs;
    /** Continuous anti-entropy (docs/design.md section 9.3), or null when the config turns it off. */
    private final io.cassandragsi.repair.jobs.AntiEntropy antiEntropy;
    /** Seals the ended buckets of bucketed indexes (docs/design.md section 9.4). */
    private final io.cassandragsi.repair.jobs.BucketSealer sealer;

    /**
     * The composition root of the service process: one {@link Catalog} (the live schema) and one
     * {@link IndexWriter} (the one limit on index writes in flight) shared by the repair service,
     * the reads and the rebuild and check jobs ({@code POST /admin/.../rebuild|check}, {@code GET
     * /admin/jobs/{id}}), and the HTTP API over them.
     */
    public GsiServer(CqlSession session, GsiConfig config) {
        Catalog catalog = new Catalog(session, config.projectKeyspace());
        IndexWriter writer = new IndexWriter(catalog::execute, IndexWriter.MAX_IN_FLIGHT);
        this.service = new RepairService(session, config, catalog, writer);
        Jobs runner = new Jobs(session, catalog, writer, config.projectKeyspace(), config.consistency());
        runner.ledger(); // like the service's tables: a missing jobs table stops the start, naming it
        this.jobs = new JobRegistry(runner);
        this.reader = new IndexReader(session, catalog, service.queue(), config.consistency().read(),
                tokenKey(config.http().token()), IndexReader.CHECK_CONCURRENCY, new IndexReader.SafeTimes() {
                    @Override
                    public java.time.Instant of(io.cassandragsi.schema.TableDef table) {
                        return service.safeTime(table);
                    }

                    @Override
                    public String heldBy(io.cassandragsi.schema.TableDef table) {
                        return service.safeTimeHeldBy(table);
                    }
                }, config.http().freshTimeout());
        bindMetrics();
        service.start();
        this.antiEntropy = config.antiEntropy().enabled()
                ? runner.antiEntropy(config.antiEntropy(), () -> service.consumer().shards().contains(0), service::horizonMillis).start()
                : null;
        this.sealer = runner.sealer(() -> service.consumer().shards().contains(0)).start();
        counter("gsi_buckets_sealed", "buckets the bucket sealer sealed", sealer.sealed);
        counter("gsi_bucket_seal_failures", "bucket sealer rounds that failed (tried again at the next)", sealer.failures);
        if (antiEntropy != null) {
            counter("gsi_anti_entropy_rows", "base rows anti-entropy checked", antiEntropy.rowsTotal);
            for (String kind : io.cassandragsi.repair.jobs.AntiEntropy.kinds()) {
                FunctionCounter.builder("gsi_anti_entropy_entries", antiEntropy.findingsTotal, m -> m.containsKey(kind) ? m.get(kind).sum() : 0)
                        .tag("kind", kind).description("index entries anti-entropy found (missing, stale, orphans), fixed, could not fix, or left"
                                + " to the maintainers (written since the safe time)").register(registry);
            }
            for (String kind : io.cassandragsi.repair.jobs.AntiEntropy.BUCKET_KINDS) {
                FunctionCounter.builder("gsi_anti_entropy_buckets", antiEntropy.bucketsTotal, m -> m.containsKey(kind) ? m.get(kind).sum() : 0)
                        .tag("kind", kind).description("buckets anti-entropy compared with the base, skipped (sealed again or changed"
                                + " during its pass), found differing, and gave back to the sealer (docs/design.md section 9.3)").register(registry);
            }
        }
        this.http = new HttpApi(config.http(), HttpApi.Timeouts.DEFAULTS, reader::readAsync, this::status, this::scrape,
                new JobsAdmin(jobs));
        counter("gsi_http_rejected", "HTTP requests refused with a 4xx", http.rejected);
        counter("gsi_http_failed", "HTTP requests that failed with a 5xx", http.failed);
    }

    /**
     * The key that signs page tokens: derived from the bearer token, so that instances behind one
     * load balancer accept each other's tokens; random per process when there is no token.
     */
    static byte[] tokenKey(String bearerToken) {
        if (bearerToken == null) {
            return null;
        }
        try {
            return java.security.MessageDigest.getInstance("SHA-256")
                    .digest(("cassandra-gsi page token key\u0000" + bearerToken).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void counter(String name, String help, LongAdder adder) {
        FunctionCounter.builder(name, adder, LongAdder::sum).description(help).register(registry);
    }

    private void bindMetrics() {
        var q = service.consumer().metrics;
        var r = service.repairer().counters;
        counter("gsi_markers_read", "work-queue markers read", q.markersRead);
        counter("gsi_markers_done", "work-queue markers processed", q.markersDone);
        counter("gsi_markers_late", "markers found by the sweep after arriving out of order", q.lateMarkers);
        counter("gsi_cas_not_applied", "conditional writes that never applied", q.casNotApplied);
        counter("gsi_markers_given_up", "markers whose version never became readable", q.gaveUp);
        counter("gsi_markers_unknown_table", "markers dropped because no index table of their table was known for 10 minutes", q.unknownTables);
        counter("gsi_queue_errors", "errors while processing markers (retried)", q.errors);
        counter("gsi_diffs", "sibling diffs applied", r.diffs);
        counter("gsi_entries_marked_deleted", "index entries marked _deleted", r.markedDeleted);
        counter("gsi_entries_upserted", "index entries (re)written by the repair service", r.upserts);
        counter("gsi_rows_partial", "rows the trigger could not fully index (partial updates), completed by the service", r.partialRows);
        counter("gsi_cas_writes", "conditional writes indexed by the service", r.casWrites);
        counter("gsi_deletes", "deletes and TTL writes re-diffed by the service", r.deletes);
        counter("gsi_reads", "index reads", reader.reads);
        counter("gsi_read_base_checks", "base-table checks made by reads", reader.baseChecks);
        counter("gsi_read_false_positives", "index entries a base check denied", reader.falsePositives);
        counter("gsi_read_repairs", "read repairs queued", reader.readRepairs);
        counter("gsi_read_index_rows", "index and bucket rows the reads fetched", reader.indexRows);
        counter("gsi_reads_bucketed", "index reads that paged through a sealed bucket instead of the index table", reader.bucketReads);
        counter("gsi_reads_bucket_merged", "window reads that merged several sealed buckets instead of reading the index table", reader.mergedReads);
        counter("gsi_reads_resealed", "first pages read again because a bucket they read was being sealed again meanwhile", reader.resealedReads);
        counter("gsi_reads_fresh", "fresh reads (fresh=true) asked for", reader.freshReads);
        counter("gsi_reads_fresh_timeouts", "fresh reads answered 503 because the safe time did not pass them within their bound", reader.freshTimeouts);
        Gauge.builder("gsi_lag_seconds", service.consumer(), c -> c.lagMillis() / 1000.0)
                .description("age of the oldest marker read and not finished").register(registry);
        for (io.cassandragsi.schema.Maintenance mode : io.cassandragsi.schema.Maintenance.values()) {
            Gauge.builder("gsi_safe_time_lag_seconds", service.consumer(), c -> {
                Long lag = c.safeTime().lagMillis(mode);
                return lag == null ? Double.NaN : lag / 1000.0;
            }).tag("maintenance", mode.jsonName())
                    .description("how far the safe time is behind now (docs/design.md section 7.10); NaN while not known").register(registry);
        }
        // An info metric of the Prometheus client itself: Micrometer would drop the _info of a gauge's name.
        io.prometheus.metrics.core.metrics.Info.builder().name("gsi_build_info").help("the version of this repair service (docs/deployment.md,"
                + " Versions)").labelNames("version").register(registry.getPrometheusRegistry())
                .addLabelValues(io.cassandragsi.schema.BuildVersion.get());
        Gauge.builder("gsi_pending_retries", service.consumer(), c -> c.pending())
                .description("marker groups waiting for a retry").register(registry);
    }

    /** GET /admin/status: the repair service's status, and the jobs this process runs or ran (docs/design.md section 7.7). */
    private java.util.Map<String, Object> status() {
        java.util.Map<String, Object> s = new java.util.LinkedHashMap<>(service.status());
        s.put("jobs", jobs.list());
        s.put("buckets", sealer.status());
        s.put("anti_entropy", antiEntropy == null ? java.util.Map.of("state", "off (anti_entropy.enabled: false)") : antiEntropy.status());
        return s;
    }

    private final java.util.Set<String> indexCounters = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** Prometheus text; per-index counters are registered as indexes first see work. */
    private String scrape() {
        service.repairer().counters.perIndex.forEach((name, counters) -> {
            if (indexCounters.add(name)) {
                FunctionCounter.builder("gsi_index_entries_marked_deleted", counters[0], LongAdder::sum).tag("index", name)
                        .description("index entries marked _deleted, per index").register(registry);
                FunctionCounter.builder("gsi_index_entries_upserted", counters[1], LongAdder::sum).tag("index", name)
                        .description("index entries (re)written by the repair service, per index").register(registry);
            }
        });
        return registry.scrape();
    }

    public RepairService service() {
        return service;
    }

    public IndexReader reader() {
        return reader;
    }

    public int httpPort() {
        return http.port();
    }

    /** Stops the HTTP API first (within seconds, whatever requests are in flight), then jobs, the consumer and the reader. */
    @Override
    public void close() {
        http.close();
        if (antiEntropy != null) {
            antiEntropy.close();
        }
        sealer.close();
        jobs.close();
        service.close();
        reader.close();
    }
}
