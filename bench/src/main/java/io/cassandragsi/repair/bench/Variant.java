package io.cassandragsi.repair.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One way of maintaining (or not) an index on the same base table, measured by {@code gsi bench
 * write}: the versioned table {@code revisions}, or for the {@code -u} variants the unversioned
 * table {@code items} (the same columns without the tid, so every write of an existing key
 * overwrites it). Each variant has its own keyspace, so their tables, memtables and compactions do
 * not mix. {@link BenchSchema} owns the CQL of each.
 */
enum Variant {
    UNINDEXED("unindexed", true, "versioned base table, no trigger, no index"),
    GSI_1("gsi-1", true, "our trigger, 1 secondary index (hash a, projects value), work-queue marker per write"),
    GSI_3("gsi-3", true, "our trigger, 3 secondary indexes (on a, b, c, each projects value), marker per write"),
    /**
     * gsi-1 with its whole cost: the repair service runs in its own JVM (as {@code ./gsi serve}) on
     * the same machine, and the phase lasts until the service has drained what it was given, so
     * writes/s is the rate the index sustains with its maintenance included.
     */
    GSI_1_E2E("gsi-1-e2e", true, "gsi-1 with the repair service in its own JVM; the phase ends when its backlog is drained"),
    GSI_3_E2E("gsi-3-e2e", true, "gsi-3 with the repair service in its own JVM; the phase ends when its backlog is drained"),
    /**
     * gsi-1-e2e with the table in node mode (docs/design.md section 7): the coordinator's in-node
     * maintainer does the plain diffs, the repair service the rest; the phase lasts until both have
     * drained.
     */
    GSI_1_NODE_E2E("gsi-1-node-e2e", true, "gsi-1 in node mode: the in-node maintainer does the plain diffs, the repair service"
            + " the rest; the phase ends when both have drained"),
    /**
     * gsi-1 in eventual indexing (docs/design.md section 7.11): the trigger adds nothing to the write
     * and the coordinator's maintainer writes the entries and does the diffs after it. The write
     * alone: the phase ends with the writes, and the maintainer's backlog is drained before the next
     * phase, uncounted.
     */
    GSI_1_EVENTUAL("gsi-1-eventual", true, "gsi-1 in eventual indexing: nothing added to the write, the in-node maintainer writes"
            + " the entries after it; the write alone"),
    GSI_1_EVENTUAL_E2E("gsi-1-eventual-e2e", true, "gsi-1-eventual with the repair service in its own JVM; the phase ends when the"
            + " maintainer and the service have drained"),
    MV("mv", true, "1 materialized view keyed by a (selects value)"),
    MV_3("mv-3", true, "3 materialized views keyed by a, b and c"),
    SAI("sai", true, "1 SAI index on a (CREATE INDEX ... USING 'sai')"),
    LOGGED_BATCH("logged-batch", true, "client-side LOGGED batch: base row + one row in an index table keyed by a"),
    UNINDEXED_U("unindexed-u", true, "unversioned base table (key primary key, no tid), no trigger, no index"),
    GSI_1_U("gsi-1-u", true, "unversioned table, our trigger, 1 secondary index (hash a, projects value): entry cells mirroring"
            + " the base's, a rows-table row, work-queue marker per write"),
    MV_U("mv-u", true, "unversioned table, 1 materialized view keyed by a (selects value)"),
    GSI_1_U_NODE_E2E("gsi-1-u-node-e2e", true, "gsi-1-u in node mode: the in-node maintainer reconciles plain writes, the repair"
            + " service the rest; the phase ends when both have drained"),
    GSI_1_U_EVENTUAL_E2E("gsi-1-u-eventual-e2e", true, "gsi-1-u in eventual indexing with the repair service; the phase ends when"
            + " the maintainer and the service have drained"),
    GSI_1_U_E2E("gsi-1-u-e2e", false, "gsi-1-u with the repair service in its own JVM; the phase ends when its backlog is drained"),
    /**
     * A profiling aid, not in the default set: the trigger is installed but the keyspace has no
     * index tables, so it compiles to "nothing to do" and returns nothing; the write stays off the
     * batchlog. The difference to {@link #UNINDEXED} is the price of merely having a trigger.
     */
    TRIGGER_ONLY("trigger-only", false, "our trigger installed, no index tables: it returns nothing (profiling aid)"),
    /**
     * A profiling aid, not in the default set: the client writes in one LOGGED batch exactly what
     * gsi-1's batch holds, without a trigger, into tables like gsi-1's: the base row together with
     * the row of the rows table that records the entry's key in {@code _keys} (same partition,
     * so one mutation, as the trigger's rows-table row joins the base write's), the index entry
     * (row marker, {@code value} and {@code _tid} at TS(tid), no {@code _deleted}), and a marker row
     * in a queue-shaped table with a TTL. gsi-1 minus this is the price of the trigger itself; this
     * minus logged-batch is the price of the rows table and the marker.
     */
    BATCH_AS_TRIGGER("batch-as-trigger", false,
            "client-side LOGGED batch of what gsi-1's batch holds: base + rows-table row, entry, marker (profiling aid)"),
    /**
     * A profiling aid on the unversioned table, not in the default set: the client writes the base
     * row and the row gsi-1-u's trigger adds to the rows table ({@code _keys} element and {@code _w}
     * at the write's timestamp) in one single-partition UNLOGGED batch, which Cassandra applies as
     * one mutation, as the trigger's rows-table row joins the base write's. This minus unindexed-u
     * is the price of the rows table on the write path.
     */
    ROWS_TABLE_U("rows-table-u", false, "unversioned table: base row + rows-table row in one mutation, no trigger (profiling aid)"),
    /**
     * A profiling aid on the unversioned table, not in the default set: one client LOGGED batch of
     * what gsi-1-u's trigger adds (the rows-table row, the entry's cells at the base's timestamp
     * x10 and a marker in a queue-shaped table) without a trigger. gsi-1-u minus this is the price
     * of the trigger itself; this minus rows-table-u is the price of the entry, the marker and the
     * batchlog.
     */
    BATCH_AS_TRIGGER_U("batch-as-trigger-u", false,
            "unversioned table: client LOGGED batch of base row, rows-table row, entry cells and marker (profiling aid)");

