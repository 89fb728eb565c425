package io.cassandragsi.repair.schema;

import io.cassandragsi.schema.AttrType;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.CqlGenerator.IndexComment;
import io.cassandragsi.schema.CqlGenerator.Statement;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.NodeProgressLayout;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The pure part of {@code schema apply}: compares the desired definitions with a description of the
 * live schema and returns the {@link Plan}. Creates what is missing, adds columns and refreshes
 * index-table comments where a definition grew, and refuses (as plan errors) what Cassandra cannot
 * change in place: primary keys, column types and index keys.
 */
public final class SchemaPlanner {
    private final String projectKeyspace;
    private final String replication;
    private final QueueLayout.Settings queueSettings;

    private final List<Statement> statements = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final List<Plan.RebuildCandidate> rebuild = new ArrayList<>();
    private final Set<String> keyspacesCreated = new HashSet<>();
    /** Attributes this plan adds to existing base tables: existing rows have no value for them. */
    private final Set<String> attributesAdded = new HashSet<>();

    private SchemaPlanner(String projectKeyspace, String replication, QueueLayout.Settings queueSettings) {
        this.projectKeyspace = projectKeyspace;
        this.replication = replication;
        this.queueSettings = queueSettings;
    }

    /**
     * Plans the statements that bring {@code live} to {@code defs}.
     *
     * @param replication the CQL replication map for keyspaces that have to be created
     */
    public static Plan plan(List<TableDef> defs, LiveSchema live, String projectKeyspace, String replication,
            QueueLayout.Settings queueSettings) {
        SchemaPlanner p = new SchemaPlanner(projectKeyspace, replication, queueSettings);
        p.checkDefinitions(defs);
        if (p.errors.isEmpty()) {
            p.planProject(live);
            for (TableDef def : defs) {
                p.planTable(def, live);
            }
        }
        return new Plan(p.statements, p.warnings, p.errors, p.rebuild);
    }

    private void checkDefinitions(List<TableDef> defs) {
        Map<String, String> tables = new LinkedHashMap<>();
        for (TableDef def : defs) {
            if (def.keyspace().equals(projectKeyspace)) {
                errors.add(def.qualifiedName() + ": keyspace '" + projectKeyspace
                        + "' is the project keyspace (work queue); put indexed tables in another keyspace");
                continue;
            }
            if (tables.get(def.qualifiedName()) != null && tables.get(def.qualifiedName()).equals(def.qualifiedName())) {
                errors.add(def.qualifiedName() + " is defined twice; give each table one definition file");
                continue;
            }
            List<String> names = new ArrayList<>();
            names.add(def.table());
            def.indexes().values().forEach(i -> names.add(i.tableName()));
            def.indexes().values().stream().filter(i -> i.bucketTableName() != null).forEach(i -> names.add(i.bucketTableName()));
            for (String name : names) {
                String qualified = def.keyspace() + "." + name;
                String previous = tables.putIfAbsent(qualified, def.qualifiedName());
                if (previous != null) {
                    errors.add("table " + qualified + " is needed by both " + previous + " and " + def.qualifiedName());
                }
            }
        }
    }

    /** The project keyspace and every table in it (work queue, checkpoints, leases, instances, jobs) that is missing. */
    private void planProject(LiveSchema live) {
        ensureKeyspace(live, projectKeyspace, "project keyspace " + projectKeyspace);
        for (ProjectTables.Table t : ProjectTables.all(projectKeyspace, queueSettings)) {
            Optional<LiveTable> existing = live.table(projectKeyspace, t.name());
            if (existing.isEmpty()) {
                statements.add(new Statement("create " + t.what() + " " + projectKeyspace + "." + t.name(), t.cql()));
                if (t.name().equals(io.cassandragsi.repair.store.CheckpointsTable.TABLE)) {
                    for (String first : ProjectTables.initialRows(projectKeyspace, queueSettings)) {
                        statements.add(new Statement("the first checkpoint of a shard: now (no marker written before the first serve is skipped)",
                                first));
                    }
                }
            } else if (t.name().equals(io.cassandragsi.repair.store.CheckpointsTable.TABLE)
                    && !existing.get().columns().containsKey(io.cassandragsi.repair.store.CheckpointsTable.DONE_BEFORE)) {
                statements.add(new Statement("add " + io.cassandragsi.repair.store.CheckpointsTable.DONE_BEFORE + " to "
                        + existing.get().qualifiedName() + " (how far each shard's work is done: the safe time)",
                        io.cassandragsi.repair.store.CheckpointsTable.addDoneBefore(projectKeyspace)));
            } else if (t.name().equals(NodeProgressLayout.TABLE)) {
                planProgressColumns(existing.get());
            } else if (t.name().equals(QueueLayout.TABLE)) {
                if (!queueSettings.toComment().equals(existing.get().comment())) {
                    warnings.add("work queue " + existing.get().qualifiedName() + " exists with settings " + existing.get().comment()
                            + ", different from " + queueSettings.toComment() + "; left unchanged");
                }
                if (!"NONE".equalsIgnoreCase(existing.get().readRepair())) {
                    statements.add(new Statement("stop read repair on work queue " + existing.get().qualifiedName()
                            + " (markers are written once; repairing them on every read costs the nodes)",
                            QueueLayout.noReadRepair(projectKeyspace)));
                }
            }
        }
    }

