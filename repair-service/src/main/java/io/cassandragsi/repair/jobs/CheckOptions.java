package io.cassandragsi.repair.jobs;

/**
 * How a check runs: {@code fix} rewrites missing and stale entries at their TS and deletes
 * orphans; {@code examples} is how many examples of each kind of finding the report keeps.
 */
public record CheckOptions(boolean fix, int parallelism, int splits, int maxInFlight, int pageSize, int examples) {
    public CheckOptions {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, not " + parallelism);
        }
        if (splits < 0 || splits > TokenRanges.MAX_SPLITS) {
            throw new IllegalArgumentException("splits must be from 1 to " + TokenRanges.MAX_SPLITS + " (0: automatic), not " + splits);
        }
        if (maxInFlight < 1 || pageSize < 1 || examples < 0) {
            throw new IllegalArgumentException("max in-flight and page size must be positive, examples not negative");
        }
    }

    public static CheckOptions defaults() {
        return new CheckOptions(false, RebuildOptions.defaultParallelism(), 0, 256, 1000, 5);
    }

    public CheckOptions withFix(boolean f) {
        return new CheckOptions(f, parallelism, splits, maxInFlight, pageSize, examples);
    }

    public CheckOptions withParallelism(int p) {
        return new CheckOptions(fix, p, splits, maxInFlight, pageSize, examples);
    }

    public CheckOptions withSplits(int s) {
        return new CheckOptions(fix, parallelism, s, maxInFlight, pageSize, examples);
    }

    public CheckOptions withExamples(int e) {
        return new CheckOptions(fix, parallelism, splits, maxInFlight, pageSize, e);
    }

    int effectiveSplits(int nodes) {
        return splits > 0 ? splits : Math.min(TokenRanges.MAX_SPLITS, Math.max(32, 4 * parallelism * Math.max(1, nodes)));
    }
}
