package io.cassandragsi.repair.bench;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.schema.Composite;
import io.cassandragsi.index.RowReconcile;
import io.cassandragsi.index.WriteTimestamps;
import io.cassandragsi.repair.cli.CommandFailedException;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Writes a {@link WriteSequence} into one variant for a fixed time with a fixed number of writes in
 * flight (asynchronous, a permit per write), and counts the writes acknowledged inside that time.
 */
final class WriteLoad {
    private final CqlSession session;
    private final int inFlight;

    WriteLoad(CqlSession session, int inFlight) {
        this.session = session;
        this.inFlight = inFlight;
    }

    /** The statement of one write, prepared once per variant. */
    interface Writer {
        Statement<?> statement(WriteSequence.Write w, UUID tid);
    }

    /**
     * The writer of a variant: the base row, plus the client's index row in a logged batch for that
     * variant. On the unversioned table the tid is not written: the write overwrites the key's row.
     */
    Writer writer(Variant variant) {
        if (variant == Variant.ROWS_TABLE_U || variant == Variant.BATCH_AS_TRIGGER_U) {
            return unversionedAidWriter(variant);
        }
        PreparedStatement base = session.prepare(BenchSchema.insertBase(variant));
        if (variant.unversioned()) {
            return (w, tid) -> base.bind(w.key(), w.a(), w.b(), w.c(), w.value());
        }
        if (variant == Variant.BATCH_AS_TRIGGER) {
            return triggerLikeWriter(variant, base);
        }
        if (variant != Variant.LOGGED_BATCH) {
            return (w, tid) -> base.bind(w.key(), tid, w.a(), w.b(), w.c(), w.value());
        }
        PreparedStatement index = session.prepare(BenchSchema.insertBatchIndex(variant));
        return (w, tid) -> BatchStatement.newInstance(BatchType.LOGGED,
                base.bind(w.key(), tid, w.a(), w.b(), w.c(), w.value()),
                index.bind(w.a(), w.key(), w.value(), tid));
    }

    /**
     * What gsi-1's trigger batch holds: the base row and the rows-table row with the entry's key in
     * {@code _keys} and the write in {@code _whi}/{@code _wlo} (one partition of one keyspace, so Cassandra applies them as one mutation, as it
     * merges the trigger's rows-table row into the base write's), the index entry at TS(tid) without
     * {@code _deleted}, and the marker (TTL from the table).
     */
    private Writer triggerLikeWriter(Variant variant, PreparedStatement base) {
        PreparedStatement rows = session.prepare(BenchSchema.updateVersionedRows(variant));
        PreparedStatement entry = session.prepare(BenchSchema.insertTriggerLikeEntry(variant));
        PreparedStatement marker = session.prepare(BenchSchema.insertMarker(variant));
        QueueLayout.Settings queue = QueueLayout.Settings.defaults();
        return (w, tid) -> {
            ByteBuffer pk = ByteBuffer.wrap(w.key().getBytes(StandardCharsets.UTF_8));
            int shard = QueueLayout.shardOf(variant.keyspace(), BenchSchema.TABLE, pk, queue.shards());
            return BatchStatement.newInstance(BatchType.LOGGED,
                    base.bind(w.key(), tid, w.a(), w.b(), w.c(), w.value()),
                    rows.bind(Set.of(entryKey(w)), micros(tid), RowsLayout.newestLo(micros(tid)), w.key()),
                    entry.bind(w.a(), w.key(), w.value(), tid, WriteTimestamps.of(tid)),
                    marker.bind(shard, queue.bucketOf(System.currentTimeMillis()), Uuids.timeBased(), variant.keyspace(),
                            BenchSchema.TABLE, pk, Composite.encode(List.of()), tid, tid, 0));
        };
    }

