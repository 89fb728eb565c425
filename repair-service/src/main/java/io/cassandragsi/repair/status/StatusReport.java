package io.cassandragsi.repair.status;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What {@code GET /admin/status} says (docs/design.md section 7.7), arranged for people: the
 * service's figures, the Cassandra nodes as the driver sees them, one row per in-node maintainer
 * epoch, one per index, the jobs of this instance, and what the service is waiting for. Pure: built from the status map as the service makes it or as JSON parsed it, and
 * rendered by {@link StatusText} ({@code ./gsi status}) and {@link StatusHtml} ({@code GET /}).
 */
public record StatusReport(List<String[]> service, Table cassandra, Table nodes, Table indexes, Table antiEntropy, Table jobs,
        List<String> waiting, List<String> problems) {

    /** A table: column names and rows of cells, all text. */
    public record Table(List<String> columns, List<List<String>> rows) {}

    /**
     * One part of the report, as both renderings show it: a list of lines (a warning each), pairs
     * of a name and a value, or a table; {@code note} says what it covers (or null), {@code none}
     * what to say when it is empty.
     */
    public record Section(String title, String note, Kind kind, Table table, String none) {
        public enum Kind { WARNINGS, PAIRS, TABLE }
    }

    /** The parts of the report, in the order they are shown. */
    public List<Section> sections() {
        List<List<String>> pairs = service.stream().map(List::of).toList();
        return List.of(new Section("Waiting for", null, Section.Kind.WARNINGS, lines(waiting), "nothing"),
                new Section("Work queue", "this instance", Section.Kind.PAIRS, new Table(List.of(), pairs), "-"),
                new Section("Cassandra nodes", "as the driver sees them", Section.Kind.TABLE, cassandra, "none known"),
                new Section("In-node maintainers", null, Section.Kind.TABLE, nodes, "none (no table in node mode, or none has written yet)"),
                new Section("Indexes", "the safe time; work of this instance since it started", Section.Kind.TABLE, indexes, "none yet"),
                new Section("Anti-entropy", "continuous check --fix, by this instance since it started", Section.Kind.TABLE, antiEntropy,
                        "none (another instance runs it, it has not started yet, or it is off)"),
                new Section("Jobs", "rebuild and check started through this instance", Section.Kind.TABLE, jobs, "none"),
                new Section("Definition problems", null, Section.Kind.WARNINGS, lines(problems), "none"));
    }

    private static Table lines(List<String> lines) {
        return new Table(List.of(), lines.stream().map(List::of).toList());
    }

    /** A maintainer whose heartbeat is older than this is taken for stopped (docs/design.md section 7.9). */
    static final long SILENT_AFTER_MS = 10_000;
    /** A service this far behind is said to be behind. */
    static final long BEHIND_AFTER_MS = 5_000;

    public static StatusReport of(Map<String, ?> status) {
        List<String[]> service = new ArrayList<>();
        service.add(new String[] {"version", text(status.get("version"))});
        service.add(new String[] {"instance", text(status.get("owner"))});
        service.add(new String[] {"queue shards read here", text(status.get("shards"))});
        service.add(new String[] {"lag", millis(status.get("lag_ms"))});
        service.add(new String[] {"retries pending", text(status.get("pending_retries"))});
        service.add(new String[] {"markers read / done", text(status.get("markers_read")) + " / " + text(status.get("markers_done"))});
        service.add(new String[] {"late markers (found by sweeps)", text(status.get("late_markers"))});
        service.add(new String[] {"errors (retried)", text(status.get("errors"))});
        service.add(new String[] {"given up", text(status.get("gave_up"))});
        service.add(new String[] {"conditional writes not applied", text(status.get("cas_not_applied"))});
        Map<?, ?> cdc = map(status.get("cdc_repairs"));
        if (!cdc.isEmpty() && number(cdc.get("pending")) + number(cdc.get("running")) + number(cdc.get("done")) > 0) {
            // the targeted repair of CDC segments nodes lost with writes a stopped maintainer had not indexed (docs/design.md section 7.11)
            service.add(new String[] {"CDC loss repairs pending / running / done", text(cdc.get("pending")) + " / " + text(cdc.get("running")) + " / "
                    + text(cdc.get("done"))});
        }
        service.add(new String[] {"markers of unknown tables", text(status.get("unknown_tables"))});
        List<String> waiting = new ArrayList<>();
        Map<?, ?> safe = map(status.get("safe_time"));
        for (String mode : List.of("service", "node")) {
            Map<?, ?> t = map(safe.get(mode));
            service.add(new String[] {"safe time, tables in " + mode + " mode", t.get("at") == null ? "not known yet (held by " + text(t.get("held_by")) + ")"
                    : text(t.get("at")) + " (" + millis(t.get("lag_ms")) + " behind; held by " + text(t.get("held_by")) + ")"});
            if (t.get("lag_ms") != null && number(t.get("lag_ms")) >= BEHIND_AFTER_MS) {
                waiting.add("the safe time of tables in " + mode + " mode is " + millis(t.get("lag_ms")) + " behind now, held back by "
                        + text(t.get("held_by")));
            }
        }
        if (safe.get("unavailable") != null) {
            waiting.add("as_of=safe is unavailable: " + text(safe.get("unavailable")));
        }
        Collection<?> unowned = list(status.get("unowned_shards"));
        if (!unowned.isEmpty()) {
            waiting.add("queue shard(s) " + text(unowned) + ": no service instance holds the lease (their markers wait, the safe time stops)");
        }
        long lag = number(status.get("lag_ms"));
        if (lag >= BEHIND_AFTER_MS) {
            waiting.add("the service is " + millis(lag) + " behind the newest markers");
        }
        Map<?, ?> triggers = map(status.get("trigger_versions"));
        list(triggers.get("warnings")).forEach(w -> waiting.add(String.valueOf(w)));
        if (triggers.get("error") != null) {
            waiting.add("the nodes' trigger versions could not be read: " + text(triggers.get("error")));
        }
        Map<String, String> triggerOf = new TreeMap<>();
        for (Object o : list(triggers.get("nodes"))) {
            Map<?, ?> t = (Map<?, ?>) o;
            triggerOf.put(text(t.get("node")), text(t.get("version")));
        }
        if (!triggerOf.isEmpty()) {
            List<String> pairs = new ArrayList<>();
            triggerOf.forEach((node, version) -> pairs.add(node + " " + version));
            service.add(new String[] {"trigger jars (node version)", String.join(", ", pairs)});
        }
        List<List<String>> cassandraRows = new ArrayList<>();
        for (Object o : list(status.get("cassandra"))) {
            Map<?, ?> c = (Map<?, ?>) o;
            cassandraRows.add(List.of(text(c.get("address")), text(c.get("datacenter")), text(c.get("state"))));
            if (!"UP".equals(c.get("state"))) {
                waiting.add("Cassandra node " + text(c.get("address")) + " is " + text(c.get("state"))
                        + " (as the driver sees it): requests at LOCAL_QUORUM need a majority of each partition's replicas");
            }
        }
        List<List<String>> nodeRows = new ArrayList<>();
        for (Object o : list(status.get("nodes"))) {
            Map<?, ?> n = (Map<?, ?>) o;
            String node = text(n.get("node"));
            long heartbeat = number(n.get("heartbeat_age_ms"));
            String state = text(n.get("state"));
            boolean ended = "running".equals(state) && heartbeat >= SILENT_AFTER_MS && "done".equals(text(n.get("sweep")));
            nodeRows.add(List.of(node, ended ? "ended (swept)" : state, millis(heartbeat) + " ago", millis(n.get("lag_ms")), text(n.get("queued")), text(n.get("done")),
                    text(n.get("handed_off")), text(n.get("retried")), text(n.get("sweep"))));
            String cdcRepair = text(n.get("cdc_repair"));
            if ("pending".equals(cdcRepair) || "running".equals(cdcRepair)) {
                waiting.add("node " + node + ": Cassandra dropped " + text(n.get("cdc_segments_lost")) + " CDC segment(s) holding writes a stopped"
                        + " maintainer had not indexed: the service's check --fix of the node's ranges (" + cdcRepair + "); the safe time waits");
            } else if ("waiting".equals(cdcRepair)) {
                waiting.add("node " + node + ": Cassandra dropped " + text(n.get("cdc_segments_lost")) + " CDC segment(s) before its maintainers"
                        + " had passed them (cdc_total_space full): harmless once they pass, repaired by the service if one stops first");
            }
            if ("running".equals(state) && heartbeat >= SILENT_AFTER_MS && !ended) {
                waiting.add("node " + node + ": its maintainer has been silent for " + millis(heartbeat) + " (the service sweeps its work)");
            }
            if ("due".equals(text(n.get("sweep")))) {
                waiting.add("node " + node + ": the sweep of its stopped maintainer's work (another instance, or this one soon)");
            }
        }
        Map<String, Long> pending = new TreeMap<>();
        map(status.get("pending_by_table")).forEach((table, count) -> pending.put(String.valueOf(table), number(count)));
        pending.forEach((table, count) -> waiting.add(table + ": " + count + " group(s) of markers waiting for another attempt"));
        List<List<String>> indexRows = new ArrayList<>();
        Map<?, ?> safeLag = map(safe.get("lag_ms_by_index"));
        java.util.Set<String> names = new java.util.TreeSet<>();
        map(status.get("indexes")).keySet().forEach(n -> names.add(String.valueOf(n)));
        safeLag.keySet().forEach(n -> names.add(String.valueOf(n)));
        Map<?, ?> buckets = map(status.get("buckets"));
        for (String name : names) {
            Map<?, ?> c = map(map(status.get("indexes")).get(name));
            Map<?, ?> b = map(buckets.get(name));
            String bucketText = b.isEmpty() ? "-"
                    : b.containsKey("error") ? "unknown: " + text(b.get("error"))
                    : text(b.get("period")) + ": " + text(b.get("sealed")) + " sealed, " + text(b.get("not_sealed")) + " not (newest "
                            + text(b.get("newest_sealed")) + ")";
            indexRows.add(List.of(name, safeLag.containsKey(name) ? millis(safeLag.get(name)) : "-", text(c.get("upserted")), text(c.get("marked_deleted")),
                    bucketText));
        }
        Map<?, ?> entropy = map(status.get("anti_entropy"));
        List<List<String>> entropyRows = new ArrayList<>();
        new TreeMap<>(map(entropy.get("tables"))).forEach((table, v) -> {
            Map<?, ?> t = map(v);
            entropyRows.add(List.of(String.valueOf(table), text(t.get("ranges_done")) + " / " + text(t.get("ranges_total")), text(t.get("rows_checked")),
                    text(t.get("missing")) + " / " + text(t.get("stale")) + " / " + text(t.get("orphans")), text(t.get("fixed")),
                    text(t.get("left_to_maintainers")), text(t.get("buckets_differing")) + " / " + text(t.get("buckets_compared")),
                    text(t.get("last_full_pass"))));
        });
        if (String.valueOf(entropy.get("state")).startsWith("paused")) {
            waiting.add("anti-entropy " + text(entropy.get("state")) + " (it tries again every 10 s)");
        }
        if (entropy.get("state") != null) {
            service.add(new String[] {"anti-entropy", text(entropy.get("state"))});
        }
        List<List<String>> jobRows = new ArrayList<>();
        for (Object o : list(status.get("jobs"))) {
            Map<?, ?> j = (Map<?, ?>) o;
            Map<?, ?> p = map(j.get("progress"));
            jobRows.add(List.of(text(j.get("id")), text(j.get("kind")), text(j.get("keyspace")) + "." + text(j.get("table")) + " " + text(j.get("index")),
                    text(j.get("state")), text(p.get("ranges_done")) + " / " + text(p.get("ranges_total")), text(p.get("rows")),
                    text(j.get("error"))));
        }
        List<String> problems = new ArrayList<>();
        new TreeMap<>(map(status.get("definition_problems"))).forEach((table, why) -> problems.add(table + ": " + why));
        return new StatusReport(service, new Table(List.of("address", "datacenter", "state"), cassandraRows),
                new Table(List.of("node", "state", "heartbeat", "lag", "queued", "done", "handed off", "retried", "sweep"), nodeRows),
                new Table(List.of("index", "safe time behind now", "entries upserted", "entries marked deleted", "buckets"), indexRows),
                new Table(List.of("table", "pass: ranges", "rows checked", "missing / stale / orphans", "fixed", "left to maintainers",
                        "buckets differing / compared", "last full pass"), entropyRows),
                new Table(List.of("job", "kind", "index", "state", "ranges", "rows", "error"), jobRows), waiting, problems);
    }

    /** A duration in milliseconds for people: "850 ms", "12.3 s", "4 min 10 s". */
    static String millis(Object ms) {
        if (ms == null) {
            return "-";
        }
        long v = number(ms);
        if (v < 1_000) {
            return v + " ms";
        }
        if (v < 60_000) {
            return String.format(java.util.Locale.ROOT, "%.1f s", v / 1000.0);
        }
        return (v / 60_000) + " min " + (v % 60_000) / 1000 + " s";
    }

    private static String text(Object v) {
        if (v == null) {
            return "-";
        }
        if (v instanceof Collection<?> c) {
            return c.isEmpty() ? "none" : String.join(", ", c.stream().map(String::valueOf).sorted().toList());
        }
        return String.valueOf(v);
    }

    private static long number(Object v) {
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return v == null ? 0 : Long.parseLong(String.valueOf(v));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static Collection<?> list(Object v) {
        return v instanceof Collection<?> c ? c : List.of();
    }

    private static Map<?, ?> map(Object v) {
        return v instanceof Map<?, ?> m ? m : Map.of();
    }
}
