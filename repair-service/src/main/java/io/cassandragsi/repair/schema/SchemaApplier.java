package io.cassandragsi.repair.schema;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.repair.config.CassandraUnavailableException;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.CqlGenerator.Statement;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code schema apply}: reads and validates every definition, reads the live schema, plans with
 * {@link SchemaPlanner}, and either prints the plan ({@code dryRun}) or executes it and waits for
 * schema agreement. Nothing is executed when any definition or any part of the plan is refused.
 */
public final class SchemaApplier {
    public static final String DEFAULT_REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";
    private static final Pattern REPLICATION = Pattern.compile("\\{\\s*'class'\\s*:.*}", Pattern.DOTALL);
    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration AGREEMENT_TIMEOUT = Duration.ofSeconds(60);

    private final GsiConfig config;
    private final PrintWriter out;
    private final PrintWriter err;

    public SchemaApplier(GsiConfig config, PrintWriter out, PrintWriter err) {
        this.config = config;
        this.out = out;
        this.err = err;
    }

    /** What happened: the plan, and whether it was executed. */
    public record Result(Plan plan, boolean executed) {}

    /** Reads every file; throws one exception listing every invalid definition. */
    public static List<TableDef> readDefinitions(List<Path> files) {
        List<TableDef> defs = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (Path file : files) {
            try {
                defs.add(Definitions.read(file));
            } catch (DefinitionException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new SchemaApplyException(problems, "; nothing was changed");
        }
        return defs;
    }

    public static String checkReplication(String replication) {
        if (replication == null || !REPLICATION.matcher(replication.trim()).matches()) {
            throw new IllegalArgumentException("--replication must be a CQL map like " + DEFAULT_REPLICATION + ", got: " + replication);
        }
        return replication.trim();
    }

    /** Applies (or with {@code dryRun} prints) definition files against the cluster in the config. */
    public Result apply(List<Path> files, String replication, boolean dryRun) {
        checkReplication(replication);
        List<TableDef> defs = readDefinitions(files);
        CqlSession session;
        try {
            session = CqlSessions.open(config);
        } catch (CassandraUnavailableException e) {
            if (!dryRun) {
                throw e;
            }
            Plan plan = plan(defs, LiveSchema.empty(), replication);
            out.println("-- schema apply --dry-run: " + describe(defs) + "; nothing is executed");
            out.println("-- " + e.getMessage());
            out.println("-- the cluster was not reached, so this is the full create plan (for a cluster that has none of it)");
            out.println();
            printDryRun(plan, List.of());
            return new Result(plan, false);
        }
        try (session) {
            return apply(session, defs, replication, dryRun);
        }
    }

    /** Applies (or prints) definitions over an open session. */
    public Result apply(CqlSession session, List<TableDef> defs, String replication, boolean dryRun) {
        checkReplication(replication);
        Set<String> keyspaces = new LinkedHashSet<>();
        keyspaces.add(config.projectKeyspace());
        defs.forEach(d -> keyspaces.add(d.keyspace()));
        LiveSchema live = LiveSchemaReader.read(session, keyspaces);
        Plan plan = plan(defs, live, replication);
        List<Plan.RebuildCandidate> rebuild = new ArrayList<>();
        for (Plan.RebuildCandidate c : plan.rebuildCandidates()) {
            if (holdsRows(session, c)) {
                rebuild.add(c);
            }
        }
        if (dryRun) {
            out.println("-- schema apply --dry-run: " + describe(defs) + " against the cluster at " + contactPoints()
                    + "; nothing is executed");
            out.println();
            printDryRun(plan, rebuild);
            return new Result(plan, false);
        }
        plan.warnings().forEach(w -> err.println("warning: " + w));
        if (plan.isEmpty()) {
            out.println("nothing to do: the schema already matches " + describe(defs));
            return new Result(plan, false);
        }
        out.println("applying " + describe(defs) + ": " + plan.statements().size() + " statement(s)");
        int done = 0;
        for (Statement s : plan.statements()) {
            out.println("  " + s.purpose());
            try {
                session.execute(SimpleStatement.newInstance(s.cql()).setTimeout(DDL_TIMEOUT));
            } catch (DriverException e) {
                throw new SchemaApplyException(failure(s, e, done), e);
            }
            done++;
        }
        if (waitForSchemaAgreement(session)) {
            out.println("done: " + done + " statement(s) executed, all nodes agree on the schema");
        } else {
            err.println("warning: " + done + " statement(s) executed, but the nodes did not agree on the schema within "
                    + AGREEMENT_TIMEOUT.toSeconds() + " s; some nodes may not see the changes yet");
        }
        for (Plan.RebuildCandidate c : rebuild) {
            out.println("note: " + rebuildNote(c));
        }
        return new Result(plan, true);
    }

    private Plan plan(List<TableDef> defs, LiveSchema live, String replication) {
        Plan plan = SchemaPlanner.plan(defs, live, config.projectKeyspace(), replication, config.queue().settings());
        if (plan.hasErrors()) {
            throw new SchemaApplyException(plan.errors(), "; nothing was changed");
        }
        return plan;
    }

    private void printDryRun(Plan plan, List<Plan.RebuildCandidate> rebuild) {
        plan.warnings().forEach(w -> out.println("-- warning: " + w));
        if (plan.isEmpty()) {
            out.println("-- nothing to do: the schema already matches the definitions");
            return;
        }
        for (Statement s : plan.statements()) {
            out.println("-- " + s.purpose());
            out.println(s.cql());
            out.println();
        }
        for (Plan.RebuildCandidate c : rebuild) {
            out.println("-- note: after applying, " + rebuildNote(c));
        }
    }

    private static String rebuildNote(Plan.RebuildCandidate c) {
        return c.keyspace() + "." + c.table() + " holds rows that index " + c.index() + " lacks (" + c.reason() + "): run "
                + c.command();
    }

    private boolean holdsRows(CqlSession session, Plan.RebuildCandidate c) {
        String cql = "SELECT " + Cql.quote(c.firstPartitionKeyColumn()) + " FROM " + Cql.qualified(c.keyspace(), c.table()) + " LIMIT 1";
        try {
            return session.execute(SimpleStatement.newInstance(cql).setConsistencyLevel(DefaultConsistencyLevel.LOCAL_ONE))
                    .one() != null;
        } catch (DriverException e) {
            err.println("warning: could not check whether " + c.keyspace() + "." + c.table() + " holds rows (" + e.getMessage()
                    + "); if it does, run " + c.command() + " after this");
            return false;
        }
    }

    private static boolean waitForSchemaAgreement(CqlSession session) {
        long deadline = System.nanoTime() + AGREEMENT_TIMEOUT.toNanos();
        while (true) {
            if (session.checkSchemaAgreement()) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }

    private static String failure(Statement s, DriverException e, int done) {
        String msg = "'" + s.purpose() + "' failed: " + e.getMessage();
        if (s.cql().startsWith("CREATE TRIGGER")) {
            msg += " (is the trigger jar " + "cassandra-gsi-trigger.jar in every node's triggers directory? after copying it there,"
                    + " run nodetool reloadtriggers on each node)";
        }
        return msg + "; " + done + " earlier statement(s) were applied: fix the cause and run schema apply again (it picks up"
                + " where it stopped)";
    }

    private String contactPoints() {
        return config.cassandra().contactPoints().stream().map(Object::toString).collect(Collectors.joining(", "));
    }

    private static String describe(List<TableDef> defs) {
        if (defs.isEmpty()) {
            return "no definition (the project keyspace alone)";
        }
        List<String> names = new ArrayList<>();
        defs.forEach(d -> names.add(d.qualifiedName()));
        return defs.size() + " definition(s) (" + String.join(", ", names) + ")";
    }

}