    /**
     * The unversioned profiling aids: the base row and the rows-table row at the write's timestamp w
     * (taken from the tid, so microseconds that increase like the driver's), in one single-partition
     * UNLOGGED batch (one mutation) for rows-table-u; for batch-as-trigger-u in one LOGGED batch with
     * the entry's cells at TS w x10 and a marker, as gsi-1-u's trigger writes them.
     */
    private Writer unversionedAidWriter(Variant variant) {
        PreparedStatement base = session.prepare(BenchSchema.insertBaseAt(variant));
        PreparedStatement rows = session.prepare(BenchSchema.updateRows(variant));
        if (variant == Variant.ROWS_TABLE_U) {
            return (w, tid) -> {
                long micros = micros(tid);
                return BatchStatement.newInstance(BatchType.UNLOGGED,
                        base.bind(w.key(), w.a(), w.b(), w.c(), w.value(), micros),
                        rows.bind(micros, Set.of(entryKey(w)), micros, w.key()));
            };
        }
        PreparedStatement entry = session.prepare(BenchSchema.updateEntry(variant));
        PreparedStatement marker = session.prepare(BenchSchema.insertMarker(variant));
        QueueLayout.Settings queue = QueueLayout.Settings.defaults();
        return (w, tid) -> {
            long micros = micros(tid);
            ByteBuffer tidBytes = RowReconcile.tidOfMicros(micros);
            UUID version = new UUID(tidBytes.getLong(tidBytes.position()), tidBytes.getLong(tidBytes.position() + 8));
            ByteBuffer pk = ByteBuffer.wrap(w.key().getBytes(StandardCharsets.UTF_8));
            int shard = QueueLayout.shardOf(variant.keyspace(), BenchSchema.UNVERSIONED_TABLE, pk, queue.shards());
            return BatchStatement.newInstance(BatchType.LOGGED,
                    base.bind(w.key(), w.a(), w.b(), w.c(), w.value(), micros),
                    rows.bind(micros, Set.of(entryKey(w)), micros, w.key()),
                    entry.bind(RowReconcile.ticksOfMicros(micros), w.value(), version, w.a(), w.key()),
                    marker.bind(shard, queue.bucketOf(System.currentTimeMillis()), Uuids.timeBased(), variant.keyspace(),
                            BenchSchema.UNVERSIONED_TABLE, pk, Composite.encode(List.of()), version, version, 0));
        };
    }

    /** The write timestamp in µs of a time-based UUID. */
    private static long micros(UUID tid) {
        return Uuids.unixTimestamp(tid) * 1000 + (tid.timestamp() % 10_000) / 10;
    }

    /**
     * The element of the rows table's {@code _keys} the trigger records for the write's entry in
     * {@code by_a}: its key is (a, key) on both tables (a versioned entry's key has no tid).
     */
    static ByteBuffer entryKey(WriteSequence.Write w) {
        return RowsLayout.element("by_a", List.of(utf8(w.a()), utf8(w.key())));
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * What a run counted within its time (writes acknowledged later are not counted).
     *
     * @param issued how many writes of the sequence were sent: writes 0 to issued - 1
     */
    record Counts(long writes, long errors, long nanos, long issued, String firstError) {}

    /** Hooks called right at the start and at the end of the measured time, to read CPU counters. */
    interface Window {
        void opened();

        void closed();
    }

    /**
     * Writes for {@code length}, then waits for the writes still in flight (at most {@code drain}).
     *
     * @throws CommandFailedException when writes are still unanswered after {@code drain}
     */
    Counts run(Writer writer, WriteSequence sequence, Duration length, Duration drain, Window window) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        LongAdder ok = new LongAdder();
        LongAdder failed = new LongAdder();
        AtomicReference<String> firstError = new AtomicReference<>();
        window.opened();
        long start = System.nanoTime();
        long end = start + length.toNanos();
        long i = 0;
        while (System.nanoTime() < end) {
            if (!permits.tryAcquire(5, TimeUnit.MILLISECONDS)) {
                continue;
            }
            try {
                session.executeAsync(writer.statement(sequence.at(i++), Uuids.timeBased())).whenComplete((rs, error) -> {
                    if (error == null) {
                        ok.increment();
                    } else {
                        failed.increment();
                        firstError.compareAndSet(null, error.getClass().getSimpleName() + ": " + error.getMessage());
                    }
                    permits.release();
                });
            } catch (RuntimeException e) {
                failed.increment();
                firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
                permits.release();
            }
        }
        long writes = ok.sum();
        long errors = failed.sum();
        long nanos = System.nanoTime() - start;
        window.closed();
        if (!permits.tryAcquire(inFlight, drain.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new CommandFailedException(inFlight - permits.availablePermits() + " writes still unanswered "
                    + drain.toSeconds() + " s after the phase ended");
        }
        return new Counts(writes, errors, nanos, i, firstError.get());
    }
}