    /** The columns later releases added to the in-node maintainers' progress table, each where it is missing. */
    private void planProgressColumns(LiveTable existing) {
        if (!existing.columns().containsKey(NodeProgressLayout.C_CDC_LOST)) {
            statements.add(new Statement("add " + NodeProgressLayout.C_CDC_LOST + " to " + existing.qualifiedName()
                    + " (CDC segments a node lost before indexing them: /admin/status)", NodeProgressLayout.addCdcLost(projectKeyspace)));
        }
        if (!existing.columns().containsKey(NodeProgressLayout.C_CDC_REPAIRED)) {
            List<String> add = NodeProgressLayout.addCdcRepair(projectKeyspace);
            statements.add(new Statement("add " + NodeProgressLayout.C_CDC_LOST_BEHIND + " to " + existing.qualifiedName()
                    + " (the epochs a lost CDC segment was kept for: its targeted repair, docs/design.md section 7.11)", add.get(0)));
            statements.add(new Statement("add " + NodeProgressLayout.C_CDC_REPAIRED + " to " + existing.qualifiedName()
                    + " (the repair service's acknowledgment of that repair)", add.get(1)));
        }
    }

    private void ensureKeyspace(LiveSchema live, String keyspace, String what) {
        if (!live.hasKeyspace(keyspace) && keyspacesCreated.add(keyspace)) {
            statements.add(new Statement("create " + what, CqlGenerator.createKeyspace(keyspace, replication)));
        }
    }

    private void planTable(TableDef def, LiveSchema live) {
        ensureKeyspace(live, def.keyspace(), "keyspace " + def.keyspace());
        Optional<LiveTable> base = live.table(def.keyspace(), def.table());
        int errorsBefore = errors.size();
        if (base.isEmpty()) {
            statements.add(new Statement("create base table " + def.qualifiedName(), CqlGenerator.createBaseTable(def)));
        } else {
            planBaseTable(def, base.get());
        }
        if (errors.size() > errorsBefore) {
            return; // the base table cannot be used: its indexes are moot
        }
        planRowsTable(def, live, base.isPresent());
        for (Index index : def.indexes().values()) {
            Optional<LiveTable> table = live.table(def.keyspace(), index.tableName());
            if (table.isEmpty()) {
                statements.add(new Statement("create index table " + def.keyspace() + "." + index.tableName()
                        + " (index " + index.name() + ")", CqlGenerator.createIndexTable(def, index)));
                warnAboutLargeValues(def, index);
                boolean keyIsNew = index.attributeKeyColumns().stream().anyMatch(c -> isNewAttribute(def, c.name()));
                if (base.isPresent() && !keyIsNew) {
                    rebuild.add(candidate(def, index, "new index"));
                }
            } else {
                planIndexTable(def, index, table.get());
            }
            if (index.bucket() != null && live.table(def.keyspace(), index.bucketTableName()).isEmpty()) {
                statements.add(new Statement("create bucket table " + def.keyspace() + "." + index.bucketTableName() + " (index " + index.name()
                        + ", one bucket per " + index.bucket().jsonName() + ")", CqlGenerator.createBucketTable(def, index)));
                if (base.isPresent() && table.isPresent()) {
                    rebuild.add(candidate(def, index, "new bucket table (the rebuild seals the ended buckets)"));
                }
            }
        }
        warnAboutOrphans(def, live);
        if (!def.indexes().isEmpty()) {
            String triggerClass = base.map(t -> t.triggers().get(CqlGenerator.TRIGGER_NAME)).orElse(null);
            if (triggerClass == null) {
                statements.add(new Statement("create trigger " + CqlGenerator.TRIGGER_NAME + " on " + def.qualifiedName(),
                        CqlGenerator.createTrigger(def)));
                if (base.isPresent()) {
                    // Cassandra 5.0 keeps the trigger set a statement was prepared with, and CREATE TRIGGER does not
                    // invalidate prepared statements: writes prepared before it would never be indexed. Changing
                    // gc_grace_seconds does invalidate them (clients re-prepare at once); the second ALTER restores it.
                    int gc = base.get().gcGraceSeconds();
                    statements.add(new Statement("make clients re-prepare their statements on " + def.qualifiedName()
                            + " so that their writes fire the new trigger (1/2)",
                            "ALTER TABLE " + io.cassandragsi.schema.Cql.qualified(def.keyspace(), def.table())
                                    + " WITH gc_grace_seconds = " + (gc + 1) + ";"));
                    statements.add(new Statement("... and restore gc_grace_seconds (2/2)",
                            "ALTER TABLE " + io.cassandragsi.schema.Cql.qualified(def.keyspace(), def.table())
                                    + " WITH gc_grace_seconds = " + gc + ";"));
                }
            } else if (!triggerClass.equals(CqlGenerator.TRIGGER_CLASS)) {
                errors.add(def.qualifiedName() + ": has a trigger named " + CqlGenerator.TRIGGER_NAME + " with class "
                        + triggerClass + ", not " + CqlGenerator.TRIGGER_CLASS + "; drop it (DROP TRIGGER "
                        + CqlGenerator.TRIGGER_NAME + " ON " + def.qualifiedName() + ") and apply again");
            }
        }
    }

