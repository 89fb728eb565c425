package io.cassandragsi.repair.queue;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.BatchableStatement;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import io.cassandragsi.repair.store.IndexWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The index writes of the marker groups one shard step repairs, sent together once every repair
 * of the step has computed its own: small writes of several groups (a {@code _deleted} mark, a
 * short entry) share an unlogged batch, so that a step of 50 markers costs the node and the
 * service a handful of requests instead of 50. Every index write is idempotent and carries its own
 * timestamp, so neither their order nor the batch they travel in changes the result.
 *
 * <p>A batch holds at most {@value #PARTITIONS_PER_BATCH} statements of one index partition each
 * (Cassandra warns above 10 partitions in an unlogged batch, {@code
 * unlogged_batch_across_partitions_warn_threshold}) and at most {@value #BYTES_PER_BATCH} bytes
 * of bound values (it warns above 5 KiB of mutations, {@code batch_size_warn_threshold}, and fails
 * above 50 KiB); a larger statement goes alone, as it would have without coalescing. A batch that
 * fails fails only the groups whose writes it carried: they are retried whole. The batches go
 * through the process's {@link IndexWriter} (its one limit on writes in flight), each sent once.
 */
final class CoalescedWrites {
    static final int PARTITIONS_PER_BATCH = 10;
    static final int BYTES_PER_BATCH = 2048;

    /** One statement of one group: the writes of one index partition. */
    private record Unit(Statement<?> statement, int group, int bytes) {}

    private final List<Unit> units = new ArrayList<>();
    private final IndexWriter writer;

    CoalescedWrites(IndexWriter writer) {
        this.writer = writer;
    }

    /** Where the repair of group {@code group} (an index into the step's groups) puts its writes. */
    Repairer.Sink sink(int group) {
        return statements -> {
            synchronized (units) {
                for (Statement<?> s : statements) {
                    units.add(new Unit(s, group, bytes(s)));
                }
            }
        };
    }

    /** Sends every write queued so far and waits for them; returns the groups some of whose writes failed, with why. */
    Map<Integer, Throwable> send() {
        List<Unit> all;
        synchronized (units) {
            all = new ArrayList<>(units);
            units.clear();
        }
        int[] bytes = all.stream().mapToInt(Unit::bytes).toArray();
        IndexWriter.Round<Integer> round = writer.round(1); // a failed group is retried whole, by its shard worker
        List<Set<Integer>> carried = new ArrayList<>();
        for (List<Integer> batch : batches(bytes)) {
            send(batch.stream().map(all::get).toList(), round, carried);
        }
        Map<Integer, Throwable> failed = new HashMap<>();
        round.awaitUninterruptibly().forEach((batch, e) -> carried.get(batch).forEach(g -> failed.putIfAbsent(g, e)));
        return failed;
    }

    /**
     * Splits statements of the given sizes (in order; {@link Integer#MAX_VALUE}: cannot share a
     * batch) into batches: in order, at most {@value #PARTITIONS_PER_BATCH} statements and {@value
     * #BYTES_PER_BATCH} bytes each, a larger statement alone.
     */
    static List<List<Integer>> batches(int[] bytes) {
        List<List<Integer>> out = new ArrayList<>();
        List<Integer> batch = new ArrayList<>();
        long batchBytes = 0;
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] > BYTES_PER_BATCH) {
                out.add(List.of(i));
                continue;
            }
            if (batch.size() == PARTITIONS_PER_BATCH || batchBytes + bytes[i] > BYTES_PER_BATCH) {
                out.add(batch);
                batch = new ArrayList<>();
                batchBytes = 0;
            }
            batch.add(i);
            batchBytes += bytes[i];
        }
        if (!batch.isEmpty()) {
            out.add(batch);
        }
        return out;
    }

    private static void send(List<Unit> batch, IndexWriter.Round<Integer> round, List<Set<Integer>> carried) {
        Statement<?> statement;
        Set<Integer> groups = new HashSet<>();
        batch.forEach(u -> groups.add(u.group));
        if (batch.size() == 1) {
            statement = batch.get(0).statement;
        } else {
            List<BatchableStatement<?>> children = new ArrayList<>();
            for (Unit u : batch) {
                if (u.statement instanceof BatchStatement b) {
                    b.forEach(children::add);
                } else {
                    children.add((BatchableStatement<?>) u.statement);
                }
            }
            statement = BatchStatement.newInstance(BatchType.UNLOGGED, children)
                    .setConsistencyLevel(batch.get(0).statement.getConsistencyLevel()).setIdempotent(true);
        }
        carried.add(groups);
        round.sendUninterruptibly(statement, carried.size() - 1);
    }

    /** The bytes of a statement's bound values (of all its children for a batch). */
    static int bytes(Statement<?> s) {
        if (s instanceof BatchStatement b) {
            long sum = 0;
            for (BatchableStatement<?> c : b) {
                sum += bytes(c);
            }
            return (int) Math.min(sum, Integer.MAX_VALUE);
        }
        if (s instanceof BoundStatement bound) {
            int sum = 0;
            for (ByteBuffer v : bound.getValues()) {
                sum += v == null ? 0 : v.remaining();
            }
            return sum;
        }
        return Integer.MAX_VALUE; // unknown: goes alone
    }
}
