package io.cassandragsi.repair.service;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.servererrors.InvalidQueryException;
import com.datastax.oss.driver.api.core.servererrors.UnauthorizedException;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The permissions the repair service's role needs, and the check that it has them, run when the
 * service starts. Exactly what the service reads and writes:
 *
 * <ul>
 *   <li>SELECT on each indexed base table (diffs, recomputes, consistent reads, check, rebuild);
 *   <li>SELECT and MODIFY on each index table {@code idx_<table>_<index>_ever}, bucket table
 *       {@code idx_<table>_<index>_<period>} and rows table {@code idx_<table>__rows} (entries,
 *       marks, seals, {@code USING TIMESTAMP} writes and deletes);
 *   <li>SELECT and MODIFY on the tables of the project keyspace: it reads the work queue and
 *       queues markers (read repair, follow-ups), and keeps checkpoints, leases (lightweight
 *       transactions), instances and jobs.
 * </ul>
 *
 * Nothing else: no base-table writes, no other keyspace, no schema changes ({@code schema apply}
 * creates every table the service uses, the project keyspace's included). The check lists the role's permissions ({@code LIST ALL PERMISSIONS OF}, which covers
 * the roles granted to it); a grant on a keyspace or on all keyspaces covers what lies under it. A
 * superuser passes; so does every role when the cluster has no authentication or no authorizer.
 */
public final class ServiceGrants {
    private static final Logger LOG = LoggerFactory.getLogger(ServiceGrants.class);
    private static final Pattern LISTED = Pattern.compile("<(all keyspaces|keyspace (.+)|all tables in (.+)|table ([^.]+)\\.(.+))>");
    private static final Pattern PLAIN_NAME = Pattern.compile("[a-z][a-z0-9_]*");

    private ServiceGrants() {}

    /** What a data resource is: Cassandra's levels, each under the one before. */
    public enum Level { ALL_KEYSPACES, KEYSPACE, ALL_TABLES, TABLE }

    /** A data resource as Cassandra lists it ({@code <table ks.t>}, ...). */
    public record Resource(Level level, String keyspace, String table) {
        public static Resource table(String keyspace, String table) {
            return new Resource(Level.TABLE, keyspace, table);
        }

        public static Resource allTables(String keyspace) {
            return new Resource(Level.ALL_TABLES, keyspace, null);
        }

        /** A resource of {@code LIST PERMISSIONS} output; null for roles, functions and MBeans. */
        public static Resource parse(String listed) {
            Matcher m = LISTED.matcher(listed);
            if (!m.matches()) {
                return null;
            }
            if (m.group(2) != null) {
                return new Resource(Level.KEYSPACE, m.group(2), null);
            }
            if (m.group(3) != null) {
                return allTables(m.group(3));
            }
            if (m.group(4) != null) {
                return table(m.group(4), m.group(5));
            }
            return new Resource(Level.ALL_KEYSPACES, null, null);
        }

        /** Whether a permission granted on this resource applies to {@code other} too. */
        public boolean covers(Resource other) {
            return switch (level) {
                case ALL_KEYSPACES -> true;
                case KEYSPACE, ALL_TABLES -> other.level.compareTo(level) >= 0 && keyspace.equals(other.keyspace);
                case TABLE -> equals(other);
            };
        }

        /** The resource in a GRANT statement; all tables of a keyspace are granted on the keyspace. */
        String cql() {
            return switch (level) {
                case ALL_KEYSPACES -> "ALL KEYSPACES";
                case KEYSPACE, ALL_TABLES -> "KEYSPACE " + name(keyspace);
                case TABLE -> "TABLE " + name(keyspace) + "." + name(table);
            };
        }

        @Override
        public String toString() {
            return switch (level) {
                case ALL_KEYSPACES -> "all keyspaces";
                case KEYSPACE, ALL_TABLES -> "keyspace " + keyspace;
                case TABLE -> "table " + keyspace + "." + table;
            };
        }
    }

    /** One permission (SELECT, MODIFY, CREATE, ...) on one resource. */
    public record Grant(String permission, Resource resource) {
        /** The statement a superuser runs to give it to {@code role}. */
        public String cql(String role) {
            return "GRANT " + permission + " ON " + resource.cql() + " TO " + Cql.literal(role);
        }

        @Override
        public String toString() {
            return permission + " on " + resource;
        }
    }

    /** An indexed base table, with the names of its indexes, whether it has a rows table, and its bucket tables. */
    public record IndexedTable(String keyspace, String table, List<String> indexes, boolean rowsTable, List<String> bucketTables) {
        public IndexedTable {
            indexes = List.copyOf(indexes);
            bucketTables = List.copyOf(bucketTables);
        }

        public IndexedTable(String keyspace, String table, List<String> indexes, boolean rowsTable) {
            this(keyspace, table, indexes, rowsTable, List.of());
        }
    }

    private static List<String> bucketTables(TableDef def) {
        return def.indexes().values().stream().map(Index::bucketTableName).filter(java.util.Objects::nonNull).toList();
    }

    /** The indexed tables of definitions (as {@code schema apply} makes them). */
    public static List<IndexedTable> of(Collection<TableDef> definitions) {
        return definitions.stream()
                .map(d -> new IndexedTable(d.keyspace(), d.table(), List.copyOf(d.indexes().keySet()), RowsLayout.needed(d), bucketTables(d)))
                .collect(Collectors.toList());
    }

    /** The indexed tables the live schema describes. */
    public static List<IndexedTable> of(Catalog catalog) {
        List<IndexedTable> out = new ArrayList<>();
        for (Catalog.Indexed t : catalog.tables().values()) {
            List<String> names = t.plan.indexes().stream().map(IndexPlan::index).map(Index::name).collect(Collectors.toList());
            out.add(new IndexedTable(t.definition.keyspace(), t.definition.table(), names, t.records != null, bucketTables(t.definition)));
        }
        return out;
    }

    /** Every grant the service needs, in a stable order: project keyspace first, then table by table. */
    public static List<Grant> required(String projectKeyspace, Collection<IndexedTable> tables) {
        List<Grant> out = new ArrayList<>();
        Resource project = Resource.allTables(projectKeyspace);
        for (String p : List.of("SELECT", "MODIFY")) {
            out.add(new Grant(p, project));
        }
        for (IndexedTable t : tables) {
            out.add(new Grant("SELECT", Resource.table(t.keyspace(), t.table())));
            List<String> written = new ArrayList<>();
            for (String index : t.indexes()) {
                written.add(Index.tableName(t.table(), index));
            }
            if (t.rowsTable()) {
                written.add(RowsLayout.tableName(t.table()));
            }
            written.addAll(t.bucketTables()); // the seals write them (docs/design.md section 9.4)
            for (String w : written) {
                out.add(new Grant("SELECT", Resource.table(t.keyspace(), w)));
                out.add(new Grant("MODIFY", Resource.table(t.keyspace(), w)));
            }
        }
        return out.stream().distinct().collect(Collectors.toList());
    }

    /** The required grants that no granted permission covers, in the order of {@code required}. */
    public static List<Grant> missing(List<Grant> required, Collection<Grant> granted) {
        List<Grant> out = new ArrayList<>();
        for (Grant need : required) {
            boolean covered = granted.stream()
                    .anyMatch(g -> g.permission().equals(need.permission()) && g.resource().covers(need.resource()));
            if (!covered) {
                out.add(need);
            }
        }
        return out;
    }

    /** The one-paragraph refusal: what is missing, and the statements that grant it. */
    public static String refusal(String role, List<Grant> missing) {
        return "role '" + role + "' lacks " + (missing.size() == 1 ? "a grant" : missing.size() + " grants")
                + " the repair service needs: " + missing.stream().map(Grant::toString).collect(Collectors.joining(", "))
                + ". As a superuser: " + missing.stream().map(g -> g.cql(role) + ";").collect(Collectors.joining(" "));
    }

    /**
     * Refuses to go on, with {@link MissingGrantsException}, when {@code username} (the role the
     * session logged in as; null when the config has none, and then nothing is checked) lacks a
     * grant the service needs for the indexed tables of {@code catalog}.
     */
    public static void require(CqlSession session, String username, Catalog catalog, String projectKeyspace) {
        if (username == null) {
            return;
        }
        String role = Cql.literal(username);
        List<Row> roles = rowsUnlessUnsupported(session, "LIST ROLES OF " + role, "not logged in",
                "the cluster does not authenticate clients: no grants to check");
        if (roles == null) {
            return;
        }
        if (roles.stream().anyMatch(r -> r.getBoolean("super"))) {
            LOG.info("role '{}' is a superuser: it has every grant the service needs", username);
            return;
        }
        List<Row> rows = rowsUnlessUnsupported(session, "LIST ALL PERMISSIONS OF " + role, "AllowAllAuthorizer",
                "the cluster does not authorize requests (AllowAllAuthorizer): no grants to check");
        if (rows == null) {
            return;
        }
        List<Grant> granted = new ArrayList<>();
        for (Row r : rows) {
            Resource resource = Resource.parse(r.getString("resource"));
            if (resource != null) {
                granted.add(new Grant(r.getString("permission").toUpperCase(Locale.ROOT), resource));
            }
        }
        List<Grant> missing = missing(required(projectKeyspace, of(catalog)), granted);
        if (!missing.isEmpty()) {
            throw new MissingGrantsException(refusal(username, missing));
        }
        LOG.info("role '{}' has every grant the service needs", username);
    }

    /**
     * The rows of {@code cql}, or null when Cassandra refuses it with a message containing {@code
     * unsupported} (no authentication, or no authorizer): then {@code why} is logged.
     */
    private static List<Row> rowsUnlessUnsupported(CqlSession session, String cql, String unsupported, String why) {
        try {
            return session.execute(SimpleStatement.newInstance(cql)).all();
        } catch (UnauthorizedException | InvalidQueryException e) {
            if (e.getMessage() != null && e.getMessage().contains(unsupported)) {
                LOG.info(why);
                return null;
            }
            throw e;
        }
    }

    private static String name(String identifier) {
        return PLAIN_NAME.matcher(identifier).matches() ? identifier : Cql.quote(identifier);
    }
}
