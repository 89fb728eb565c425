package io.cassandragsi.repair.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The summary of a write benchmark: per variant, the mean writes/s over the measured rounds, the
 * ratio to the unindexed variant on the same table ({@code unindexed}, or {@code unindexed-u} for
 * the {@code -u} variants) paired by round (each round's ratio, then their geometric mean), and
 * node CPU per write (all CPU over all writes of the measured rounds); then the design's targets and
 * the unversioned table's comparisons. Pure: formats the table and {@code write.json} from
 * {@link PhaseResult}s.
 */
final class WriteReport {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Writes/s of one variant over another's, paired by round. */
    record Comparison(Variant variant, Variant over) {
        String label() {
            return variant.label() + " / " + over.label();
        }
    }

    /** The targets (docs/performance.md, Method): numerator over denominator, minimum ratio. */
    record Target(Comparison comparison, double minimum) {}

    static final List<Target> TARGETS = List.of(
            new Target(new Comparison(Variant.GSI_1, Variant.MV), 1.0),
            new Target(new Comparison(Variant.GSI_3, Variant.MV_3), 1.5),
            // issue 14: the whole cost of an indexed write, the repair service's work included
            new Target(new Comparison(Variant.GSI_1_E2E, Variant.MV), 0.4),
            // issue 23: the whole cost with the plain diffs in the node
            new Target(new Comparison(Variant.GSI_1_NODE_E2E, Variant.MV), 0.4),
            new Target(new Comparison(Variant.GSI_1_U_NODE_E2E, Variant.MV_U), 0.4),
            // issue 34: eventual indexing, the write alone near an unindexed write, and end to end against the view
            new Target(new Comparison(Variant.GSI_1_EVENTUAL, Variant.UNINDEXED), 0.9),
            new Target(new Comparison(Variant.GSI_1_EVENTUAL_E2E, Variant.MV), 0.8),
            new Target(new Comparison(Variant.GSI_1_U_EVENTUAL_E2E, Variant.MV_U), 0.5),
            // issue 14: the trigger's own work near free next to a client batch of the same mutations
            new Target(new Comparison(Variant.GSI_1, Variant.BATCH_AS_TRIGGER), 0.95));

    /**
     * Ratios printed without a target (issue 12): gsi-1-u against its unindexed table and its view,
     * then what the unversioned table costs against the versioned one, indexed and not.
     */
    static final List<Comparison> COMPARISONS = List.of(
            new Comparison(Variant.GSI_3_E2E, Variant.MV_3),
            new Comparison(Variant.GSI_1_E2E, Variant.GSI_1),
            new Comparison(Variant.GSI_1_NODE_E2E, Variant.GSI_1),
            new Comparison(Variant.GSI_1_NODE_E2E, Variant.GSI_1_E2E),
            new Comparison(Variant.GSI_1_EVENTUAL_E2E, Variant.GSI_1_NODE_E2E),
            new Comparison(Variant.GSI_1_U_EVENTUAL_E2E, Variant.GSI_1_U_NODE_E2E),
            new Comparison(Variant.GSI_1_U_NODE_E2E, Variant.GSI_1_U),
            new Comparison(Variant.GSI_1_U, Variant.UNINDEXED_U),
            new Comparison(Variant.GSI_1_U, Variant.MV_U),
            new Comparison(Variant.GSI_1_U, Variant.GSI_1),
            new Comparison(Variant.UNINDEXED_U, Variant.UNINDEXED));

    /**
     * One variant over the measured rounds.
     *
     * @param ratio geometric mean over rounds of writes/s divided by that of {@link Variant#unindexed()}
     *     in the same round; empty when that was not measured
     */
    record Summary(
            Variant variant,
            int rounds,
            long writes,
            long errors,
            double writesPerSecond,
            OptionalDouble ratio,
            OptionalDouble ratioMin,
            OptionalDouble ratioMax,
            double nodeCpuUsPerWrite,
            double flushNodeCpuUsPerWrite,
            double clientCpuUsPerWrite,
            double serviceCpuUsPerWrite,
            double serviceIdleCpuUsPerWrite,
            double drainSeconds) {}

    private final List<Variant> variants;
    private final List<PhaseResult> measured;
    private final List<PhaseResult> all;
    private final Map<String, Object> config;
    private final List<Summary> summaries;

    private WriteReport(List<Variant> variants, List<PhaseResult> phases, Map<String, Object> config) {
        this.variants = List.copyOf(variants);
        this.all = List.copyOf(phases);
        this.measured = phases.stream().filter(p -> !p.warmup()).toList();
        this.config = new LinkedHashMap<>(config);
        List<Summary> out = new ArrayList<>();
        for (Variant v : variants) {
            out.add(summarise(v));
        }
        this.summaries = List.copyOf(out);
    }

    /**
     * @param variants the variants in the order of a round (the order of the table)
     * @param phases every phase run, warm-up included (round 0)
     * @param config what the run was configured with, copied into {@code write.json}
     */
    static WriteReport of(List<Variant> variants, List<PhaseResult> phases, Map<String, Object> config) {
        return new WriteReport(variants, phases, config);
    }

    List<Summary> summaries() {
        return summaries;
    }

    Optional<Summary> summary(Variant v) {
        return summaries.stream().filter(s -> s.variant() == v).findFirst();
    }

    private Summary summarise(Variant v) {
        List<PhaseResult> phases = measured.stream().filter(p -> p.variant() == v).toList();
        long writes = phases.stream().mapToLong(PhaseResult::writes).sum();
        long errors = phases.stream().mapToLong(PhaseResult::errors).sum();
        double wps = phases.stream().mapToDouble(PhaseResult::writesPerSecond).average().orElse(0);
        List<Double> ratios = roundRatios(v, v.unindexed());
        double node = phases.stream().mapToLong(PhaseResult::nodeCpuNanos).sum();
        double flush = phases.stream().mapToLong(PhaseResult::flushNodeCpuNanos).sum();
        double client = phases.stream().mapToLong(PhaseResult::clientCpuNanos).sum();
        double service = phases.stream().mapToLong(PhaseResult::serviceCpuNanos).sum();
        double serviceIdle = phases.stream().mapToLong(PhaseResult::serviceIdleCpuNanos).sum();
        double drain = phases.stream().mapToDouble(PhaseResult::drainSeconds).average().orElse(0);
        return new Summary(v, phases.size(), writes, errors, wps,
                geometricMean(ratios),
                ratios.stream().mapToDouble(Double::doubleValue).min(),
                ratios.stream().mapToDouble(Double::doubleValue).max(),
                perWrite(node, writes), perWrite(flush, writes), perWrite(client, writes),
                v.e2e() ? perWrite(service, writes) : Double.NaN, v.e2e() ? perWrite(serviceIdle, writes) : Double.NaN, v.e2e() ? drain : Double.NaN);
    }

    /** Writes/s of {@code v} over that of {@code over}, for each measured round that has both with writes. */
    List<Double> roundRatios(Variant v, Variant over) {
        List<Double> out = new ArrayList<>();
        measured.stream().mapToInt(PhaseResult::round).distinct().sorted().forEach(round -> {
            Optional<PhaseResult> a = phase(v, round);
            Optional<PhaseResult> b = phase(over, round);
            if (a.isPresent() && b.isPresent() && b.get().writesPerSecond() > 0) {
                out.add(a.get().writesPerSecond() / b.get().writesPerSecond());
            }
        });
        return out;
    }

    /** The round-paired ratio of two variants (geometric mean), empty when they share no round. */
    OptionalDouble pairedRatio(Variant v, Variant over) {
        return geometricMean(roundRatios(v, over));
    }

    OptionalDouble pairedRatio(Comparison c) {
        return pairedRatio(c.variant(), c.over());
    }

    private Optional<PhaseResult> phase(Variant v, int round) {
        return measured.stream().filter(p -> p.variant() == v && p.round() == round).findFirst();
    }

    static OptionalDouble geometricMean(List<Double> values) {
        if (values.isEmpty()) {
            return OptionalDouble.empty();
        }
        double logSum = 0;
        for (double x : values) {
            if (x <= 0) {
                return OptionalDouble.of(0);
            }
            logSum += Math.log(x);
        }
        return OptionalDouble.of(Math.exp(logSum / values.size()));
    }

    private static double perWrite(double nanos, long writes) {
        return writes == 0 ? Double.NaN : nanos / 1000.0 / writes;
    }

    // --- the printed table ---------------------------------------------------------------------

    /** The table printed at the end: one line per variant, then the design targets and the comparisons. */
    String table() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%-18s %10s %7s %13s %10s %11s %11s %12s %9s %8s %8s%n",
                "variant", "writes/s", "ratio", "ratio range", "node us/w", "+flush us/w", "client us/w", "service us/w", "idle us/w", "drain s",
                "errors"));
        for (Summary s : summaries) {
            sb.append(String.format(Locale.ROOT, "%-18s %10s %7s %13s %10s %11s %11s %12s %9s %8s %8d%n",
                    s.variant().label(),
                    String.format(Locale.ROOT, "%,.0f", s.writesPerSecond()),
                    fixed(s.ratio(), 3),
                    s.ratioMin().isPresent() && s.rounds() > 1
                            ? fixed(s.ratioMin(), 2) + "-" + fixed(s.ratioMax(), 2) : "",
                    fixed(s.nodeCpuUsPerWrite(), 1),
                    fixed(s.flushNodeCpuUsPerWrite(), 1),
                    fixed(s.clientCpuUsPerWrite(), 1),
                    fixed(s.serviceCpuUsPerWrite(), 1),
                    fixed(s.serviceIdleCpuUsPerWrite(), 1),
                    fixed(s.drainSeconds(), 1),
                    s.errors()));
        }
        if (variants.stream().anyMatch(Variant::e2e)) {
            sb.append("(-e2e: the repair service runs in its own JVM on this machine; a phase lasts until it has drained its backlog,"
                    + " writes/s counts that time, and node us/w includes the node's work for the service; idle us/w: the part of service us/w"
                    + " its CPU rate with no writes, measured before the phase, comes to over the phase)").append(System.lineSeparator());
        }
        if (variants.stream().anyMatch(Variant::unversioned)) {
            sb.append("(ratio: to unindexed in the same round; for the -u variants to unindexed-u)").append(System.lineSeparator());
        }
        for (String line : targetLines()) {
            sb.append(line).append(System.lineSeparator());
        }
        for (String line : comparisonLines()) {
            sb.append(line).append(System.lineSeparator());
        }
        return sb.toString();
    }

    /** One line per comparison whose two variants were both measured, with the range over rounds. */
    List<String> comparisonLines() {
        List<String> out = new ArrayList<>();
        for (Comparison c : COMPARISONS) {
            List<Double> rounds = roundRatios(c.variant(), c.over());
            OptionalDouble r = geometricMean(rounds);
            if (r.isPresent()) {
                String range = rounds.size() < 2 ? "" : String.format(Locale.ROOT, " (rounds %.2f-%.2f)",
                        rounds.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
                        rounds.stream().mapToDouble(Double::doubleValue).max().orElseThrow());
                out.add(String.format(Locale.ROOT, "%s = %.2f%s", c.label(), r.getAsDouble(), range));
            }
        }
        return out;
    }

    /** One line per design target whose two variants were both measured. */
    List<String> targetLines() {
        List<String> out = new ArrayList<>();
        for (Target t : TARGETS) {
            OptionalDouble r = pairedRatio(t.comparison());
            if (r.isPresent()) {
                out.add(String.format(Locale.ROOT, "%s = %.2f (target >= %.2f: %s)", t.comparison().label(), r.getAsDouble(), t.minimum(),
                        r.getAsDouble() >= t.minimum() ? "met" : "NOT met"));
            }
        }
        return out;
    }

    /** The progress line printed after each phase. */
    static String progressLine(PhaseResult p, int rounds) {
        String round = p.warmup() ? "warm-up  " : String.format(Locale.ROOT, "round %d/%d", p.round(), rounds);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT,
                "%s %-18s %9s writes/s  node %6s us/w  flush+settle %4.1f s  other load %s cores",
                round, p.variant().label(), String.format(Locale.ROOT, "%,.0f", p.writesPerSecond()),
                fixed(p.nodeCpuUsPerWrite(), 1), p.flushSeconds(), fixed(p.otherBusyCores(), 2)));
        if (p.variant().e2e()) {
            sb.append(String.format(Locale.ROOT, "  service %s us/w (idle %s), drained in %.1f s", fixed(p.serviceCpuUsPerWrite(), 1),
                    fixed(p.serviceIdleCpuUsPerWrite(), 1), p.drainSeconds()));
        }
        if (p.variant().nodeMode()) {
            sb.append(String.format(Locale.ROOT, "  node took %,d, handed off %s", p.nodeTaken(), percent(p.handedOffShare())));
        }
        if (p.digestMismatches() > 0) {
            sb.append(String.format(Locale.ROOT, "  digest mismatches %,d", p.digestMismatches()));
        }
        if (!p.settled()) {
            sb.append("  (compactions still running)");
        }
        if (p.errors() > 0) {
            sb.append(String.format(Locale.ROOT, "  errors %d (first: %s)", p.errors(), p.firstError()));
        }
        return sb.toString();
    }

    private static String fixed(OptionalDouble v, int decimals) {
        return v.isPresent() ? fixed(v.getAsDouble(), decimals) : "-";
    }

    private static String fixed(double v, int decimals) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }

    // --- write.json ----------------------------------------------------------------------------

    /**
     * {@code {"variants":[{"name", "writes_per_s", "ratio", "ratio_to", "cpu_us_per_write", ...}],
     * "targets": [...], "ratios": [...], "config": {...}, "phases": [...]}}; numbers are rounded,
     * unknown values are null.
     */
    ObjectNode json() {
        ObjectNode root = MAPPER.createObjectNode();
        ArrayNode vs = root.putArray("variants");
        for (Summary s : summaries) {
            ObjectNode n = vs.addObject();
            n.put("name", s.variant().label());
            put(n, "writes_per_s", s.writesPerSecond(), 1);
            put(n, "ratio", s.ratio(), 3);
            n.put("ratio_to", s.variant().unindexed().label());
            put(n, "cpu_us_per_write", s.nodeCpuUsPerWrite(), 1);
            put(n, "ratio_min", s.ratioMin(), 3);
            put(n, "ratio_max", s.ratioMax(), 3);
            put(n, "flush_cpu_us_per_write", s.flushNodeCpuUsPerWrite(), 1);
            put(n, "client_cpu_us_per_write", s.clientCpuUsPerWrite(), 1);
            put(n, "service_cpu_us_per_write", s.serviceCpuUsPerWrite(), 1);
            put(n, "service_idle_cpu_us_per_write", s.serviceIdleCpuUsPerWrite(), 1);
            put(n, "drain_seconds", s.drainSeconds(), 2);
            n.put("writes", s.writes());
            n.put("errors", s.errors());
            n.put("rounds", s.rounds());
            n.put("description", s.variant().description());
        }
        ArrayNode targets = root.putArray("targets");
        for (Target t : TARGETS) {
            OptionalDouble r = pairedRatio(t.comparison());
            if (r.isPresent()) {
                ObjectNode n = targets.addObject();
                n.put("name", t.comparison().label());
                put(n, "ratio", r, 3);
                n.put("minimum", t.minimum());
                n.put("met", r.getAsDouble() >= t.minimum());
            }
        }
        ArrayNode ratios = root.putArray("ratios");
        for (Comparison c : COMPARISONS) {
            List<Double> rounds = roundRatios(c.variant(), c.over());
            if (!rounds.isEmpty()) {
                ObjectNode n = ratios.addObject();
                n.put("name", c.label());
                put(n, "ratio", geometricMean(rounds), 3);
                put(n, "ratio_min", rounds.stream().mapToDouble(Double::doubleValue).min(), 3);
                put(n, "ratio_max", rounds.stream().mapToDouble(Double::doubleValue).max(), 3);
            }
        }
        root.set("config", MAPPER.valueToTree(config));
        ArrayNode phases = root.putArray("phases");
        for (PhaseResult p : all) {
            ObjectNode n = phases.addObject();
            n.put("variant", p.variant().label());
            n.put("round", p.round());
            n.put("warmup", p.warmup());
            n.put("started", p.started().toString());
            n.put("ended", p.ended().toString());
            put(n, "seconds", p.seconds(), 2);
            n.put("writes", p.writes());
            n.put("errors", p.errors());
            put(n, "writes_per_s", p.writesPerSecond(), 1);
            put(n, "cpu_us_per_write", p.nodeCpuUsPerWrite(), 1);
            put(n, "flush_cpu_us_per_write", p.flushNodeCpuUsPerWrite(), 1);
            put(n, "flush_seconds", p.flushSeconds(), 2);
            n.put("settled", p.settled());
            put(n, "client_cpu_us_per_write", p.clientCpuUsPerWrite(), 1);
            if (p.variant().e2e()) {
                put(n, "service_cpu_us_per_write", p.serviceCpuUsPerWrite(), 1);
                put(n, "service_idle_cpu_us_per_write", p.serviceIdleCpuUsPerWrite(), 1);
                put(n, "drain_seconds", p.drainSeconds(), 2);
            }
            if (p.variant().nodeMode()) {
                n.put("node_taken", p.nodeTaken());
                n.put("node_handed_off", p.nodeHandedOff());
            }
            put(n, "machine_busy_cores", p.machineBusyCores(), 2);
            put(n, "other_busy_cores", p.otherBusyCores(), 2);
            n.put("digest_mismatches", p.digestMismatches());
            if (p.firstError() != null) {
                n.put("first_error", p.firstError());
            }
        }
        return root;
    }

    String jsonText() {
        try {
            return MAPPER.writeValueAsString(json()) + System.lineSeparator();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void put(ObjectNode n, String field, OptionalDouble v, int decimals) {
        if (v.isPresent()) {
            put(n, field, v.getAsDouble(), decimals);
        } else {
            n.putNull(field);
        }
    }

    private static void put(ObjectNode n, String field, double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            n.putNull(field);
        } else {
            n.put(field, java.math.BigDecimal.valueOf(v).setScale(decimals, java.math.RoundingMode.HALF_UP));
        }
    }

    List<Variant> variants() {
        return variants;
    }

    /** A share as a percentage with two decimals, or "-" for NaN. */
    static String percent(double share) {
        return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.2f %%", share * 100);
    }
}
