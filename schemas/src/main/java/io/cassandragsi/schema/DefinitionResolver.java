package io.cassandragsi.schema;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Predicate;

/**
 * Which definition of a base table is current and which of its index tables are maintained, from
 * the comments of its index tables (the definitions travel with Cassandra's schema): the one rule
 * the trigger and the repair service both follow, so that they never disagree about what is
 * indexed. Pure.
 *
 * <p>{@code schema apply} only ever grows a definition and rewrites the comments one table at a
 * time, so while it runs the comments hold two generations. The rule:
 * <ol>
 *   <li>a retired index table is not maintained, and says nothing about the definition;
 *   <li>an index table of another layout ({@link CqlGenerator#LAYOUT}) is not maintained until
 *       {@code schema apply} migrates it;
 *   <li>an index table that does not fit the live tables (the caller's check, see {@link #misfit})
 *       is not maintained, and its definition is not a candidate;
 *   <li>the newest definition is the one with the most attributes (the first such);
 *   <li>an index table made from an older definition whose key or projected attributes have other
 *       types in the newest one is not maintained;
 *   <li>an index the newest definition lacks is on its way out (schema apply retires it);
 *   <li>every other index table is maintained, resolved against the newest definition so that
 *       attribute positions agree.
 * </ol>
 */
public final class DefinitionResolver {
    private DefinitionResolver() {}

    /** An index table and what its comment says (see {@link CqlGenerator#parseIndexComment}). */
    public record Found(String indexTable, CqlGenerator.IndexComment comment) {}

    /** Why an index table is not maintained. */
    public enum Reason {
        /** It does not fit the live base or index table. */
        MISFIT,
        /** It was made from an older definition that disagrees with the newest one. */
        OUTDATED,
        /** The newest definition lacks its index. */
        DROPPED,
        /** It was made by a version of cassandra-gsi with another table layout ({@link CqlGenerator#LAYOUT}): schema apply migrates it. */
        LAYOUT
    }

    /** An index table that is maintained, with its index as the newest definition has it. */
    public record Maintained(String indexTable, Index index) {}

    /** An index table that is not maintained, and why in words. */
    public record Skipped(String indexTable, String index, Reason reason, String problem) {}

    /**
     * The outcome for one base table. {@code definition} is null when no index table names a
     * usable one; otherwise {@code maintained} (possibly empty) and {@code skipped} are in the
     * order the index tables were given.
     */
    public record Resolution(TableDef definition, List<Maintained> maintained, List<Skipped> skipped) {
        public List<Index> indexes() {
            return maintained.stream().map(Maintained::index).toList();
        }
    }

    /** The live base table, as far as {@link #misfit} looks at it. */
    public record LiveTable(List<String> primaryKey, Map<String, LiveColumn> columns) {}

    /** A live column: its CQL type as Cassandra prints it, and whether it is a counter or static. */
    public record LiveColumn(String cqlType, boolean counterOrStatic) {}

    /**
     * Resolves the index tables of one base table. {@code misfit} says why an index table does not
     * fit the live tables, or null when it does (asked once per index table that is not retired;
     * a caller that does not check passes {@code (table, comment) -> null}).
     */
    public static Resolution resolve(List<Found> found, BiFunction<String, CqlGenerator.IndexComment, String> misfit) {
        List<Skipped> skipped = new ArrayList<>();
        List<Found> fitting = new ArrayList<>();
        TableDef chosen = null;
        for (Found f : found) {
            CqlGenerator.IndexComment c = f.comment();
            if (c.retired()) {
                continue;
            }
            if (c.layout() != CqlGenerator.LAYOUT) {
                skipped.add(new Skipped(f.indexTable(), c.index(), Reason.LAYOUT, "index table was made by a version of cassandra-gsi with"
                        + " table layout " + c.layout() + ", this one needs layout " + CqlGenerator.LAYOUT + ": run ./gsi schema apply"));
                continue;
            }
            String problem = misfit.apply(f.indexTable(), c);
            if (problem != null) {
                skipped.add(new Skipped(f.indexTable(), c.index(), Reason.MISFIT, problem));
                continue;
            }
            if (chosen == null || c.definition().attributes().size() > chosen.attributes().size()) {
                chosen = c.definition();
            }
            fitting.add(f);
        }
        if (chosen == null) {
            return new Resolution(null, List.of(), List.copyOf(skipped));
        }
        List<Maintained> maintained = new ArrayList<>();
        for (Found f : fitting) {
            Index own = f.comment().definition().index(f.comment().index());
            if (!agrees(own, chosen)) {
                skipped.add(new Skipped(f.indexTable(), own.name(), Reason.OUTDATED,
                        "index table was made from an older definition that disagrees with the newest one"));
                continue;
            }
            Index resolved = chosen.index(own.name());
            if (resolved == null) {
                skipped.add(new Skipped(f.indexTable(), own.name(), Reason.DROPPED,
                        "index table exists but the newest definition lacks index " + own.name()));
                continue;
            }
            maintained.add(new Maintained(f.indexTable(), resolved));
        }
        return new Resolution(chosen, List.copyOf(maintained), List.copyOf(skipped));
    }

    /** True when every key and projected attribute of {@code index} has the same type in {@code newest}. */
    private static boolean agrees(Index index, TableDef newest) {
        for (Column c : index.keyColumns()) {
            if (!c.name().equals(Index.CONSTANT_COLUMN) && newest.type(c.name()) != c.type()) {
                return false;
            }
        }
        for (Column c : index.proj()) {
            if (newest.type(c.name()) != c.type()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Why the index table of index {@code indexName} of {@code def} cannot be maintained on the live
     * {@code base} table, or null when it can: the primary keys must agree, every attribute must be
     * a column of the definition's type (neither counter nor static), and the index table must
     * have every regular column an entry fills.
     */
    public static String misfit(TableDef def, String indexName, LiveTable base, Predicate<String> indexTableHas) {
        List<String> pk = base.primaryKey();
        List<Column> defPk = def.primaryKey();
        if (pk.size() != defPk.size()) {
            return "the base table's primary key differs from the definition's";
        }
        for (int i = 0; i < pk.size(); i++) {
            if (!pk.get(i).equals(defPk.get(i).name())) {
                return "the base table's primary key differs from the definition's at " + defPk.get(i).name();
            }
        }
        for (Map.Entry<String, AttrType> a : def.attributes().entrySet()) {
            LiveColumn c = base.columns().get(a.getKey());
            if (c == null) {
                return "the base table has no column " + a.getKey();
            }
            if (!c.cqlType().equals(a.getValue().cql())) {
                return "column " + a.getKey() + " is " + c.cqlType() + " in the base table but " + a.getValue().jsonName() + " in the definition";
            }
            if (c.counterOrStatic()) {
                return "column " + a.getKey() + " is a counter or static column";
            }
        }
        for (Column c : IndexLayout.of(def.index(indexName)).regularColumns()) {
            if (!indexTableHas.test(c.name())) {
                return "the index table has no column " + c.name();
            }
        }
        return null;
    }
}