    /**
     * The rows table: created when missing, given {@value RowsLayout#VERSION_KEYS} when the
     * definition has a per-version index and the table predates that column, and {@value
     * RowsLayout#NEWEST_HI} and {@value RowsLayout#NEWEST_LO} on a versioned table that predates them, {@value
     * RowsLayout#WRITE_ID} on an unversioned one. Existing indexes
     * whose keys it does not record yet are rebuild candidates (a rebuild records them).
     */
    private void planRowsTable(TableDef def, LiveSchema live, boolean baseExists) {
        if (!RowsLayout.needed(def)) {
            return;
        }
        String name = def.keyspace() + "." + RowsLayout.tableName(def.table());
        Optional<LiveTable> rows = live.table(def.keyspace(), RowsLayout.tableName(def.table()));
        if (rows.isPresent() && RowsLayout.hasNewestWrites(def) && !rows.get().columns().containsKey(RowsLayout.NEWEST_HI)) {
            // nothing to rebuild: the trigger writes them from now on, and a row without them is diffed as before
            statements.add(new Statement("add " + RowsLayout.NEWEST_HI + " and " + RowsLayout.NEWEST_LO + " to rows table " + name
                    + " (the newest version's latest and earliest write, so that a rewrite of it is recomputed)", RowsLayout.addNewestWrites(def)));
        }
        if (rows.isPresent() && RowsLayout.hasWriteId(def) && !rows.get().columns().containsKey(RowsLayout.WRITE_ID)) {
            // nothing to rebuild: the trigger writes it from now on, and a row without it is reconciled as before
            statements.add(new Statement("add " + RowsLayout.WRITE_ID + " to rows table " + name
                    + " (which write set _w, so that a write tied with another at one timestamp is reconciled again)", RowsLayout.addWriteId(def)));
        }
        if (rows.isEmpty()) {
            statements.add(new Statement("create rows table " + name + " (the entry keys each row has had)", RowsLayout.createTable(def)));
        } else if (RowsLayout.hasVersionKeys(def) && !rows.get().columns().containsKey(RowsLayout.VERSION_KEYS)) {
            statements.add(new Statement("add " + RowsLayout.VERSION_KEYS + " to rows table " + name
                    + " (the entry keys of per-version indexes, so that deletes of versions find their entries)", RowsLayout.addVersionKeys(def)));
        } else {
            return;
        }
        if (baseExists) {
            for (Index index : def.indexes().values()) {
                boolean recordedBefore = rows.isPresent() && !index.perVersion();
                if (!recordedBefore && live.table(def.keyspace(), index.tableName()).isPresent()) {
                    rebuild.add(candidate(def, index, rows.isEmpty() ? "new rows table" : "rows table records per-version keys"));
                }
            }
        }
    }

