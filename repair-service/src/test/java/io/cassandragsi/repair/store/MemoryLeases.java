package io.cassandragsi.repair.store;

import java.time.Clock;
import java.util.Map;

/**
 * The in-memory twin of {@link LeasesTable}: {@code INSERT ... IF NOT EXISTS USING TTL}, {@code
 * UPDATE ... USING TTL ... IF owner = ?} and {@code DELETE ... IF owner = ?} as linearizable
 * compare-and-set, with the TTL's expiry.
 */
public final class MemoryLeases implements Leases {
    private final MemoryTable table;
    private final java.util.Set<Integer> touched = new java.util.concurrent.ConcurrentSkipListSet<>();

    public MemoryLeases(Clock clock) {
        this.table = new MemoryTable(clock);
    }

    @Override
    public boolean acquire(int shard, String owner, int ttlSeconds) {
        touched.add(shard);
        return table.lwt(shard, ballot -> {
            if (table.exists(shard)) {
                return false;
            }
            table.write(shard, true, Map.of("owner", MemoryTable.text(owner)), ttlSeconds, ballot);
            return true;
        });
    }

    @Override
    public boolean renew(int shard, String owner, int ttlSeconds) {
        return table.lwt(shard, ballot -> {
            if (!owner.equals(owner(shard))) {
                return false;
            }
            table.write(shard, false, Map.of("owner", MemoryTable.text(owner)), ttlSeconds, ballot);
            return true;
        });
    }

    @Override
    public void release(int shard, String owner) {
        table.lwt(shard, ballot -> {
            if (owner.equals(owner(shard))) {
                table.deleteRow(shard, ballot);
            }
            return null;
        });
    }

    /** The instance holding the shard's lease, or null. */
    public String owner(int shard) {
        return MemoryTable.text(table.read(shard, "owner"));
    }

    @Override
    public java.util.Map<Integer, String> owners() {
        java.util.Map<Integer, String> out = new java.util.HashMap<>();
        for (int shard : touched) {
            String o = owner(shard);
            if (o != null) {
                out.put(shard, o);
            }
        }
        return out;
    }
}
