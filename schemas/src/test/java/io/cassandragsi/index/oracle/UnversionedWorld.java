package io.cassandragsi.index.oracle;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.Marker;
import io.cassandragsi.maintain.MarkerGroup;
import io.cassandragsi.maintain.MemoryStores;
import io.cassandragsi.maintain.MemoryTrigger;
import io.cassandragsi.maintain.Outcome;
import io.cassandragsi.maintain.TableKind;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * An unversioned table ({@code examples/users.json}: {@code by_email} projecting {@code name};
 * {@code by_country} with the range {@code age}, projecting {@code name}) in the in-memory twins
 * ({@link MemoryStores}), with the trigger's writes ({@link MemoryTrigger}: each base cell mirrored
 * into the entries the write carries whole, the keys and the write's timestamp recorded in the rows
 * table in the base write's own mutation, the row queued; a delete of the row, a partition delete
 * here, recorded and the partition queued) and the maintainers ({@link Maintainers}, the one repair
 * core): a discrete-event simulation like {@link VersionedWorld}.
 */
final class UnversionedWorld extends Simulation {
    static final TableDef DEF = Definitions.read(Path.of("examples/users.json"));
    static final TablePlan PLAN = TablePlan.of(DEF);
    static final List<String> COLUMNS = List.of("id", "email", "country", "age", "name");

    final MemoryStores stores;
    final MemoryTrigger trigger;
    final Maintainers maintainers;
    /** What the client did, for the report. */
    int statements;
    int deletes;
    int expiring;
    int ties;
    /** Every client timestamp taken, for ties. */
    private final List<Long> timestamps = new ArrayList<>();
    /** The last statement, for a client retry: the same cells at the same timestamp. */
    private Runnable last;

    UnversionedWorld(Random rnd, long startMillis, Maintainers.Mode mode) {
        super(rnd, startMillis);
        this.stores = MemoryStores.of(PLAN, () -> now);
        this.trigger = new MemoryTrigger(stores, () -> now);
        this.maintainers = new Maintainers(this, stores, trigger, mode);
    }

    static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    static ByteBuffer int4(int v) {
        return ByteBuffer.allocate(4).putInt(0, v);
    }

    // ----- the client

    /** A client timestamp: mostly now, up to 20 ms out of order, sometimes tied with an earlier write's (of any age, with a TTL or not). */
    private long timestamp() {
        if (!timestamps.isEmpty() && rnd.nextInt(10) == 0) {
            ties++;
            return timestamps.get(rnd.nextInt(timestamps.size()));
        }
        long ts = nowMicros() + rnd.nextInt(40_000) - 20_000;
        timestamps.add(ts);
        return ts;
    }

    /** One random client statement on rows u0..u{ids-1}. */
    void clientStep(int ids) {
        ByteBuffer id = text("u" + rnd.nextInt(ids));
        ByteBuffer email = text(List.of("a@x", "b@x", "c@x").get(rnd.nextInt(3)));
        ByteBuffer country = text(List.of("fr", "de").get(rnd.nextInt(2)));
        ByteBuffer age = int4(20 + rnd.nextInt(3));
        ByteBuffer name = text("n" + rnd.nextInt(4));
        int op = rnd.nextInt(12);
        Map<String, ByteBuffer> cells = new LinkedHashMap<>();
        int ttl = 0;
        boolean marker = false;
        switch (op) {
            case 0, 1 -> {
                ttl = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0;
                marker = true;
                cells.put("email", email);
                cells.put("country", country);
                cells.put("age", age);
                cells.put("name", name);
            }
            case 2 -> {
                ttl = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0;
                cells.put("email", email);
            }
            case 3 -> {
                ttl = rnd.nextInt(5) == 0 ? 1 + rnd.nextInt(3) : 0;
                cells.put("country", country);
                cells.put("age", age);
            }
            case 4 -> {
                ttl = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0; // a projection that expires alone
                cells.put("name", name);
            }
            case 5 -> cells.put("email", null); // SET email = null
            case 6 -> cells.put(rnd.nextBoolean() ? "age" : "name", null); // DELETE age (or name)
            case 7 -> {
                long d = timestamp();
                Runnable delete = () -> deleteRow(id, d);
                last = delete;
                delete.run();
                return;
            }
            case 8 -> {
                if (last != null) {
                    last.run(); // a client retry: the same statement, the same timestamp
                }
                return;
            }
            case 9 -> {
                ttl = 1 + rnd.nextInt(3);
                cells.put("email", email);
                if (rnd.nextBoolean()) {
                    cells.put("name", name); // a projection that expires
                }
            }
            default -> {
                ttl = rnd.nextInt(6) == 0 ? 1 + rnd.nextInt(3) : 0; // one key cell of two that expires
                cells.put("name", name);
                cells.put("country", country);
            }
        }
        long w = timestamp();
        int t = ttl;
        boolean m = marker;
        Runnable write = () -> write(id, cells, m, w, t);
        last = write;
        write.run();
    }