    private boolean isNewAttribute(TableDef def, String attribute) {
        return attributesAdded.contains(def.qualifiedName() + "." + attribute);
    }

    private Plan.RebuildCandidate candidate(TableDef def, Index index, String reason) {
        return new Plan.RebuildCandidate(def.keyspace(), def.table(), index.name(), def.partitionKey().get(0).name(), reason);
    }

    private void planBaseTable(TableDef def, LiveTable live) {
        if (live.isCounterTable()) {
            errors.add(def.qualifiedName() + ": is a counter table; counter tables cannot have global secondary indexes"
                    + " (Cassandra rejects counter writes that carry trigger mutations)");
            return;
        }
        List<LiveColumn> partition = def.partitionKey().stream().map(LiveColumn::of).collect(Collectors.toList());
        List<LiveColumn> clustering = def.clustering().stream().map(LiveColumn::of).collect(Collectors.toList());
        if (!partition.equals(live.partitionKey()) || !clustering.equals(live.clustering())) {
            errors.add(def.qualifiedName() + ": the primary key differs from the definition (table: " + describeKey(live.partitionKey(), live.clustering())
                    + "; definition: " + describeKey(partition, clustering) + "); a primary key cannot be changed in place:"
                    + " use a new table name, or drop the table");
            return;
        }
        for (Map.Entry<String, AttrType> attr : def.attributes().entrySet()) {
            String liveType = live.columns().get(attr.getKey());
            String wanted = attr.getValue().cql();
            if (liveType == null) {
                statements.add(new Statement("add attribute " + attr.getKey() + " to base table " + def.qualifiedName(),
                        CqlGenerator.addColumn(def.keyspace(), def.table(), Column.of(attr.getKey(), attr.getValue()))));
                attributesAdded.add(def.qualifiedName() + "." + attr.getKey());
            } else if (!liveType.equalsIgnoreCase(wanted)) {
                errors.add(def.qualifiedName() + ": attribute '" + attr.getKey() + "' is " + liveType + " in the table but "
                        + attr.getValue().jsonName() + " (" + wanted + ") in the definition; a column type cannot be changed in place");
            }
        }
        boolean cdc = CqlGenerator.cdc(def);
        if (cdc != live.cdc()) {
            statements.add(new Statement(cdc ? "keep the commit log of " + def.qualifiedName() + " for change data capture (eventual indexing:"
                    + " the replicas' record of writes whose entries follow them)"
                    : "stop change data capture of " + def.qualifiedName() + " (atomic indexing)", CqlGenerator.setCdc(def.keyspace(),
                            def.table(), cdc)));
        }
    }

