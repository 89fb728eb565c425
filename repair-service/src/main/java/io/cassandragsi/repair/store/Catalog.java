package io.cassandragsi.repair.store;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.AsyncResultSet;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.datastax.oss.driver.api.core.metadata.schema.KeyspaceMetadata;
import com.datastax.oss.driver.api.core.metadata.schema.TableMetadata;
import io.cassandragsi.check.EntryRule;
import io.cassandragsi.check.ScanStores;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.DefinitionResolver;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The indexed tables as the live schema describes them: like the trigger, the service reads the
 * definitions from the index tables' comments, so the two never disagree about what is indexed.
 * Reloaded when the driver's schema metadata changes (cheap check by identity).
 */
public final class Catalog {
    private static final Logger LOG = LoggerFactory.getLogger(Catalog.class);
    private static final CqlIdentifier COMMENT = CqlIdentifier.fromCql("comment");

    private final CqlSession session;
    private volatile Object loadedFrom;
    private volatile Map<String, Indexed> tables = Map.of();
    private final Map<String, String> problems = new ConcurrentHashMap<>();

    /** One indexed base table with its statements. */
    public static final class Indexed {
        public final TableDef definition;
        public final TablePlan plan;
        public final BaseTable base;
        public final Map<IndexPlan, IndexTable> indexTables;
        /** Per index, the base reads that check its entries (reading only the attributes it needs). */
        public final Map<IndexPlan, BaseTable.Checks> checks;
        /** Unversioned tables: the current rows with their cells' write times; null otherwise. */
        public final UnversionedRows rows;
        /** The rows table (entry keys each row has had). */
        public final RowsTable records;
        /** What the whole-index jobs ask of this table's kind (docs/design.md section 9), decided once. */
        public final EntryRule<?> rule;
        /** Per index that declares a bucket and whose bucket table exists, that table (docs/design.md section 3.7). */
        public final Map<IndexPlan, BucketTable> bucketTables;
        /** The project keyspace's bucket states (null: a catalog made without the project keyspace). */
        private final java.util.function.Supplier<BucketsTable> buckets;
        private final CqlSession session;

        Indexed(CqlSession session, TableDef definition, List<Index> indexes, java.util.function.Supplier<BucketsTable> buckets,
                Map<String, String> problems) {
            this.session = session;
            this.buckets = buckets;
            this.definition = definition;
            this.plan = TablePlan.of(definition, indexes);
            this.rule = EntryRule.of(plan);
            io.cassandragsi.tables.BaseTableCql cql = new io.cassandragsi.tables.BaseTableCql(definition, plan);
            this.base = new BaseTable(session, cql);
            this.records = new RowsTable(session, definition);
            this.rows = definition.versioned() ? null : new UnversionedRows(session, cql);
            Map<IndexPlan, IndexTable> map = new LinkedHashMap<>();
            Map<IndexPlan, BaseTable.Checks> checkMap = new LinkedHashMap<>();
            for (IndexPlan p : plan.indexes()) {
                map.put(p, new IndexTable(session, definition, p));
                checkMap.put(p, base.checks(p.index()));
            }
            this.indexTables = map;
            this.checks = checkMap;
            Map<IndexPlan, BucketTable> bucketMap = new LinkedHashMap<>();
            for (IndexPlan p : plan.indexes()) {
                String name = p.index().bucketTableName();
                if (name == null) {
                    continue;
                }
                boolean exists = session.getMetadata().getKeyspace(CqlIdentifier.fromInternal(definition.keyspace()))
                        .flatMap(k -> k.getTable(CqlIdentifier.fromInternal(name))).isPresent();
                if (exists) {
                    bucketMap.put(p, new BucketTable(session, definition, p));
                } else {
                    problems.put(definition.keyspace() + "." + name, "bucket table missing: run ./gsi schema apply (reads in the past use "
                            + p.index().tableName() + " meanwhile)");
                }
            }
            this.bucketTables = bucketMap;
        }

        /** The bucket states of the project keyspace; an {@link IllegalStateException} when the catalog was made without it. */
        public BucketsTable buckets() {
            BucketsTable b = buckets.get();
            if (b == null) {
                throw new IllegalStateException("bucket seals are read from the project keyspace, which this catalog was not given");
            }
            return b;
        }