    /** One statement's write and the trigger's logged batch for it, applied mutation by mutation. */
    void write(ByteBuffer id, Map<String, ByteBuffer> values, boolean marker, long w, int ttl) {
        statements++;
        expiring += ttl > 0 ? 1 : 0;
        if (logging) {
            log("write " + RandomHistoryTest.show(id) + " " + values.entrySet().stream().map(e -> e.getKey() + "=" + RandomHistoryTest.show(e.getValue()))
                    .toList() + (marker ? " (insert)" : "") + " w " + w + " ttl " + ttl);
        }
        MemoryTrigger.Batch b = batch(id, values, marker, w, ttl);
        int baseAt = rnd.nextInt(20); // a batch lands within 20 ms
        if (maintainers.mode() == Maintainers.Mode.EVENTUAL) {
            at(now + baseAt, b.write());
            maintainers.eventual(b);
            return;
        }
        at(now + baseAt, b.base());
        for (Runnable e : b.entries()) { // a logged batch applies its mutations in any order: entries before or after the base row
            at(now + rnd.nextInt(20), e);
        }
        maintainers.marker(b.marker());
    }

    /** What the trigger makes of one statement ({@code values}: null writes a tombstone). */
    MemoryTrigger.Batch batch(ByteBuffer id, Map<String, ByteBuffer> values, boolean marker, long w, int ttl) {
        return trigger.write(List.of(id), values, marker, w, ttl);
    }

    /** {@code DELETE FROM users WHERE id = ?}: a partition delete (no clustering columns); its timestamp in the rows table. */
    void deleteRow(ByteBuffer id, long d) {
        statements++;
        deletes++;
        log("delete " + RandomHistoryTest.show(id) + " d " + d);
        MemoryTrigger.Batch b = trigger.deleteRow(List.of(id), d);
        if (maintainers.mode() == Maintainers.Mode.EVENTUAL) {
            at(now + rnd.nextInt(20), b.write());
            maintainers.eventual(b);
            return;
        }
        at(now + rnd.nextInt(20), b.base());
        maintainers.marker(b.marker());
    }

    /** The value a read of row {@code id} returns now for {@code column}, or null. */
    ByteBuffer value(ByteBuffer id, String column) {
        return stores.current.value(List.of(id), column);
    }

    /** One repair of a marker by the repair service now (its writes land as a repair's do). */
    Outcome repair(Marker m) {
        return repair(m, stores);
    }

    /** One repair of a marker on {@code on} (the service's storage, or the node's: {@link MemoryStores#node}) now. */
    Outcome repair(Marker m, MemoryStores on) {
        return repair(MarkerGroup.coalesce(List.of(m)).get(0), on);
    }

    Outcome repair(MarkerGroup g, MemoryStores on) {
        return TableKind.of(PLAN, on, maintainers.counters).repair(g, null, sink(stores));
    }
}
