package io.cassandragsi.repair.store;

import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** The in-memory twin of {@link CheckpointsTable}: an {@code UPDATE} of two cells per shard, last write wins. */
public final class MemoryCheckpoints implements Checkpoints {
    private final MemoryTable table;
    private final java.util.Set<Integer> touched = new java.util.concurrent.ConcurrentSkipListSet<>();

    public MemoryCheckpoints(Clock clock) {
        this.table = new MemoryTable(clock);
    }

    @Override
    public Instant checkpoint(int shard) {
        return MemoryTable.timestamp(table.read(shard, "resume_from"));
    }

    @Override
    public void checkpoint(int shard, Instant resumeFrom, String owner) {
        checkpoint(shard, resumeFrom, owner, table.now());
    }

    /** The write at a given timestamp (two instances writing in the same microsecond). */
    void checkpoint(int shard, Instant resumeFrom, String owner, long timestamp) {
        Map<String, byte[]> cells = new LinkedHashMap<>();
        cells.put("resume_from", MemoryTable.timestamp(resumeFrom));
        cells.put("updated_by", MemoryTable.text(owner));
        table.write(shard, false, cells, 0, timestamp);
    }

    /** Who wrote the checkpoint that won. */
    String updatedBy(int shard) {
        return MemoryTable.text(table.read(shard, "updated_by"));
    }

    @Override
    public void done(int shard, Instant doneBefore, String owner) {
        touched.add(shard);
        Map<String, byte[]> cells = new LinkedHashMap<>();
        cells.put("done_before", MemoryTable.timestamp(doneBefore));
        cells.put("updated_by", MemoryTable.text(owner));
        table.write(shard, false, cells, 0, table.now());
    }

    @Override
    public Map<Integer, Instant> done() {
        Map<Integer, Instant> out = new java.util.HashMap<>();
        for (int shard : touched) {
            Instant at = MemoryTable.timestamp(table.read(shard, "done_before"));
            if (at != null) {
                out.put(shard, at);
            }
        }
        return out;
    }
}
