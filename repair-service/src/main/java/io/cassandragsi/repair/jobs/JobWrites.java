package io.cassandragsi.repair.jobs;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.RowsWrite;
import java.util.List;

/**
 * Where a job's writes go (docs/design.md section 9): index and rows-table writes, each at its own
 * timestamp, with a bounded number in flight, retried, and awaited by rounds (a token range, a
 * batch of fixes). On the driver through the process's {@code IndexWriter} ({@link DriverWrites});
 * in memory for tests.
 */
interface JobWrites {
    Round round();

    /** Writes sent again so far. */
    long retries();

    /** The writes of one unit of work. */
    interface Round {
        /** Sends the writes; blocks while the limit of writes in flight is reached. */
        void send(List<TablePlan.IndexWrite> index, List<RowsWrite> rows) throws InterruptedException;

        /** When a write sent so far failed for good: waits for the others, then throws {@link JobFailedException}. */
        void check() throws InterruptedException;

        /** Waits until no write of the round is outstanding; throws {@link JobFailedException} on the first that failed. */
        void await() throws InterruptedException;
    }
}
