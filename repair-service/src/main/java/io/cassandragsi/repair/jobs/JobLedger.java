package io.cassandragsi.repair.jobs;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where rebuild jobs record themselves and their finished token ranges, so that a restarted job
 * skips them (docs/design.md section 1: a small interface, {@link JobsTable} in Cassandra and {@link
 * MemoryJobLedger} for tests).
 */
public interface JobLedger {
    /** Index name recorded for a job over every index of a table. */
    String ALL_INDEXES = "*";

    /** A job and its target. {@code splits} fixes the ranges for every run of the job. */
    record Header(String id, String kind, String keyspace, String table, String index, int splits, JobState state, String message,
            Instant started, Instant updated) {
        public boolean sameTarget(String kind, String keyspace, String table, String index) {
            return this.kind.equals(kind) && this.keyspace.equals(keyspace) && this.table.equals(table) && this.index.equals(index);
        }

        Header with(JobState state, String message, Instant now) {
            return new Header(id, kind, keyspace, table, index, splits, state, message, started, now);
        }
    }

    /** A range a run finished: every write for its rows was acknowledged. */
    record RangeDone(TokenRange range, long rows, long writes, Instant finished) {}

    Optional<Header> find(String id);

    void create(Header header);

    void state(String id, JobState state, String message);

    List<RangeDone> finished(String id);

    void finished(String id, RangeDone range);

    /** Every job header (a small table: one partition per job). */
    List<Header> headers();

    /** The most recently started job of this target that is not done, if any. */
    default Optional<Header> latestUnfinished(String kind, String keyspace, String table, String index) {
        return headers().stream()
                .filter(h -> h.sameTarget(kind, keyspace, table, index) && h.state() != JobState.DONE)
                .max(java.util.Comparator.comparing(Header::started));
    }
}
