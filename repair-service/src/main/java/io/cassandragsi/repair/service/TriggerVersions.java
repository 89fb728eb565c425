package io.cassandragsi.repair.service;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import io.cassandragsi.repair.store.TriggerVersionsTable;
import io.cassandragsi.schema.BuildVersion;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The trigger jar versions the nodes report, compared with this service's own (docs/deployment.md,
 * Versions): read every 30 s (the system property {@code gsi.trigger_versions.every_ms}; the tests shorten it), a WARN in the log the first time a node reports
 * another version, and the same in {@code /admin/status} for as long as it does. During a rolling
 * upgrade (trigger jars first, then the services) the warning is expected and says which nodes are
 * left.
 */
final class TriggerVersions implements AutoCloseable {
    static final Logger LOG = LoggerFactory.getLogger(TriggerVersions.class);
    static final long EVERY_MILLIS = Long.getLong("gsi.trigger_versions.every_ms", 30_000L);

    private final Supplier<List<TriggerVersionsTable.Report>> source;
    private final String ours;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gsi-trigger-versions");
        t.setDaemon(true);
        return t;
    });
    /** The last reading (empty until the first). */
    private volatile List<TriggerVersionsTable.Report> last = List.of();
    private volatile String error;
    /** node + version pairs already warned about in the log. */
    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    TriggerVersions(TriggerVersionsTable table, ConsistencyLevel cl) {
        this(() -> table.all(cl), BuildVersion.get());
    }

    /** Over any source of reports and a version of our own (unit tests). */
    TriggerVersions(Supplier<List<TriggerVersionsTable.Report>> source, String ours) {
        this.source = source;
        this.ours = ours;
    }

    TriggerVersions start() {
        timer.scheduleWithFixedDelay(this::refresh, 0, EVERY_MILLIS, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Reads the reports once and logs a node newly found with another version. */
    void refresh() {
        try {
            last = source.get();
            error = null;
            for (TriggerVersionsTable.Report r : last) {
                if (!ours.equals(r.version()) && warned.add(r.node() + " " + r.version())) {
                    LOG.warn("{}", mismatch(r));
                }
            }
        } catch (RuntimeException e) {
            error = e.toString();
            LOG.debug("reading the trigger versions failed", e);
        }
    }

    private String mismatch(TriggerVersionsTable.Report r) {
        return "node " + r.node() + " runs trigger jar " + r.version() + ", this service is " + ours
                + ": install the same version on every node and service (docs/deployment.md, Upgrading)";
    }

    /** For {@code /admin/status}: each node's version and when it reported, and the mismatches as warnings. */
    Map<String, Object> status() {
        Map<String, Object> out = new LinkedHashMap<>();
        List<Map<String, Object>> nodes = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (TriggerVersionsTable.Report r : last) {
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("node", r.node());
            n.put("version", r.version());
            n.put("loaded", text(r.loaded()));
            n.put("reported", text(r.reported()));
            n.put("same_as_service", ours.equals(r.version()));
            nodes.add(n);
            if (!ours.equals(r.version())) {
                warnings.add(mismatch(r));
            }
        }
        nodes.sort(java.util.Comparator.comparing(n -> String.valueOf(n.get("node"))));
        out.put("nodes", nodes);
        out.put("warnings", warnings);
        if (error != null) {
            out.put("error", error);
        }
        return out;
    }

    private static String text(Instant at) {
        return at == null ? null : at.toString();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
