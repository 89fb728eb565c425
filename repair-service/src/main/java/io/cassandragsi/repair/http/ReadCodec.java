package io.cassandragsi.repair.http;

import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.Values;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A read over HTTP (docs/design.md section 8): its path ({@code /v1/{keyspace}/{table}//{index}/{values...}})
 * and parameters as an {@link IndexReader.Query}, and the page it returns as the JSON body.
 */
final class ReadCodec {
    private static final Set<String> READ_PARAMS = Set.of("gt", "ge", "lt", "le", "limit", "next", "consistent", "as_of", "ts_ge", "ts_lt", "fresh",
            "max_wait");
    /** {@code max_wait}: milliseconds, or a number with {@code ms} or {@code s}. */
    private static final java.util.regex.Pattern WAIT = java.util.regex.Pattern.compile("([0-9]{1,9})(ms|s)?");

    private ReadCodec() {}

    /** Parses a read's path and parameters (400 for anything malformed); touches nothing. */
    static IndexReader.Query query(List<String> seg, Map<String, String> params) {
        // v1, keyspace, table, "", index, values...
        if (seg.size() < 5 || !seg.get(3).isEmpty()) {
            throw HttpError.badRequest("bad_path", "reads are GET /v1/{keyspace}/{table}//{index}/{values...} (note the '//')");
        }
        List<String> values = seg.subList(5, seg.size());
        if (!values.isEmpty() && values.get(values.size() - 1).isEmpty()) {
            values = values.subList(0, values.size() - 1); // a trailing slash
        }
        if (seg.get(1).isEmpty() || seg.get(2).isEmpty() || seg.get(4).isEmpty()) {
            throw HttpError.badRequest("bad_path", "keyspace, table and index must not be empty");
        }
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i).isEmpty()) {
                throw HttpError.badRequest("bad_path", "path value " + (i + 1) + " is empty (an index key value cannot be)");
            }
        }
        for (String p : params.keySet()) {
            if (!READ_PARAMS.contains(p)) {
                throw HttpError.badRequest("bad_parameter", "unknown parameter " + Values.quote(p)
                        + " (known: gt, ge, lt, le, limit, next, consistent, as_of, ts_ge, ts_lt, fresh, max_wait)");
            }
        }
        Integer limit = null;
        if (params.containsKey("limit")) {
            String l = params.get("limit");
            if (l.length() > 9 || l.isEmpty() || !l.chars().allMatch(c -> c >= '0' && c <= '9')) {
                throw HttpError.badRequest("bad_limit", "limit must be a whole number from 1 to " + IndexReader.MAX_LIMIT + ", not "
                        + Values.quote(l));
            }
            limit = Integer.parseInt(l);
        }
        boolean consistent = bool(params, "consistent");
        return new IndexReader.Query(seg.get(1), seg.get(2), seg.get(4), List.copyOf(values), params.get("gt"), params.get("ge"),
                params.get("lt"), params.get("le"), limit, params.get("next"), consistent, params.get("as_of"), params.get("ts_ge"),
                params.get("ts_lt"), bool(params, "fresh"), maxWait(params.get("max_wait")));
    }

    private static java.time.Duration maxWait(String v) {
        if (v == null) {
            return null;
        }
        java.util.regex.Matcher m = WAIT.matcher(v);
        if (!m.matches()) {
            throw HttpError.badRequest("bad_fresh", "max_wait must be a duration such as 500ms, 1s or 250 (milliseconds), not " + Values.quote(v));
        }
        long n = Long.parseLong(m.group(1));
        return "s".equals(m.group(2)) ? java.time.Duration.ofSeconds(n) : java.time.Duration.ofMillis(n);
    }

    static Map<String, Object> body(IndexReader.Page page) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", page.items());
        body.put("next", page.next());
        if (page.asOf() != null) {
            body.put("as_of", page.asOf().toString()); // the moment the answer is as of (docs/design.md section 8)
        }
        return body;
    }

    private static boolean bool(Map<String, String> params, String name) {
        String v = params.get(name);
        if (v == null) {
            return false;
        }
        return switch (v) {
            case "true" -> true;
            case "false" -> false;
            default -> throw HttpError.badRequest("bad_parameter", name + " must be true or false, not " + Values.quote(v));
        };
    }
}
