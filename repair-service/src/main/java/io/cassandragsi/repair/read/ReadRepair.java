package io.cassandragsi.repair.read;

import io.cassandragsi.maintain.Marker;
import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Read repair: a marker queued for the base row of an entry that claimed a match the base denies,
 * best effort and off the read's path. The queue write is synchronous, so it runs on a thread of
 * its own; when that is far behind ({@value #WAITING} repairs waiting), the repair is dropped
 * ({@code check --fix} finds what read repair misses).
 */
final class ReadRepair implements AutoCloseable {
    private static final int WAITING = 10_000;

    private final QueueStore queue;
    private final ConsistencyLevel cl;
    private final LongAdder queued;
    private final ThreadPoolExecutor repairs;

    /** {@code queue} null: no read repair. {@code queued} counts the repairs written. */
    ReadRepair(QueueStore queue, ConsistencyLevel cl, LongAdder queued) {
        this.queue = queue;
        this.cl = cl;
        this.queued = queued;
        this.repairs = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(WAITING),
                IndexReader.daemon("gsi-read-repair"), new ThreadPoolExecutor.AbortPolicy());
    }

    /** Queues the repair of the base row {@code rowKey}, whose entry claimed version {@code tid}. */
    void queue(TableDef def, ReadKind kind, List<ByteBuffer> rowKey, UUID tid) {
        if (queue == null || tid == null) {
            return;
        }
        int pkSize = def.partitionKey().size();
        ByteBuffer pk = pkSize == 1 ? rowKey.get(0) : Composite.encode(rowKey.subList(0, pkSize));
        ByteBuffer ck = Composite.encode(rowKey.subList(pkSize, rowKey.size()));
        Marker marker = new Marker(Uuids.timeBased(), def.keyspace(), def.table(), pk, ck, tid, tid, kind.repairFlags());
        long now = System.currentTimeMillis();
        try {
            repairs.execute(() -> {
                try {
                    queue.enqueue(marker, now, cl);
                    queued.increment();
                } catch (RuntimeException e) {
                    // read repair is best effort; check --fix finds what it misses
                }
            });
        } catch (RejectedExecutionException e) {
            // too many repairs waiting, or the reader is closed: dropped, as above
        }
    }

    @Override
    public void close() {
        repairs.shutdownNow();
    }
}