    private void planIndexTable(TableDef def, Index index, LiveTable live) {
        String qualified = live.qualifiedName();
        String where = def.qualifiedName() + ": index '" + index.name() + "': ";
        IndexComment comment = null;
        boolean commentUnreadable = false;
        try {
            comment = CqlGenerator.parseIndexComment(live.comment(), qualified);
        } catch (DefinitionException e) {
            commentUnreadable = true;
            warnings.add(where + "the definition stored in the comment of " + qualified + " cannot be read ("
                    + e.getMessage() + "); it will be replaced");
        }
        if (comment == null && !commentUnreadable) {
            errors.add(where + "table " + qualified + " exists but is not a gsi index table (its comment holds no gsi"
                    + " definition); drop or rename that table, or rename the index");
            return;
        }
        if (comment != null && (!comment.table().equals(def.table()) || !comment.index().equals(index.name()))) {
            errors.add(where + "table " + qualified + " belongs to index '" + comment.index() + "' of table "
                    + comment.table() + "; rename the index");
            return;
        }
        List<LiveColumn> partition = index.partitionColumns().stream().map(LiveColumn::of).collect(Collectors.toList());
        List<LiveColumn> clustering = index.clusteringColumns().stream().map(LiveColumn::of).collect(Collectors.toList());
        if (!partition.equals(live.partitionKey()) || !clustering.equals(live.clustering())) {
            errors.add(where + "the index key changed (index table: " + describeKey(live.partitionKey(), live.clustering())
                    + "; definition: " + describeKey(partition, clustering) + "); an index key cannot be evolved:"
                    + " drop the index table (DROP TABLE " + qualified + ") or give the index a new name");
            return;
        }
        Map<String, Column> wanted = new LinkedHashMap<>();
        for (Column c : io.cassandragsi.schema.IndexLayout.of(index).regularColumns()) {
            wanted.put(c.name(), c);
        }
        List<String> added = new ArrayList<>();
        for (Column w : wanted.values()) {
            String liveType = live.columns().get(w.name());
            if (liveType == null) {
                String kind = index.proj().contains(w) ? "projection " : "column ";
                statements.add(new Statement("add " + kind + w.name() + " to index table " + qualified,
                        CqlGenerator.addColumn(def.keyspace(), index.tableName(), w)));
                if (index.proj().contains(w) && !isNewAttribute(def, w.name())) {
                    added.add(w.name());
                }
            } else if (!liveType.equalsIgnoreCase(w.type().cql())) {
                errors.add(where + "column '" + w.name() + "' of " + qualified + " is " + liveType + " but the definition needs "
                        + w.type().cql() + "; drop the index table (DROP TABLE " + qualified + ") or give the index a new name");
            }
        }
        for (String column : live.columns().keySet()) {
            if (!live.isKeyColumn(column) && !wanted.containsKey(column)) {
                warnings.add(where + "index table " + qualified + " has column '" + column
                        + "', which the definition no longer projects; left in place (not dropped)");
            }
        }
        String desired = CqlGenerator.indexComment(def, index);
        if (!desired.equals(live.comment())) {
            statements.add(new Statement("update the definition in the comment of index table " + qualified,
                    CqlGenerator.setComment(def.keyspace(), index.tableName(), desired)));
        }
        if (!added.isEmpty()) {
            rebuild.add(candidate(def, index, "new projection(s): " + String.join(", ", added)));
        }
    }

    /**
     * Projections of unbounded attributes (text, JSON, blob) copy each value into the write's own
     * batch once per index: a large value can push it over the node's mutation size limit, and the
     * trigger then leaves the write's entries to the repair service (README, writes the trigger
     * cannot fully index). Said when the index table is created, naming the attributes.
     */
    private void warnAboutLargeValues(TableDef def, Index index) {
        List<String> unbounded = index.proj().stream()
                .filter(c -> c.type() == AttrType.STRING || c.type() == AttrType.JSON || c.type() == AttrType.BLOB)
                .map(c -> c.name() + " (" + c.type().name().toLowerCase(java.util.Locale.ROOT) + ")").toList();
        if (!unbounded.isEmpty()) {
            warnings.add(def.qualifiedName() + ": index '" + index.name() + "' projects " + String.join(", ", unbounded)
                    + ": each write copies such values into its batch once more; one that would take the batch over"
                    + " max_mutation_size is indexed by the repair service (README, too_large)");
        }
    }

    private void warnAboutOrphans(TableDef def, LiveSchema live) {
        String prefix = "idx_" + def.table() + "_";
        for (LiveTable t : live.tables(def.keyspace()).values()) {
            if (!t.name().startsWith(prefix) || !t.name().endsWith("_ever")) {
                continue;
            }
            IndexComment comment;
            try {
                comment = CqlGenerator.parseIndexComment(t.comment(), t.qualifiedName());
            } catch (DefinitionException e) {
                continue;
            }
            if (comment != null && comment.table().equals(def.table()) && def.index(comment.index()) == null) {
                if (!comment.retired()) {
                    statements.add(new Statement("retire index table " + t.qualifiedName() + " (index '" + comment.index()
                            + "' left the definition): the trigger stops maintaining it",
                            CqlGenerator.setComment(def.keyspace(), t.name(), CqlGenerator.retiredIndexComment(comment))));
                }
                warnings.add(def.qualifiedName() + ": index table " + t.qualifiedName() + " serves index '" + comment.index()
                        + "', which is no longer in the definition; it is retired (no longer maintained or served) and left in"
                        + " place, not dropped: drop it with DROP TABLE " + t.qualifiedName() + " once nothing reads it");
            }
        }
    }

    private static String describeKey(List<LiveColumn> partition, List<LiveColumn> clustering) {
        StringBuilder sb = new StringBuilder("PRIMARY KEY ((");
        sb.append(partition.stream().map(LiveColumn::describe).collect(Collectors.joining(", "))).append(')');
        for (LiveColumn c : clustering) {
            sb.append(", ").append(c.describeClustering());
        }
        return sb.append(')').toString();
    }
}
