package io.cassandragsi.repair.jobs;

/**
 * Told after every finished token range (from a job's worker threads: keep it short and
 * thread-safe). A progress bar rather polls {@link JobHandle#progress()}.
 */
@FunctionalInterface
public interface ProgressListener {
    ProgressListener NONE = s -> {};

    void onProgress(ProgressSnapshot snapshot);
}
