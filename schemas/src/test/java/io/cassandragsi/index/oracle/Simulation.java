package io.cassandragsi.index.oracle;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.index.Tids;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.maintain.MemoryStores;
import io.cassandragsi.maintain.RowsWrite;
import io.cassandragsi.maintain.Writes;
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
 * writes land: in a random order, some twice.
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
    /** Milliseconds within which each write of a maintainer's step lands once sent ({@code -Dgsi.history.land-within=N}, 0: at once). */
    int landWithin = Integer.getInteger("gsi.history.land-within", 20);

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

    /** A tid in the log: its first hex digits and its clock sequence (tids of one tick differ there), and its TS. */
    static String tid(UUID t) {
        return t == null ? "*" : t.toString().substring(0, 8) + "-" + t.toString().substring(19, 23) + "@" + WriteTimestamps.of(t);
    }

    /** Inserts a line at {@code index} of the log (a repair's outcome before the writes it logged), when {@link #logging}. */
    void logAt(int index, String what) {
        if (logging) {
            log.add(index, now + " " + what);
        }
    }

    /**
     * The writes of one step of a maintainer: each repair hands its writes to {@link #sink}, and
     * they are sent together once every repair of the step is computed ({@link #land}), as the
     * service's {@code CoalescedWrites} and the node's turns send them.
     */
    final class Step {
        private final MemoryStores stores;
        private final List<Runnable> writes = new ArrayList<>();

        Step(MemoryStores stores) {
            this.stores = stores;
        }

        Writes.Sink sink() {
            return (index, rows) -> {
                for (TablePlan.IndexWrite w : index) {
                    if (logging) {
                        log("  " + describe(w));
                    }
                    writes.add(() -> stores.apply(w));
                }
                for (RowsWrite w : rows) {
                    if (logging) {
                        log("  rows table: " + describe(w));
                    }
                    writes.add(() -> stores.apply(w));
                }
            };
        }

        /** A write the step sends with its repairs' (eventual indexing: the entries the node writes after the write). */
        void send(Runnable write) {
            writes.add(write);
        }

        /**
         * Sends the step's writes: each lands within {@code within} ms (at once when 0), in a random
         * order, some twice. Returns when the last has landed (acknowledged).
         */
        long land(int within) {
            for (int i = 0, n = writes.size(); i < n; i++) {
                if (rnd.nextInt(8) == 0) {
                    writes.add(writes.get(i));
                }
            }
            Collections.shuffle(writes, rnd);
            if (within == 0) {
                writes.forEach(Runnable::run);
                return now;
            }
            writes.forEach(r -> at(now + rnd.nextInt(within + 1), r));
            return now + within;
        }
    }

    /** Where the writes of a repair run outside the maintainers go: they land as soon as it returns. */
    Writes.Sink sink(MemoryStores stores) {
        return (index, rows) -> {
            Step step = new Step(stores);
            step.sink().write(index, rows);
            step.land(0);
        };
    }

    /** Index writes made outside a repair (a pure function's), landing like a repair's. */
    void apply(MemoryStores stores, List<TablePlan.IndexWrite> writes) {
        sink(stores).write(writes, List.of());
    }

    static String describe(RowsWrite w) {
        if (w instanceof RowsWrite.RecordRecompute r) {
            return "_w " + r.ts();
        }
        if (w instanceof RowsWrite.AddKeys a) {
            return "add " + keys(a.keys()) + " at " + a.at();
        }
        if (w instanceof RowsWrite.AddVersionKeys a) {
            return "add version keys " + keys(a.keys()) + " at " + a.at();
        }
        if (w instanceof RowsWrite.ForgetKeys f) {
            return "forget " + keys(f.keys());
        }
        return "forget version keys " + keys(((RowsWrite.ForgetVersionKeys) w).keys());
    }

    private static String keys(java.util.Map<String, ?> keys) {
        StringBuilder out = new StringBuilder();
        keys.forEach((index, k) -> {
            out.append(index).append(' ');
            if (k instanceof java.util.Map<?, ?> times) {
                times.forEach((key, t) -> out.append(RandomHistoryTest.show(cast(key))).append('@').append(t).append(' '));
            } else {
                ((java.util.Collection<?>) k).forEach(key -> out.append(RandomHistoryTest.show(cast(key))).append(' '));
            }
        });
        return out.toString().trim();
    }

    @SuppressWarnings("unchecked")
    private static List<java.nio.ByteBuffer> cast(Object key) {
        return (List<java.nio.ByteBuffer>) key;
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
