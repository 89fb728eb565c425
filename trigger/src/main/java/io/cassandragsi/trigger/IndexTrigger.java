package io.cassandragsi.trigger;

import io.cassandragsi.maintain.Marker;
import io.cassandragsi.schema.QueueLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.cassandra.db.ConsistencyLevel;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.db.partitions.Partition;
import org.apache.cassandra.db.partitions.PartitionUpdate;
import org.apache.cassandra.schema.KeyspaceMetadata;
import org.apache.cassandra.schema.Schema;
import org.apache.cassandra.schema.TableId;
import org.apache.cassandra.schema.TableMetadata;
import org.apache.cassandra.service.StorageProxy;
import org.apache.cassandra.transport.Dispatcher;
import org.apache.cassandra.utils.FBUtilities;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of cassandra-gsi (docs/design.md section 5). For every update of an indexed table
 * it returns, without reading anything, the index entries, the rows-table record and the markers
 * ({@link VersionedUpdates}, {@link UnversionedUpdates}), so that Cassandra applies them in one
 * logged batch with the base write; a plain write of a table in node mode also goes to this node's
 * maintainer ({@link Maintainer}).
 *
 * <p>Conditional writes (the CAS path) may only add mutations to the same partition, so there the
 * trigger adds nothing: it writes the markers, flagged CAS, synchronously before the proposal, and
 * the repair service indexes the write once a SERIAL read shows that it applied.
 *
 * <p>One instance serves all threads; its state is a per-table cache of {@link CompiledTable},
 * rebuilt when the schema changes. A problem in a definition skips that index with an error in the
 * node's log and a counter; an unexpected exception never fails the write: it is logged and
 * counted, and a marker of the whole partition makes the repair service index it.
 */
public final class IndexTrigger implements org.apache.cassandra.triggers.ITrigger {
    static final Logger LOG = LoggerFactory.getLogger(IndexTrigger.class);

    /** A compiled table and its write path, chosen once ({@link Updates}). */
    private record Cached(CompiledTable table, Updates updates) {}

    private final Map<TableId, Cached> cache = new ConcurrentHashMap<>();
    private final TriggerMetrics metrics = TriggerMetrics.register();
    /** True on the batchlog path, false on the CAS path ({@link WritePath}). */
    private final BooleanSupplier batchlogPath;
    /** Writes the CAS path's markers before Paxos proposes ({@link #writeNow}). */
    private final Consumer<List<Mutation>> casMarkerWriter;
    /** This node's maintainer for a table maintained here, or null while none runs ({@link Maintainer#feed}). */
    private final Function<CompiledTable, NodeFeed> feed;
    private final Updates versioned;
    private final Updates unversioned;

    public IndexTrigger() {
        this(null, IndexTrigger::writeNow, null);
    }

    /** Unit tests: the trigger without a node to tell the write path from the stack or to write CAS markers to. */
    IndexTrigger(BooleanSupplier batchlogPath, Consumer<List<Mutation>> casMarkerWriter) {
        this(batchlogPath, casMarkerWriter, table -> null);
    }

    /** With the in-node maintainer given (unit tests: a fake). */
    IndexTrigger(BooleanSupplier batchlogPath, Consumer<List<Mutation>> casMarkerWriter, Function<CompiledTable, NodeFeed> feed) {
        this.batchlogPath = batchlogPath != null ? batchlogPath : WritePath.detector(metrics);
        this.casMarkerWriter = casMarkerWriter;
        this.feed = feed != null ? feed : table -> Maintainer.feed(table, this::compiled, this::replay);
        this.versioned = new VersionedUpdates(metrics);
        this.unversioned = new UnversionedUpdates(metrics);
        LOG.info("gsi trigger {} loaded", io.cassandragsi.schema.BuildVersion.get());
    }

    @Override
    public Collection<Mutation> augment(Partition partition) {
        PartitionUpdate update = (PartitionUpdate) partition;
        boolean cas = false;
        try {
            cas = !batchlogPath.getAsBoolean();
            return fitted(update, augmentUpdate(update, cas));
        } catch (org.apache.cassandra.exceptions.CassandraException e) {
            throw e; // a real failure to write (the CAS marker timed out, ...): the client retries
        } catch (RuntimeException | AssertionError | LinkageError e) {
            // A bug of ours must never fail the write: it goes on, counted and logged, with a marker of the
            // whole partition when we can still make one (the repair service indexes it; else ./gsi check --fix).
            metrics.errors.increment();
            CompiledTable.logRateLimited("gsi trigger: could not index an update of {}.{}; the write goes on with a marker of its"
                    + " partition for the repair service: {}", partition.metadata().keyspace, partition.metadata().name, e.toString());
            LOG.debug("gsi trigger error", e);
            return partitionMarkerAfterError(update, cas);
        }
    }

