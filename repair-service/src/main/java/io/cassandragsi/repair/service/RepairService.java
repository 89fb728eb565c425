package io.cassandragsi.repair.service;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.queue.QueueConsumer;
import io.cassandragsi.repair.queue.Repairer;
import io.cassandragsi.repair.queue.SafeTime;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.IndexWriter;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.repair.store.CheckpointsTable;
import io.cassandragsi.repair.store.InstancesTable;
import io.cassandragsi.repair.store.LeasesTable;
import io.cassandragsi.repair.store.Levels;
import io.cassandragsi.repair.store.NodeProgressTable;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The sidecar: the queue consumer with its sibling diff over one driver session. Other parts
 * (HTTP API, jobs) are built on the {@link Catalog} and {@link Repairer} it exposes.
 */
public final class RepairService implements AutoCloseable {
    private final CqlSession session;
    private final Catalog catalog;
    private final Repairer repairer;
    private final QueueStore queue;
    private final QueueConsumer consumer;
    private final ConsistencyLevel readLevel;
    /** Whether the queue is read at a level that sees every acknowledged write's marker (the safe time's premise). */
    private final boolean safeReads;
    /** The nodes' trigger jar versions against ours (docs/deployment.md, Versions). */
    private final TriggerVersions triggerVersions;
    /** The targeted repair of CDC segments nodes lost (docs/design.md section 7.11). */
    private final io.cassandragsi.repair.jobs.CdcRepair cdcRepair;
    private final Thread cdcRepairThread;

    public RepairService(CqlSession session, GsiConfig config) {
        this(session, config, new Catalog(session, config.projectKeyspace()), new IndexWriter(session::executeAsync, IndexWriter.MAX_IN_FLIGHT));
    }

    /** Over a catalog and an index writer shared with the other parts of the process ({@link GsiServer}). */
    public RepairService(CqlSession session, GsiConfig config, Catalog catalog, IndexWriter writer) {
        this.session = session;
        String keyspace = config.projectKeyspace();
        ConsistencyLevel read = config.consistency().read();
        ConsistencyLevel write = config.consistency().write();
        ConsistencyLevel serial = config.consistency().serial();
        this.catalog = catalog;
        ServiceGrants.require(session, config.cassandra().username(), catalog, keyspace);
        this.repairer = new Repairer(catalog, new Levels(read, serial, write));
        this.queue = new QueueStore(session, keyspace);
        String owner = ownerId();
        Duration poll = config.queue().pollInterval();
        this.readLevel = read;
        this.safeReads = java.util.Set.of("QUORUM", "LOCAL_QUORUM", "EACH_QUORUM", "ALL").contains(read.name());
        // each table's constructor checks that it exists: in this order, so that a service started before
        // schema apply names the first table schema apply creates (SchemaApplyIT)
        CheckpointsTable checkpoints = new CheckpointsTable(session, keyspace);
        LeasesTable leases = new LeasesTable(session, keyspace);
        InstancesTable instances = new InstancesTable(session, keyspace);
        NodeProgressTable progress = new NodeProgressTable(session, keyspace);
        this.consumer = new QueueConsumer(queue, checkpoints, leases, instances, progress, repairer, writer, owner, poll, read, 16,
                config.queue().clockSkew());
        this.cdcRepair = new io.cassandragsi.repair.jobs.CdcRepair(new CdcRepairHost(session, config, catalog, consumer, progress));
        this.cdcRepairThread = new Thread(cdcRepair, "gsi-cdc-repair");
        cdcRepairThread.setDaemon(true);
        this.triggerVersions = new TriggerVersions(new io.cassandragsi.repair.store.TriggerVersionsTable(session, keyspace), read);
    }

