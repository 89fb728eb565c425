package io.cassandragsi.repair.jobs;

/**
 * How a rebuild runs. {@code jobId} names the job (null: a new id, or with {@code resume} the
 * latest unfinished job of the same target); a job that exists is resumed: its finished ranges
 * are skipped. {@code splits} (0: automatic) only applies to a new job: a resumed one keeps its
 * ranges. {@code parallelism} ranges are streamed at once, with at most {@code maxInFlight}
 * index writes outstanding.
 */
public record RebuildOptions(String jobId, boolean resume, int parallelism, int splits, int maxInFlight, int pageSize) {
    public RebuildOptions {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, not " + parallelism);
        }
        if (splits < 0 || splits > TokenRanges.MAX_SPLITS) {
            throw new IllegalArgumentException("splits must be from 1 to " + TokenRanges.MAX_SPLITS + " (0: automatic), not " + splits);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("max in-flight writes must be at least 1, not " + maxInFlight);
        }
        if (pageSize < 1) {
            throw new IllegalArgumentException("page size must be at least 1, not " + pageSize);
        }
    }

    public static int defaultParallelism() {
        return Math.max(2, Runtime.getRuntime().availableProcessors());
    }

    public static RebuildOptions defaults() {
        return new RebuildOptions(null, false, defaultParallelism(), 0, 256, 1000);
    }

    public RebuildOptions withJobId(String id) {
        return new RebuildOptions(id, resume, parallelism, splits, maxInFlight, pageSize);
    }

    public RebuildOptions withResume(boolean r) {
        return new RebuildOptions(jobId, r, parallelism, splits, maxInFlight, pageSize);
    }

    public RebuildOptions withParallelism(int p) {
        return new RebuildOptions(jobId, resume, p, splits, maxInFlight, pageSize);
    }

    public RebuildOptions withSplits(int s) {
        return new RebuildOptions(jobId, resume, parallelism, s, maxInFlight, pageSize);
    }

    public RebuildOptions withMaxInFlight(int m) {
        return new RebuildOptions(jobId, resume, parallelism, splits, m, pageSize);
    }

    /** Ranges for a new job: four per worker and per node, at least 32 (progress and resume granularity). */
    int effectiveSplits(int nodes) {
        return splits > 0 ? splits : Math.min(TokenRanges.MAX_SPLITS, Math.max(32, 4 * parallelism * Math.max(1, nodes)));
    }
}