    private Collection<Mutation> augmentUpdate(PartitionUpdate update, boolean cas) {
        Cached cached = compiled(update.metadata());
        CompiledTable table = cached.table();
        if (!table.indexes()) {
            return null;
        }
        metrics.updates.increment();
        VersionReport.maybe(table);
        NodeFeed node = !cas && table.maintainedHere() ? feed.apply(table) : null;
        NodeFeed.Eventual eventual = node != null && table.eventual()
                ? node.eventual(table.keyspaceName(), table.name(), update.partitionKey().getKey()) : null;
        if (eventual != null) {
            return eventually(cached, update, eventual);
        }
        Added added = cached.updates().add(table, update, cas, node);
        if (cas) {
            metrics.casWrites.increment();
            metrics.markers.add(added.markers().size());
            casMarkerWriter.accept(added.markers());
            return null;
        }
        long nowInSec = FBUtilities.nowInSeconds();
        List<Mutation> out = new ArrayList<>(added.mutations().size() + added.markers().size() + added.taken().size());
        out.addAll(added.mutations());
        out.addAll(added.markers());
        for (Marker m : added.taken()) {
            out.add(QueueMutations.of(table, node.shard(), m, nowInSec)); // the record of a plain write: its epoch's shard
        }
        metrics.markers.add(added.markers().size() + added.taken().size());
        return out.isEmpty() ? null : out;
    }

    /**
     * Eventual indexing (docs/design.md section 7.11): everything the trigger would add goes to the
     * maintainer, which sends it after the write, and the write takes Cassandra's plain path (no
     * batchlog). When the maintainer refuses it now, the write is indexed atomically instead, its
     * plain rows' markers in the service's shards: nothing is lost either way.
     */
    private Collection<Mutation> eventually(Cached cached, PartitionUpdate update, NodeFeed.Eventual eventual) {
        CompiledTable table = cached.table();
        Added added;
        try {
            added = cached.updates().add(table, update, false, eventual);
        } catch (RuntimeException | AssertionError | LinkageError e) {
            eventual.abandon();
            throw e;
        }
        List<Mutation> all = new ArrayList<>(added.mutations().size() + added.markers().size());
        all.addAll(added.mutations());
        all.addAll(added.markers());
        metrics.markers.add(added.markers().size());
        if (eventual.commit(all)) {
            metrics.eventualWrites.increment();
            return null;
        }
        metrics.maintainerRefused.increment();
        long nowInSec = FBUtilities.nowInSeconds();
        for (Marker m : added.taken()) {
            all.add(QueueMutations.of(table, QueueMutations.serviceShard(table, m.pk()), m, nowInSec));
        }
        metrics.markers.add(added.taken().size());
        return all.isEmpty() ? null : all;
    }