    private final String label;
    private final boolean byDefault;
    private final String description;

    Variant(String label, boolean byDefault, String description) {
        this.label = label;
        this.byDefault = byDefault;
        this.description = description;
    }

    /** The name on the command line, in the printed table and in write.json. */
    String label() {
        return label;
    }

    String description() {
        return description;
    }

    /** True for the variants on the unversioned table ({@code -u}). */
    boolean unversioned() {
        return label.endsWith("-u") || label.contains("-u-");
    }

    /** True for the variants whose table is in node mode: the in-node maintainer does the plain diffs. */
    boolean nodeMode() {
        return this == GSI_1_NODE_E2E || this == GSI_1_U_NODE_E2E || eventual();
    }

    /** True for the variants whose table is in eventual indexing (in node mode too). */
    boolean eventual() {
        return this == GSI_1_EVENTUAL || this == GSI_1_EVENTUAL_E2E || this == GSI_1_U_EVENTUAL_E2E;
    }

    /** True for the variants with our trigger and index tables. */
    boolean indexedByTrigger() {
        return this == GSI_1 || this == GSI_3 || this == GSI_1_U || this == GSI_1_EVENTUAL || e2e();
    }

    /** True for the variants measured with the repair service running and drained ({@code -e2e}). */
    boolean e2e() {
        return this == GSI_1_E2E || this == GSI_3_E2E || this == GSI_1_U_E2E || this == GSI_1_NODE_E2E || this == GSI_1_U_NODE_E2E
                || this == GSI_1_EVENTUAL_E2E || this == GSI_1_U_EVENTUAL_E2E;
    }

    /** What the ratio column compares with: the unindexed variant on the same table. */
    Variant unindexed() {
        return unversioned() ? UNINDEXED_U : UNINDEXED;
    }

    /** The variant's own keyspace, e.g. {@code bench_gsi_1}. */
    String keyspace() {
        return "bench_" + label.replace('-', '_');
    }

    /** The variants measured when {@code --variants} is not given, in the order of a round. */
    static List<Variant> defaults() {
        return Arrays.stream(values()).filter(v -> v.byDefault).toList();
    }

    static Variant byLabel(String label) {
        String wanted = label.strip().toLowerCase(Locale.ROOT);
        for (Variant v : values()) {
            if (v.label.equals(wanted)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown variant '" + label.strip() + "' (variants: " + allLabels() + ")");
    }

    /**
     * A comma-separated list of variant names, in the order given (the order of a round).
     *
     * @throws IllegalArgumentException for an unknown or repeated name, or an empty list
     */
    static List<Variant> parseList(String csv) {
        List<Variant> out = new ArrayList<>();
        for (String part : csv.split(",", -1)) {
            if (part.isBlank()) {
                throw new IllegalArgumentException("empty variant name in '" + csv + "' (variants: " + allLabels() + ")");
            }
            Variant v = byLabel(part);
            if (out.contains(v)) {
                throw new IllegalArgumentException("variant '" + v.label + "' is listed twice");
            }
            out.add(v);
        }
        return out;
    }

    static String allLabels() {
        return Arrays.stream(values()).map(Variant::label).collect(Collectors.joining(", "));
    }
}