    private static String ownerId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown";
        }
        return host + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    }

    public RepairService start() {
        consumer.start();
        triggerVersions.start();
        cdcRepairThread.start();
        return this;
    }

    public CqlSession session() {
        return session;
    }

    public Catalog catalog() {
        return catalog;
    }

    public Repairer repairer() {
        return repairer;
    }

    public QueueStore queue() {
        return queue;
    }

    public QueueConsumer consumer() {
        return consumer;
    }

    /** Status for operators (GET /admin/status). */
    public Map<String, Object> status() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("version", io.cassandragsi.schema.BuildVersion.get());
        s.put("owner", consumer.owner());
        s.put("shards", consumer.shards());
        s.put("lag_ms", consumer.lagMillis());
        s.put("pending_retries", consumer.pending());
        s.put("pending_by_table", consumer.pendingByTable());
        s.put("markers_read", consumer.metrics.markersRead.sum());
        s.put("markers_done", consumer.metrics.markersDone.sum());
        s.put("late_markers", consumer.metrics.lateMarkers.sum());
        s.put("cas_not_applied", consumer.metrics.casNotApplied.sum());
        s.put("gave_up", consumer.metrics.gaveUp.sum());
        s.put("unknown_tables", consumer.metrics.unknownTables.sum());
        s.put("errors", consumer.metrics.errors.sum());
        s.put("diffs", repairer.counters.diffs.sum());
        s.put("entries_marked_deleted", repairer.counters.markedDeleted.sum());
        s.put("keys_forgotten", repairer.counters.forgotten.sum());
        s.put("entries_upserted", repairer.counters.upserts.sum());
        s.put("rows_partial", repairer.counters.partialRows.sum());
        s.put("cas_writes", repairer.counters.casWrites.sum());
        s.put("deletes", repairer.counters.deletes.sum());
        s.put("rewrites", repairer.counters.rewrites.sum());
        s.put("too_large", repairer.counters.tooLarge.sum());
        s.put("prefetched", repairer.counters.prefetched.sum());
        Map<String, Object> perIndex = new LinkedHashMap<>();
        repairer.counters.perIndex.forEach((name, c) -> perIndex.put(name, Map.of("marked_deleted", c[0].sum(), "upserted", c[1].sum())));
        s.put("indexes", perIndex);
        s.put("safe_time", safeTimeStatus());
        s.put("unowned_shards", consumer.unownedShards());
        s.put("nodes", nodes());
        s.put("cdc_repairs", cdcRepair.status(consumer.nodeEpochs(), System.currentTimeMillis()));
        s.put("cassandra", cassandraNodes());
        s.put("trigger_versions", triggerVersions.status());
        s.put("tables", catalog.tables().keySet());
        s.put("definition_problems", catalog.problems());
        return s;
    }

    /**
     * The safe time of a table (docs/design.md section 7.10) as a read at {@code as_of=safe} uses it;
     * {@link io.cassandragsi.repair.read.ReadException} (503) when it is not known, naming why.
     */
    public java.time.Instant safeTime(io.cassandragsi.schema.TableDef table) {
        if (!safeReads) {
            throw io.cassandragsi.repair.read.ReadException.safeTimeNeverKnown("as_of=safe and fresh reads need the queue read at QUORUM, LOCAL_QUORUM,"
                    + " EACH_QUORUM or ALL (consistency.read is " + readLevel + "): a weaker read may miss an acknowledged write's marker");
        }
        SafeTime.Reading r = consumer.safeTime();
        long at = r.of(table.maintenance());
        if (at == SafeTime.UNKNOWN) {
            throw io.cassandragsi.repair.read.ReadException.safeTimeUnknown("the safe time of " + table.qualifiedName()
                    + " is not known yet: " + r.unknownBecause(table.maintenance()));
        }
        return java.time.Instant.ofEpochMilli(at);
    }

    /** What holds the safe time of a table back (status's {@code held_by}), or null when nothing is named. */
    public String safeTimeHeldBy(io.cassandragsi.schema.TableDef table) {
        SafeTime.Source held = consumer.safeTime().heldBy(table.maintenance());
        return held == null ? null : held.name() + " (" + held.state() + ")";
    }

    /**
     * The horizon of anti-entropy for a table (docs/design.md section 9.3): its safe time (ms), or
     * {@code Long.MIN_VALUE} while not known; without quorum reads of the queue, a minute ago.
     */
    public long horizonMillis(io.cassandragsi.schema.TableDef table) {
        if (!safeReads) {
            return System.currentTimeMillis() - 60_000;
        }
        long at = consumer.safeTime().of(table.maintenance());
        return at == SafeTime.UNKNOWN ? Long.MIN_VALUE : at;
    }

    /** The safe time for status: of tables in service mode and in node mode, what holds each back, and each index's lag. */
    private Map<String, Object> safeTimeStatus() {
        SafeTime.Reading r = consumer.safeTime();
        Map<String, Object> out = new LinkedHashMap<>();
        for (io.cassandragsi.schema.Maintenance mode : io.cassandragsi.schema.Maintenance.values()) {
            out.put(mode.jsonName(), safeTimeOf(r, mode));
        }
        Map<String, Object> perIndex = new java.util.TreeMap<>();
        catalog.tables().forEach((name, t) -> {
            Long lag = r.lagMillis(t.definition.maintenance());
            t.plan.indexes().forEach(p -> perIndex.put(name + "/" + p.index().name(), lag));
        });
        out.put("lag_ms_by_index", perIndex);
        if (!safeReads) {
            out.put("unavailable", "consistency.read is " + readLevel + ": as_of=safe needs a quorum read of the queue");
        }
        return out;
    }

    private static Map<String, Object> safeTimeOf(SafeTime.Reading r, io.cassandragsi.schema.Maintenance mode) {
        Map<String, Object> m = new LinkedHashMap<>();
        long at = r.of(mode);
        m.put("at", at == SafeTime.UNKNOWN ? null : java.time.Instant.ofEpochMilli(at).toString());
        m.put("lag_ms", r.lagMillis(mode));
        SafeTime.Source held = r.heldBy(mode);
        m.put("held_by", held == null ? null : held.name() + " (" + held.state() + ")");
        return m;
    }

    /**
     * The in-node maintainers (docs/design.md section 7): each epoch this service reads, running or
     * not swept yet, with its lag behind now, what it did, and whether this service sweeps it.
     */
    private java.util.List<Map<String, Object>> nodes() {
        long now = System.currentTimeMillis();
        java.util.Set<Integer> sweeping = consumer.sweepingEpochs();
        java.util.List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (NodeProgressTable.Epoch e : consumer.nodeEpochs()) {
            boolean swept = io.cassandragsi.repair.queue.NodeSweeps.swept(e);
            String cdc = cdcRepairState(e, now);
            if (swept && now - e.heartbeat().toEpochMilli() > 3_600_000L && !"pending".equals(cdc) && !"running".equals(cdc)) {
                continue; // an old epoch, long done
            }
            Map<String, Object> n = new LinkedHashMap<>();
            n.put("node", e.node());
            n.put("epoch_shard", e.shard());
            n.put("state", e.state());
            n.put("started", e.started() == null ? null : e.started().toString());
            n.put("heartbeat_age_ms", now - e.heartbeat().toEpochMilli());
            n.put("lag_ms", Math.max(0, now - io.cassandragsi.index.Tids.instant(e.doneBefore()).toEpochMilli()));
            n.put("queued", e.queued());
            n.put("done", e.done());
            n.put("handed_off", e.handedOff());
            n.put("retried", e.retried());
            // CDC segments the node lost before indexing them: writes in eventual indexing left to check --fix (docs/design.md section 7.11)
            n.put("cdc_segments_lost", e.cdcLost());
            n.put("cdc_repair", cdc);
            n.put("sweep", swept ? "done" : sweeping.contains(e.shard()) ? "running here"
                    : io.cassandragsi.repair.queue.NodeSweeps.stopped(e, now) ? "due" : "none (running)");
            out.add(n);
        }
        return out;
    }

    /** The targeted repair of an epoch's lost CDC segments: none, harmless, waiting (on a running epoch), pending, running, repaired. */
    private String cdcRepairState(NodeProgressTable.Epoch e, long now) {
        if (cdcRepair.repairing().contains(e.shard())) {
            return "running";
        }
        return io.cassandragsi.repair.queue.CdcRepairs.standing(e, consumer.nodeEpochs(), now).name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The Cassandra nodes the driver knows, with the state it sees (UP, DOWN, UNKNOWN, FORCED_DOWN): no query is sent. */
    private java.util.List<Map<String, Object>> cassandraNodes() {
        java.util.List<Map<String, Object>> out = new java.util.ArrayList<>();
        for (com.datastax.oss.driver.api.core.metadata.Node n : session.getMetadata().getNodes().values()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", n.getEndPoint().resolve() instanceof java.net.InetSocketAddress a ? a.getHostString() + ":" + a.getPort()
                    : n.getEndPoint().toString());
            m.put("datacenter", n.getDatacenter());
            m.put("state", n.getState().name());
            out.add(m);
        }
        out.sort(java.util.Comparator.comparing(m -> String.valueOf(m.get("address"))));
        return out;
    }

    @Override
    public void close() {
        cdcRepair.stop();
        cdcRepairThread.interrupt();
        triggerVersions.close();
        consumer.close();
    }
}