    /**
     * The CDC backstop (docs/design.md section 7.11): an update of a table in eventual indexing read
     * back from this node's commit log is indexed again as the trigger indexes a write, through this
     * node's maintainer, waiting a little while its queue is full; or, when no maintainer takes it,
     * by sending what atomic indexing would have added. Runs on the backstop's own thread.
     */
    void replay(PartitionUpdate update) {
        Cached cached = compiled(update.metadata());
        CompiledTable table = cached.table();
        if (!table.indexes() || !table.eventual()) {
            return;
        }
        NodeFeed node = feed.apply(table);
        NodeFeed.Eventual eventual = null;
        for (int i = 0; node != null && eventual == null && i < 100; i++) {
            eventual = node.eventual(table.keyspaceName(), table.name(), update.partitionKey().getKey());
            if (eventual == null) {
                try {
                    Thread.sleep(20); // the maintainer's queue is full: let it drain
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        Collection<Mutation> atomic;
        if (eventual != null) {
            atomic = eventually(cached, update, eventual);
        } else {
            Added added = cached.updates().add(table, update, false, null);
            atomic = new ArrayList<>(added.mutations());
            atomic.addAll(added.markers());
        }
        if (atomic == null || atomic.isEmpty()) {
            return;
        }
        for (int attempt = 1;; attempt++) {
            try {
                NodeWrites.send(new ArrayList<>(atomic), Maintainer.Settings.fromSystemProperties().write());
                return;
            } catch (RuntimeException e) {
                if (attempt == 3) {
                    metrics.errors.increment();
                    CompiledTable.logRateLimited("gsi cdc backstop: could not index an update of {}.{} again ({}); anti-entropy or ./gsi check"
                            + " --fix will", table.keyspaceName(), table.name(), e.toString());
                    return;
                }
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** After an error of ours: a marker of the whole partition (written now on the CAS path), or nothing when even that fails. */
    private Collection<Mutation> partitionMarkerAfterError(PartitionUpdate update, boolean cas) {
        try {
            CompiledTable table = compiled(update.metadata()).table();
            if (table.indexes() && table.hasQueue()) {
                List<Mutation> marker = List.of(QueueMutations.forService(table, update.partitionKey().getKey(), List.of(), null, null,
                        QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE | (cas ? QueueLayout.FLAG_CAS : 0), FBUtilities.nowInSeconds()));
                if (!cas) {
                    return marker;
                }
                casMarkerWriter.accept(marker);
                return null;
            }
        } catch (RuntimeException | AssertionError | LinkageError e) {
            LOG.debug("gsi trigger: no marker either", e);
        }
        metrics.unmarked.increment();
        return null;
    }

    /** Room left in a node's mutation size limit for what else a client batch and the batchlog's framing add. */
    static final long MUTATION_MARGIN = 64 * 1024;

    /**
     * The trigger's mutations, or, when they would push the write's logged batch over the node's
     * mutation size limit ({@code max_mutation_size}, half the commit log segment by default: the
     * batchlog stores the base write and ours as one mutation), a marker of the whole partition
     * alone: the write goes through, and the repair service writes the entries on their own. A base
     * write that takes the margin by itself gets nothing added (any addition makes the write a
     * logged batch, which could then fail where the plain write would not): it is not indexed, and
     * {@code check --fix} finds it.
     */
    private Collection<Mutation> fitted(PartitionUpdate update, Collection<Mutation> out) {
        if (out == null || out.isEmpty()) {
            return out;
        }
        long max = org.apache.cassandra.db.IMutation.MAX_MUTATION_SIZE;
        int version = org.apache.cassandra.net.MessagingService.current_version;
        long base = PartitionUpdate.serializer.serializedSize(update, version);
        long total = base;
        for (Mutation m : out) {
            total += m.serializedSize(version);
        }
        if (total + MUTATION_MARGIN <= max) {
            return out;
        }
        TableMetadata metadata = update.metadata();
        CompiledTable table = compiled(metadata).table();
        metrics.oversizedWrites.increment();
        String partition = CompiledTable.describe(metadata.partitionKeyType.getString(update.partitionKey().getKey()));
        if (base + MUTATION_MARGIN > max || !table.hasQueue()) {
            metrics.markersDropped.increment();
            CompiledTable.logRateLimited("gsi trigger: a write to {}.{} partition {} takes {} bytes, within {} of the node's"
                    + " max_mutation_size of {}; the write goes on unindexed (./gsi check --fix indexes it)", metadata.keyspace,
                    metadata.name, partition, base, MUTATION_MARGIN, max);
            return null;
        }
        CompiledTable.logRateLimited("gsi trigger: a write to {}.{} partition {} with its index entries would take {} bytes, over the"
                + " node's max_mutation_size of {} less {} of margin; the write goes on and the repair service writes its entries",
                metadata.keyspace, metadata.name, partition, total, max, MUTATION_MARGIN);
        return List.of(QueueMutations.forService(table, update.partitionKey().getKey(), List.of(), null, null,
                QueueLayout.FLAG_PARTIAL | QueueLayout.FLAG_DELETE | QueueLayout.FLAG_TOO_LARGE, FBUtilities.nowInSeconds()));
    }

    /** On the CAS path: queue the write before Paxos proposes it (nothing may be added to the batch). */
    private static void writeNow(List<Mutation> markers) {
        if (markers.isEmpty()) {
            return;
        }
        StorageProxy.mutate(markers, ConsistencyLevel.ONE, Dispatcher.RequestTime.forImmediateExecution());
    }

    /** The compiled table {@code keyspace.table} (names: keyspace, table), or null when there is no such table. */
    private CompiledTable compiled(String[] names) {
        TableMetadata t = Schema.instance.getTableMetadata(names[0], names[1]);
        return t == null ? null : compiled(t).table();
    }

    private Cached compiled(TableMetadata base) {
        KeyspaceMetadata current = Schema.instance.getKeyspaceMetadata(base.keyspace);
        Cached cached = cache.get(base.id);
        if (cached == null || !cached.table().isCurrent(current)) {
            CompiledTable table = CompiledTable.compile(base, metrics);
            cached = new Cached(table, table.plan != null && table.plan.versioned() ? versioned : unversioned);
            cache.put(base.id, cached);
            if (table.indexes()) {
                LOG.info("gsi trigger: maintaining {} index(es) of {}.{}{}: {}", table.plan.indexes().size(), base.keyspace, base.name,
                        table.eventual() ? " (eventual: entries and diffs after the write, on the coordinator)"
                                : table.maintainedHere() ? " (plain diffs on the coordinator)" : "", table.plan.indexes().stream().map(p -> p.tableName()).toList());
            }
        }
        return cached;
    }
}
