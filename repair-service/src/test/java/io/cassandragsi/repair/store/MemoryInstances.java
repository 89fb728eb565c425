package io.cassandragsi.repair.store;

import java.time.Clock;
import java.time.Instant;
import java.util.Map;

/** The in-memory twin of {@link InstancesTable}: one heartbeat row per instance, alive until its TTL runs out. */
public final class MemoryInstances implements Instances {
    private final MemoryTable table;

    public MemoryInstances(Clock clock) {
        this.table = new MemoryTable(clock);
    }

    @Override
    public void heartbeat(String owner, Instant started, int ttlSeconds) {
        table.write(owner, true, Map.of("started", MemoryTable.timestamp(started)), ttlSeconds, table.now());
    }

    @Override
    public int liveInstances() {
        return Math.max(1, table.keys().size());
    }

    @Override
    public void leave(String owner) {
        table.deleteRow(owner, table.now());
    }
}
