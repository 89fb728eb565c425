package io.cassandragsi.index.oracle;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.UUID;

/**
 * The clock and the events of a simulated history ({@link VersionedWorld}, {@link
 * UnversionedWorld}): each event runs at its moment, the clock jumps to it, ties in a random order
 * the seed decides. Also the history's log, printed when a history fails, and the way a repair's
 * index writes land: in a random order, some twice.
 */
abstract class Simulation {
    private record Event(long at, long order, Runnable action) {}

    final Random rnd;
    /** The clock, epoch milliseconds. */
    long now;
    private final PriorityQueue<Event> events = new PriorityQueue<>(Comparator.comparingLong(Event::at).thenComparingLong(Event::order));
    /** What happened, in order, when {@link #logging}: a failing history runs again with it to print. */
    final List<String> log = new ArrayList<>();
    boolean logging;

    Simulation(Random rnd, long startMillis) {
        this.rnd = rnd;
        this.now = startMillis;
    }

    long nowSec() {
        return Math.floorDiv(now, 1000L);
    }

    long nowMicros() {
        return now * 1000L;
    }

    void at(long when, Runnable action) {
        events.add(new Event(Math.max(when, now), rnd.nextLong(), action));
    }

    /** Runs the events until none is left (the clock jumps to each). */
    void drain() {
        while (!events.isEmpty()) {
            Event e = events.poll();
            now = Math.max(now, e.at());
            e.action().run();
        }
    }

    void log(String what) {
        if (logging) {
            log.add(now + " " + what);
        }
    }

    static String tid(UUID t) {
        return t == null ? "*" : t.toString().substring(0, 8) + "@" + WriteTimestamps.of(t);
    }

    abstract IndexModel index();

    /** A repair's index writes, in a random order, some twice. */
    void apply(List<TablePlan.IndexWrite> writes) {
        List<TablePlan.IndexWrite> order = new ArrayList<>(writes);
        for (TablePlan.IndexWrite w : writes) {
            if (rnd.nextInt(8) == 0) {
                order.add(w);
            }
        }
        Collections.shuffle(order, rnd);
        if (logging) {
            for (TablePlan.IndexWrite w : writes) {
                log("  " + describe(w));
            }
        }
        order.forEach(index()::apply);
    }

    static String describe(TablePlan.IndexWrite w) {
        String key = w.index().index().name() + " " + RandomHistoryTest.show(w.key());
        if (w instanceof TablePlan.Upsert u) {
            return "upsert " + key + " _tid " + tid(Tids.uuid(u.tid())) + " at " + u.timestamp();
        }
        if (w instanceof TablePlan.MarkDeleted m) {
            return "mark " + key + " _deleted " + tid(Tids.uuid(m.deletedAt())) + " at " + m.timestamp();
        }
        if (w instanceof TablePlan.Removed r) {
            return "remove " + key + " at " + r.timestamp();
        }
        TablePlan.Reconciled r = (TablePlan.Reconciled) w;
        List<String> proj = new ArrayList<>();
        for (TablePlan.ProjCell c : r.proj()) {
            proj.add(c == null ? "-" : RandomHistoryTest.show(c.value()) + "@" + c.timestamp() + (c.ttl() > 0 ? " ttl " + c.ttl() : ""));
        }
        return "reconciled " + key + " _tid " + (r.tid() == null ? "-" : tid(Tids.uuid(r.tid()))) + " at " + r.timestamp()
                + (r.ttl() > 0 ? " ttl " + r.ttl() : "") + " proj " + proj;
    }
}