        /** Where repairs and fixes record changes to ended buckets of this table (docs/design.md section 9.4), written at {@code cl}. */
        public io.cassandragsi.maintain.BucketChanges bucketChanges(ConsistencyLevel cl) {
            return io.cassandragsi.maintain.BucketChanges.of(change -> buckets().record(definition.keyspace(), definition.table(),
                    definition.indexes().values(), change, java.time.Instant.now(), cl));
        }

        /** Whether {@link #buckets} answers. */
        public boolean knowsBuckets() {
            return buckets.get() != null;
        }

        /**
         * Index writes as statements, one per index partition (see {@link
         * IndexTable#statementsByPartition}), for {@link #execute}.
         */
        public List<Statement<?>> statements(List<TablePlan.IndexWrite> writes, ConsistencyLevel cl) {
            Map<IndexPlan, List<TablePlan.IndexWrite>> byIndex = new LinkedHashMap<>();
            for (TablePlan.IndexWrite w : writes) {
                byIndex.computeIfAbsent(w.index(), k -> new ArrayList<>()).add(w);
            }
            List<Statement<?>> out = new ArrayList<>();
            for (Map.Entry<IndexPlan, List<TablePlan.IndexWrite>> e : byIndex.entrySet()) {
                out.addAll(indexTables.get(e.getKey()).statementsByPartition(e.getValue(), cl));
            }
            return out;
        }

        public CompletionStage<AsyncResultSet> execute(Statement<?> statement) {
            return session.executeAsync(statement);
        }

        /** The repair core's storage of this table at the given levels (docs/design.md section 6). */
        public io.cassandragsi.maintain.Stores stores(Levels levels) {
            return new DriverStores(session, this, levels);
        }

        /** The whole-index jobs' storage of this table (docs/design.md section 9), read at {@code read} in pages of {@code pageSize}. */
        public ScanStores scans(ConsistencyLevel read, int pageSize) {
            return new DriverScans(this, read, pageSize);
        }

        /** The check's reads of this table's bucket tables and bucket states (docs/design.md section 9.2); its scans at {@code read} in pages of {@code pageSize}. */
        public BucketStores bucketStores(ConsistencyLevel read, int pageSize) {
            return new DriverBuckets(this, read, pageSize);
        }

        /** Rows-table writes as statements, at {@code cl}. */
        public List<Statement<?>> rowsStatements(List<io.cassandragsi.maintain.RowsWrite> writes, ConsistencyLevel cl) {
            List<Statement<?>> out = new ArrayList<>();
            for (io.cassandragsi.maintain.RowsWrite w : writes) {
                out.addAll(records.statements(w, cl));
            }
            return out;
        }

        public IndexPlan index(String name) {
            for (IndexPlan p : plan.indexes()) {
                if (p.index().name().equals(name)) {
                    return p;
                }
            }
            return null;
        }
    }

    public Catalog(CqlSession session) {
        this(session, null);
    }

    /**
     * @param projectKeyspace where the bucket seals are (docs/design.md section 9.4); null: bucket
     *     tables are not read (reads in the past use the index tables)
     */
    public Catalog(CqlSession session, String projectKeyspace) {
        this.session = session;
        this.projectKeyspace = projectKeyspace;
    }

    private final String projectKeyspace;
    private volatile BucketsTable bucketsTable;

    /** The bucket states, prepared on first use; null without a project keyspace. */
    private BucketsTable bucketsTable() {
        if (projectKeyspace == null) {
            return null;
        }
        BucketsTable b = bucketsTable;
        if (b == null) {
            synchronized (this) {
                if (bucketsTable == null) {
                    bucketsTable = new BucketsTable(session, projectKeyspace);
                }
                b = bucketsTable;
            }
        }
        return b;
    }

    /** Executes a write of any indexed table's (they share the session). */
    public CompletionStage<AsyncResultSet> execute(Statement<?> statement) {
        return session.executeAsync(statement);
    }

    /** The indexed table {@code keyspace.table}, or null. */
    public Indexed table(String keyspace, String table) {
        refreshIfChanged();
        return tables.get(keyspace + "." + table);
    }

    /**
     * Whether {@link #table} would answer from what is loaded. When false, the next call reloads,
     * which prepares statements synchronously: callers that must not block ask first, then use
     * {@link #loaded}.
     */
    public boolean current() {
        return session.getMetadata().getKeyspaces() == loadedFrom;
    }

    /** The indexed table {@code keyspace.table} as last loaded (never reloads, never blocks), or null. */
    public Indexed loaded(String keyspace, String table) {
        return tables.get(keyspace + "." + table);
    }

