package io.cassandragsi.index.oracle;

import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.MemoryStores;
import io.cassandragsi.maintain.MemoryTrigger;
import io.cassandragsi.maintain.NextStep;
import io.cassandragsi.maintain.NextTurn;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.RepairCounters;
import io.cassandragsi.maintain.TableKind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The maintainers of a simulated history, around the one repair core ({@link TableKind#repair} on
 * the twins, {@link MemoryStores}): the repair service ({@code ShardWorker}'s rules, docs/design.md
 * section 7.5) and, in {@link Mode#NODE}, the in-node maintainer ({@code MaintainerWorker}'s), as
 * thin as they are there. Every decision is the core's; what is written here is only when a group
 * is repaired again, and where it goes.
 *
 * <ul>
 *   <li>The service polls every 100 ms: it reads the markers that landed in its queue (50 to 400 ms
 *       after they are due, sometimes once more later: a sweep, a second instance), coalesces them
 *       by row ({@link MarkerGroup#coalesce}), prefetches the plain groups together ({@link
 *       TableKind#prefetch}) and repairs each; then the groups due again, each read alone. What
 *       comes after an outcome is the service's own rule, {@link NextStep}.
 *   <li>The node maintainer takes the plain markers the trigger offers it (10 ms to settle), in
 *       turns, coalesced and prefetched like the service's; what comes after an outcome is its own
 *       rule, {@link NextTurn} (a hand-off: a new marker of the same row and flags in the service's
 *       queue).
 * </ul>
 *
 * <p>Both rules run on the simulation's clock with their own constants: no copy of them here.
 *
 * <p>The repairs of one step (a service poll, the groups due again, a node turn) are computed one
 * after the other, each reading what the others' writes have not changed yet (they run side by side
 * there), and their writes are sent together at the end of the step ({@link Simulation.Step}); the
 * rows-table writes a repair sends at once land at once.
 */
final class Maintainers {
    /**
     * Where the trigger sends the markers it would give the in-node maintainer; in {@code EVENTUAL}
     * (docs/design.md section 7.11) the node also writes the entries and the rows-table record after
     * the write, and the repair service's markers with them.
     */
    enum Mode {
        SERVICE, NODE, EVENTUAL
    }

    private static final long POLL = 100;
    /** The node maintainer's settle: it takes a marker this long after the trigger offered it. */
    static final int NODE_SETTLE = 10;

    private record Readable(Marker marker, long at) {}

    private record Pending(MarkerGroup group, long due, int attempts) {}

    /** A marker the node maintainer took: when, whether its next pass takes what is unseen for gone, and when it is due. */
    private static final class Item {
        final Marker marker;
        final long offeredAt;
        boolean unseenGone;
        int attempts;
        long due;

        Item(Marker marker, long offeredAt, long due) {
            this.marker = marker;
            this.offeredAt = offeredAt;
            this.due = due;
        }
    }

    private final Simulation sim;
    private final MemoryStores stores;
    private final MemoryTrigger trigger;
    private final Mode mode;
    final RepairCounters counters = new RepairCounters();
    private final TableKind service;
    private final TableKind node;
    final Map<Outcome, Integer> serviceOutcomes = new EnumMap<>(Outcome.class);
    final Map<Outcome, Integer> nodeOutcomes = new EnumMap<>(Outcome.class);
    int handedOff;
    int gaveUp;
    int casNotApplied;
    private final List<Readable> readable = new ArrayList<>();
    private final List<Pending> pending = new ArrayList<>();
    private final List<Item> items = new ArrayList<>();

    Maintainers(Simulation sim, MemoryStores stores, MemoryTrigger trigger, Mode mode) {
        this.sim = sim;
        this.stores = stores;
        this.trigger = trigger;
        this.mode = mode;
        this.service = TableKind.of(stores.plan, stores.service(), counters);
        this.node = TableKind.of(stores.plan, stores.node(), counters);
    }

    Mode mode() {
        return mode;
    }

    /** The trigger's marker: to the node maintainer when it is a plain one and there is one, else to the service's queue. */
    void marker(Marker m) {
        if (m == null) {
            return;
        }
        if (mode != Mode.SERVICE && m.flags() == 0) {
            Item item = new Item(m, sim.now, sim.now + NODE_SETTLE);
            items.add(item);
            sim.at(item.due, this::nodeTurn);
        } else {
            queue(m, sim.now);
        }
    }

    /**
     * Eventual indexing: the write alone lands (the caller's), and the node sends what the trigger
     * derived after its settle and a turn (now and then seconds later: a backlog), its mutations
     * landing in any order; once they are acknowledged, a plain row is the node's to maintain, any
     * other marker the service's.
     */
    void eventual(MemoryTrigger.Batch b) {
        long offered = sim.now;
        long send = offered + NODE_SETTLE + sim.rnd.nextInt(40) + (sim.rnd.nextInt(20) == 0 ? sim.rnd.nextInt(3_000) : 0);
        sim.at(send, () -> {
            Simulation.Step step = sim.new Step(stores);
            step.send(b.record());
            b.entries().forEach(step::send);
            long acked = step.land(sim.landWithin);
            Marker m = b.marker();
            if (m == null) {
                return;
            }
            sim.at(acked, () -> {
                if (m.flags() == 0) {
                    Item item = new Item(m, offered, sim.now);
                    items.add(item);
                    nodeTurn();
                } else {
                    queue(m, sim.now);
                }
            });
        });
    }

    /** A marker written to the service's queue now, due at {@code due}: it lands with its batch, the service reads it later, sometimes twice. */
    void queue(Marker m, long due) {
        sim.at(sim.now + sim.rnd.nextInt(20), () -> {
            long read = Math.max(sim.now, due) + 50 + sim.rnd.nextInt(350);
            readable(m, read);
            if (sim.rnd.nextInt(10) == 0) {
                readable(m, read + sim.rnd.nextInt(3_000));
            }
        });
    }

    private void readable(Marker m, long at) {
        readable.add(new Readable(m, at));
        sim.at(poll(at), this::servicePoll);
    }

    private static long poll(long at) {
        return Math.floorDiv(at + POLL - 1, POLL) * POLL;
    }

    private static long millis(MarkerGroup g) {
        return WriteTimestamps.toEpochMillis(WriteTimestamps.of(g.oldestMarker()));
    }

    // ----- the repair service

    /**
     * One step of the service: the markers read, coalesced, prefetched and repaired, their writes
     * sent together; once they are acknowledged, the groups due again, each read alone, in a step of
     * their own.
     */
    private void servicePoll() {
        List<Marker> read = new ArrayList<>();
        for (Iterator<Readable> it = readable.iterator(); it.hasNext();) {
            Readable r = it.next();
            if (r.at() <= sim.now) {
                read.add(r.marker());
                it.remove();
            }
        }
        long acked = sim.now;
        if (!read.isEmpty()) {
            List<MarkerGroup> groups = MarkerGroup.coalesce(read);
            Map<MarkerGroup, TableKind.Prefetched> pre = service.prefetch(groups);
            Simulation.Step step = sim.new Step(stores);
            List<Outcome> outcomes = new ArrayList<>();
            for (MarkerGroup g : groups) {
                outcomes.add(serviceRepair(g, pre.get(g), step));
            }
            acked = step.land(sim.landWithin);
            for (int i = 0; i < groups.size(); i++) {
                serviceFinish(groups.get(i), outcomes.get(i), 0);
            }
        }
        if (acked <= sim.now) {
            retryDue();
        } else {
            sim.at(acked + 1, this::retryDue);
        }
    }

    private void retryDue() {
        List<Pending> due = new ArrayList<>();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext();) {
            Pending p = it.next();
            if (p.due() <= sim.now) {
                due.add(p);
                it.remove();
            }
        }
        if (due.isEmpty()) {
            return;
        }
        Simulation.Step step = sim.new Step(stores);
        List<Outcome> outcomes = new ArrayList<>();
        for (Pending p : due) {
            outcomes.add(serviceRepair(p.group(), null, step));
        }
        step.land(sim.landWithin);
        for (int i = 0; i < due.size(); i++) {
            serviceFinish(due.get(i).group(), outcomes.get(i), due.get(i).attempts());
        }
    }

    private Outcome serviceRepair(MarkerGroup g, TableKind.Prefetched pre, Simulation.Step step) {
        int at = sim.log.size();
        Outcome o = service.repair(g, pre, step.sink());
        serviceOutcomes.merge(o, 1, Integer::sum);
        sim.logAt(at, "service " + describe(g) + (pre != null ? " prefetched" : "") + ": " + o);
        if (o == Outcome.HANDOFF || o == Outcome.DROPPED) {
            throw new AssertionError("the service's storage recomputes: " + o + " for " + describe(g));
        }
        return o;
    }

    /** The service's own rule ({@link NextStep}, docs/design.md section 7.5) on the simulation's clock. */
    private void serviceFinish(MarkerGroup g, Outcome o, int attempts) {
        NextStep next = NextStep.after(g, o, attempts, sim.now - millis(g));
        switch (next.kind()) {
            case AGAIN -> later(next.group(), sim.now + next.delayMillis(), attempts + 1);
            case GAVE_UP -> gaveUp++;
            case CAS_NOT_APPLIED -> casNotApplied++;
            case DONE, UNKNOWN_TABLE -> {}
        }
    }

    private void later(MarkerGroup g, long due, int attempts) {
        pending.add(new Pending(g, due, attempts));
        sim.at(poll(due), this::servicePoll);
    }

    // ----- the in-node maintainer

    private void nodeTurn() {
        List<Item> turn = new ArrayList<>();
        for (Iterator<Item> it = items.iterator(); it.hasNext();) {
            Item item = it.next();
            if (item.due <= sim.now) {
                turn.add(item);
                it.remove();
            }
        }
        if (turn.isEmpty()) {
            return;
        }
        Map<MarkerGroup, List<Item>> groups = new IdentityHashMap<>();
        List<MarkerGroup> order = new ArrayList<>();
        for (boolean again : new boolean[] {false, true}) {
            Map<java.util.UUID, Item> byId = new LinkedHashMap<>();
            turn.stream().filter(i -> i.unseenGone == again).forEach(i -> byId.put(i.marker.id(), i));
            for (MarkerGroup g : MarkerGroup.coalesce(byId.values().stream().map(i -> i.marker).toList())) {
                MarkerGroup group = again ? g.withUnseenGone() : g;
                groups.put(group, g.markerIds().stream().map(byId::get).toList());
                order.add(group);
            }
        }
        Map<MarkerGroup, TableKind.Prefetched> pre = node.prefetch(order);
        Simulation.Step step = sim.new Step(stores);
        List<Outcome> outcomes = new ArrayList<>();
        for (MarkerGroup g : order) {
            int at = sim.log.size();
            Outcome o = node.repair(g, pre.get(g), step.sink());
            nodeOutcomes.merge(o, 1, Integer::sum);
            sim.logAt(at, "node " + describe(g) + (pre.get(g) != null ? " prefetched" : "") + ": " + o);
            outcomes.add(o);
        }
        step.land(sim.landWithin);
        for (int i = 0; i < order.size(); i++) {
            for (Item item : groups.get(order.get(i))) {
                nodeFinish(item, outcomes.get(i), order.get(i));
            }
        }
    }

    /** The in-node maintainer's own rule ({@link NextTurn}, docs/design.md section 7.8) on the simulation's clock. */
    private void nodeFinish(Item item, Outcome o, MarkerGroup g) {
        NextTurn next = NextTurn.after(o, g.unseenGone(), sim.now - item.offeredAt, item.attempts, NextTurn.HAND_OFF_AFTER_MILLIS);
        switch (next.kind()) {
            case DONE -> {}
            case HAND_OFF -> handOff(item);
            case AGAIN -> {
                item.unseenGone = next.unseenGone();
                nodeLater(item, sim.now + next.delayMillis());
            }
        }
    }

    private void nodeLater(Item item, long due) {
        item.attempts++;
        item.due = due;
        items.add(item);
        sim.at(due, this::nodeTurn);
    }

    /**
     * A new marker of the row, with the flags of the one taken, in the service's queue (written at
     * once); in eventual indexing flagged for a recompute, since the write's entries landed after it
     * and only a recompute removes them if its version is gone.
     */
    private void handOff(Item item) {
        handedOff++;
        Marker m = item.marker;
        int flags = m.flags() | (mode == Mode.EVENTUAL ? io.cassandragsi.schema.QueueLayout.FLAG_DELETE : 0);
        Marker handed = new Marker(trigger.newId(sim.now), m.keyspace(), m.table(), m.pk(), m.ck(), m.tidMin(), m.tidMax(), flags);
        readable(handed, sim.now + 50 + sim.rnd.nextInt(350));
    }

    private static String describe(MarkerGroup g) {
        return "group " + RandomHistoryTest.show(g.pk()) + " " + Simulation.tid(g.tidMin()) + ".." + Simulation.tid(g.tidMax()) + " flags "
                + g.flags() + " (" + g.markerIds().size() + " markers)" + (g.unseenGone() ? " unseen gone" : "");
    }

    /** What the maintainers did, for the report. */
    String summary() {
        return "service " + serviceOutcomes + ", node " + nodeOutcomes + ", handed off " + handedOff + ", prefetched " + counters.prefetched.sum()
                + ", rewrites " + counters.rewrites.sum() + ", gave up " + gaveUp + ", conditional writes not applied " + casNotApplied;
    }
}
