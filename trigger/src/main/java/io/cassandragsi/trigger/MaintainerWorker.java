package io.cassandragsi.trigger;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.NextTurn;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.maintain.TableKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.exceptions.OverloadedException;
import org.apache.cassandra.utils.FBUtilities;

/**
 * One thread of the in-node maintainer (docs/design.md section 7): takes the writes that have
 * settled (their batch is most likely applied), a batch at a time, repairs them with the repair
 * core on {@link NodeStores} (reads of many rows at once where the layout allows), sends all their
 * writes in one call, and finishes each: done, again a little later (not visible yet, a second
 * pass), or handed to the repair service (not plain, not visible in time, failing).
 */
final class MaintainerWorker implements Runnable {
    static final int BATCH = 64;

    private final Maintainer m;
    private final Map<CompiledTable, TableKind> kinds = Collections.synchronizedMap(new WeakHashMap<>());

    MaintainerWorker(Maintainer m) {
        this.m = m;
    }

    @Override
    public void run() {
        while (m.state == Maintainer.State.RUNNING) {
            try {
                List<MaintainerItem> batch = next();
                if (!batch.isEmpty()) {
                    process(batch);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | LinkageError e) {
                m.metrics.errors.increment();
                CompiledTable.logRateLimited("gsi maintainer: {}", e.toString());
                IndexTrigger.LOG.debug("gsi maintainer error", e);
            }
        }
    }

    /** The next batch: due retries, and writes taken at least the settle time ago. */
    private List<MaintainerItem> next() throws InterruptedException {
        MaintainerItem first = m.later.poll();
        if (first == null) {
            first = m.queue.poll(100, TimeUnit.MILLISECONDS);
            if (first == null) {
                return List.of();
            }
            long wait = m.settings.settleMillis() - first.ageMillis(System.nanoTime());
            if (wait > 0) {
                Thread.sleep(wait);
            }
        }
        List<MaintainerItem> batch = new ArrayList<>(BATCH);
        batch.add(first);
        long now = System.nanoTime();
        while (batch.size() < BATCH) {
            MaintainerItem head = m.queue.peek();
            if (head == null || head.ageMillis(now) < m.settings.settleMillis()) {
                break;
            }
            MaintainerItem taken = m.queue.poll();
            if (taken == null) {
                break;
            }
            batch.add(taken);
        }
        m.later.drainTo(batch, BATCH - batch.size());
        return batch;
    }

    /** The groups of one table in one batch, each with its items and, once repaired, its outcome and writes. */
    private static final class Turn {
        final CompiledTable table;
        final Map<MarkerGroup, List<MaintainerItem>> groups = new LinkedHashMap<>();
        final Map<MarkerGroup, Outcome> outcomes = new IdentityHashMap<>();
        final Map<MarkerGroup, List<Mutation>> writes = new IdentityHashMap<>();

        Turn(CompiledTable table) {
            this.table = table;
        }
    }

    private void process(List<MaintainerItem> batch) {
        long nowInSec = FBUtilities.nowInSeconds();
        List<MaintainerItem> handOff = new ArrayList<>();
        List<MaintainerItem> writes = new ArrayList<>();
        Map<String, List<MaintainerItem>> byTable = new LinkedHashMap<>();
        for (MaintainerItem item : batch) {
            if (item.handOff) {
                handOff.add(item);
            } else if (item.mutations != null) {
                writes.add(item);
            } else {
                byTable.computeIfAbsent(item.marker.keyspace() + "." + item.marker.table(), k -> new ArrayList<>()).add(item);
            }
        }
        if (!writes.isEmpty()) {
            send(writes, handOff);
        }
        List<Turn> turns = new ArrayList<>();
        for (List<MaintainerItem> items : byTable.values()) {
            Marker first = items.get(0).marker;
            CompiledTable table = m.tables.apply(new String[] {first.keyspace(), first.table()});
            if (table == null || !table.indexes()) {
                items.forEach(this::dropped); // no longer indexed: nothing to maintain
                continue;
            }
            turns.add(repair(table, items, nowInSec));
        }
        List<Mutation> all = new ArrayList<>();
        turns.forEach(t -> t.writes.values().forEach(all::addAll));
        boolean written = true;
        try {
            NodeWrites.send(all, m.settings.write());
        } catch (RuntimeException e) {
            written = false;
            m.metrics.errors.increment();
            CompiledTable.logRateLimited("gsi maintainer: writes failed, tried again: {}", e.toString());
            backOff(e);
        }
        long now = System.nanoTime();
        for (Turn t : turns) {
            for (Map.Entry<MarkerGroup, List<MaintainerItem>> e : t.groups.entrySet()) {
                Outcome outcome = t.outcomes.get(e.getKey());
                boolean failed = outcome == null || (!written && !t.writes.getOrDefault(e.getKey(), List.of()).isEmpty());
                for (MaintainerItem item : e.getValue()) {
                    finish(item, failed ? null : outcome, e.getKey(), now, handOff);
                }
            }
        }
        if (!handOff.isEmpty()) {
            handOff(handOff, nowInSec);
        }
    }

    /** Repairs the items of one table: coalesced by row (a second pass apart), read together, decided by the repair core. */
    private Turn repair(CompiledTable table, List<MaintainerItem> items, long nowInSec) {
        Turn turn = new Turn(table);
        TableKind kind = kinds.computeIfAbsent(table, t -> TableKind.of(t.plan, new NodeStores(t, new NodeStores.Levels(m.settings.read(),
                m.settings.serial(), m.settings.write())), m.counters));
        for (boolean again : new boolean[] {false, true}) {
            Map<UUID, MaintainerItem> byId = new LinkedHashMap<>();
            for (MaintainerItem item : items) {
                if (item.unseenGone == again) {
                    byId.put(item.marker.id(), item);
                }
            }
            for (MarkerGroup g : MarkerGroup.coalesce(byId.values().stream().map(i -> i.marker).toList())) {
                List<MaintainerItem> of = g.markerIds().stream().map(byId::get).toList();
                turn.groups.put(again ? g.withUnseenGone() : g, of);
            }
        }
        List<MarkerGroup> groups = new ArrayList<>(turn.groups.keySet());
        Map<MarkerGroup, TableKind.Prefetched> pre;
        try {
            pre = kind.prefetch(groups);
        } catch (RuntimeException e) {
            pre = Map.of();
        }
        for (MarkerGroup g : groups) {
            List<Mutation> writes = new ArrayList<>();
            try {
                turn.outcomes.put(g, kind.repair(g, pre.get(g), (index, rows) -> {
                    for (TablePlan.IndexWrite w : index) {
                        writes.add(EntryMutations.of(table, w, nowInSec));
                    }
                    for (RowsWrite w : rows) {
                        writes.add(RowsMutations.of(table, w, nowInSec));
                    }
                }));
                turn.writes.put(g, writes);
            } catch (RuntimeException e) {
                m.metrics.errors.increment();
                CompiledTable.logRateLimited("gsi maintainer: repair of {}.{} failed, tried again: {}", table.keyspaceName(), table.name(), e.toString());
                backOff(e);
            }
        }
        return turn;
    }

    private void finish(MaintainerItem item, Outcome outcome, MarkerGroup g, long now, List<MaintainerItem> handOff) {
        NextTurn next = NextTurn.after(outcome, g.unseenGone(), item.ageMillis(now), item.attempts, m.settings.handOffAfterMillis());
        switch (next.kind()) {
            case DONE -> done(item);
            case HAND_OFF -> handOff.add(item);
            case AGAIN -> {
                item.unseenGone = next.unseenGone();
                m.later.add(item.again(now, next.delayMillis()));
                if (outcome != Outcome.AGAIN) {
                    m.metrics.retried.increment();
                }
            }
        }
    }

    private void done(MaintainerItem item) {
        m.unfinished.remove(item.marker.id());
        m.metrics.done.increment();
    }

    private void dropped(MaintainerItem item) {
        m.release(item);
        m.metrics.dropped.increment();
    }

    /** Queues the items for the repair service; those whose marker fails are tried again a second later. */
    private void handOff(List<MaintainerItem> items, long nowInSec) {
        long now = System.nanoTime();
        for (MaintainerItem item : m.handOff(items, nowInSec)) {
            item.handOff = true;
            m.later.add(item.again(now, 1000));
        }
    }

    /**
     * Eventual indexing (docs/design.md section 7.11): sends the mutations of the writes together;
     * each sent write's rows are then maintained like any. When they fail, the writes are tried
     * again, and handed off (a recompute of their partitions) once failing for twice the hand-off age.
     */
    private void send(List<MaintainerItem> writes, List<MaintainerItem> handOff) {
        List<Mutation> all = new ArrayList<>();
        writes.forEach(w -> all.addAll(w.mutations));
        try {
            NodeWrites.send(all, m.settings.write());
        } catch (RuntimeException e) {
            m.metrics.errors.increment();
            CompiledTable.logRateLimited("gsi maintainer: the entries of writes in eventual indexing failed, tried again: {}", e.toString());
            backOff(e);
            long now = System.nanoTime();
            for (MaintainerItem w : writes) {
                NextTurn next = NextTurn.after(null, false, w.ageMillis(now), w.attempts, m.settings.handOffAfterMillis());
                if (next.kind() == NextTurn.Kind.HAND_OFF) {
                    handOff.add(w);
                } else {
                    m.later.add(w.again(now, next.delayMillis()));
                }
            }
            return;
        }
        for (MaintainerItem w : writes) {
            m.later.addAll(w.after); // listed unfinished since the write was taken: the progress record has not passed them
            w.mutations = null;
            m.unfinished.remove(w.marker.id());
            m.metrics.done.increment();
        }
    }

    /** An overloaded node: this thread pauses before its next turn. */
    static void backOff(RuntimeException e) {
        if (e instanceof OverloadedException) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