    public Map<String, Indexed> tables() {
        refreshIfChanged();
        return tables;
    }

    /** Index tables whose definition could not be used, with why (surfaced in status). */
    public Map<String, String> problems() {
        return Map.copyOf(problems);
    }

    private void refreshIfChanged() {
        Object current = session.getMetadata().getKeyspaces();
        if (current != loadedFrom) {
            synchronized (this) {
                current = session.getMetadata().getKeyspaces();
                if (current != loadedFrom) {
                    tables = load();
                    loadedFrom = current;
                }
            }
        }
    }

    /** The live base table as {@link DefinitionResolver#misfit} checks it (the trigger reads Cassandra's own schema the same way). */
    private static DefinitionResolver.LiveTable live(TableMetadata base) {
        List<String> pk = new ArrayList<>();
        base.getPartitionKey().forEach(c -> pk.add(c.getName().asInternal()));
        base.getClusteringColumns().keySet().forEach(c -> pk.add(c.getName().asInternal()));
        Map<String, DefinitionResolver.LiveColumn> columns = new LinkedHashMap<>();
        for (com.datastax.oss.driver.api.core.metadata.schema.ColumnMetadata c : base.getColumns().values()) {
            boolean counter = c.getType() == com.datastax.oss.driver.api.core.type.DataTypes.COUNTER;
            columns.put(c.getName().asInternal(), new DefinitionResolver.LiveColumn(c.getType().asCql(true, true), counter || c.isStatic()));
        }
        return new DefinitionResolver.LiveTable(pk, columns);
    }

    private Map<String, Indexed> load() {
        Map<String, List<DefinitionResolver.Found>> found = new LinkedHashMap<>();
        problems.clear();
        for (KeyspaceMetadata ks : session.getMetadata().getKeyspaces().values()) {
            for (TableMetadata t : ks.getTables().values()) {
                Object comment = t.getOptions().get(COMMENT);
                String source = ks.getName().asInternal() + "." + t.getName().asInternal();
                CqlGenerator.IndexComment parsed;
                try {
                    parsed = CqlGenerator.parseIndexComment(comment == null ? null : comment.toString(), source);
                } catch (DefinitionException e) {
                    problems.put(source, e.getMessage());
                    LOG.warn("ignoring index table {}: {}", source, e.getMessage());
                    continue;
                }
                if (parsed != null) {
                    found.computeIfAbsent(ks.getName().asInternal() + "." + parsed.table(), k -> new ArrayList<>())
                            .add(new DefinitionResolver.Found(t.getName().asInternal(), parsed));
                }
            }
        }
        Map<String, Indexed> out = new LinkedHashMap<>();
        for (Map.Entry<String, List<DefinitionResolver.Found>> e : found.entrySet()) {
            // what the trigger does not maintain (it runs the same check), the service does not serve or repair
            String keyspace = e.getKey().substring(0, e.getKey().indexOf('.'));
            String baseName = e.getKey().substring(keyspace.length() + 1);
            KeyspaceMetadata ksm = session.getMetadata().getKeyspace(CqlIdentifier.fromInternal(keyspace)).orElse(null);
            TableMetadata base = ksm == null ? null : ksm.getTable(CqlIdentifier.fromInternal(baseName)).orElse(null);
            DefinitionResolver.LiveTable live = base == null ? null : live(base);
            DefinitionResolver.Resolution resolution = DefinitionResolver.resolve(e.getValue(), (table, comment) -> {
                if (live == null) {
                    return "the base table " + e.getKey() + " does not exist";
                }
                TableMetadata indexTable = ksm.getTable(CqlIdentifier.fromInternal(table)).orElse(null);
                return DefinitionResolver.misfit(comment.definition(), comment.index(), live,
                        c -> indexTable != null && indexTable.getColumn(CqlIdentifier.fromInternal(c)).isPresent());
            });
            for (DefinitionResolver.Skipped s : resolution.skipped()) {
                problems.put(e.getKey() + "/" + s.index(), s.problem());
            }
            if (resolution.definition() == null) {
                continue;
            }
            try {
                out.put(e.getKey(), new Indexed(session, resolution.definition(), resolution.indexes(), this::bucketsTable, problems));
            } catch (RuntimeException ex) {
                problems.put(e.getKey(), ex.getMessage());
                LOG.warn("cannot serve {}: {}", e.getKey(), ex.getMessage());
            }
        }
        return out;
    }
}
