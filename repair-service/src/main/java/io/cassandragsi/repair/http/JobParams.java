package io.cassandragsi.repair.http;

import io.cassandragsi.repair.jobs.CheckOptions;
import io.cassandragsi.repair.jobs.RebuildOptions;
import io.cassandragsi.repair.read.Values;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The query parameters of {@code POST /admin/{keyspace}/{table}/{index}/{rebuild|check}}, parsed
 * and bounded before anything starts (README, "HTTP API"): 400 ({@link HttpError}) outside these
 * bounds. Pure.
 */
public final class JobParams {
    private JobParams() {}

    private static final Set<String> REBUILD_PARAMS = Set.of("resume", "job_id", "parallelism", "splits", "max_in_flight");

    /** Bounds of the job parameters over HTTP (README, "HTTP API"); the defaults lie within them. */
    public static final int MAX_PARALLELISM = 64;
    public static final int MAX_SPLITS = 4096;
    public static final int MAX_IN_FLIGHT = 4096;
    public static final int MAX_EXAMPLES = 100;
    public static final int MAX_JOB_ID_CHARS = 64;
    private static final Set<String> CHECK_PARAMS = Set.of("fix", "parallelism", "splits", "max_in_flight", "examples");

    public static RebuildOptions rebuildOptions(Map<String, String> params) {
        unknown(params, REBUILD_PARAMS);
        try {
            RebuildOptions o = RebuildOptions.defaults();
            if (params.containsKey("job_id")) {
                String id = params.get("job_id");
                if (id.isEmpty() || id.length() > MAX_JOB_ID_CHARS
                        || !id.chars().allMatch(c -> c < 128 && (Character.isLetterOrDigit(c) || c == '-' || c == '_'))) {
                    throw HttpError.badRequest("bad_parameter", "job_id must be 1 to " + MAX_JOB_ID_CHARS + " letters, digits, '-' or '_'");
                }
                o = o.withJobId(id);
            }
            o = o.withResume(bool(params, "resume"));
            o = o.withParallelism(integer(params, "parallelism", o.parallelism(), 1, MAX_PARALLELISM));
            o = o.withSplits(integer(params, "splits", o.splits(), 0, MAX_SPLITS));
            return o.withMaxInFlight(integer(params, "max_in_flight", o.maxInFlight(), 1, MAX_IN_FLIGHT));
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("bad_job", e.getMessage());
        }
    }

    public static CheckOptions checkOptions(Map<String, String> params) {
        unknown(params, CHECK_PARAMS);
        try {
            CheckOptions o = CheckOptions.defaults().withFix(bool(params, "fix"));
            o = o.withParallelism(integer(params, "parallelism", o.parallelism(), 1, MAX_PARALLELISM));
            o = o.withSplits(integer(params, "splits", o.splits(), 0, MAX_SPLITS));
            o = o.withExamples(integer(params, "examples", o.examples(), 0, MAX_EXAMPLES));
            return new CheckOptions(o.fix(), o.parallelism(), o.splits(), integer(params, "max_in_flight", o.maxInFlight(), 1, MAX_IN_FLIGHT),
                    o.pageSize(), o.examples());
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("bad_job", e.getMessage());
        }
    }

    private static void unknown(Map<String, String> params, Set<String> allowed) {
        for (String p : params.keySet()) {
            if (!allowed.contains(p)) {
                throw HttpError.badRequest("bad_parameter", "unknown parameter '" + p + "'; allowed: " + new TreeSet<>(allowed));
            }
        }
    }

    private static boolean bool(Map<String, String> params, String name) {
        String v = params.get(name);
        if (v == null || v.equals("false")) {
            return false;
        }
        if (v.equals("true") || v.isEmpty()) {
            return true;
        }
        throw HttpError.badRequest("bad_parameter", name + " must be true or false, not '" + v + "'");
    }

    /** A whole number from {@code min} to {@code max}; 400 otherwise. */
    static int integer(Map<String, String> params, String name, int dflt, int min, int max) {
        String v = params.get(name);
        if (v == null) {
            return dflt;
        }
        int n;
        try {
            n = v.length() > 11 ? Integer.MIN_VALUE : Integer.parseInt(v);
        } catch (NumberFormatException e) {
            n = Integer.MIN_VALUE;
        }
        if (n < min || n > max) {
            throw HttpError.badRequest("bad_parameter", name + " must be a whole number from " + min + " to " + max + ", not "
                    + Values.quote(v));
        }
        return n;
    }
}
