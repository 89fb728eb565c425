package io.cassandragsi.repair.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.repair.jobs.JobsTable;
import io.cassandragsi.repair.store.CheckpointsTable;
import io.cassandragsi.repair.store.InstancesTable;
import io.cassandragsi.repair.store.LeasesTable;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.CqlGenerator.Statement;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.QueueLayout;
import io.cassandragsi.schema.TableDef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaPlannerTest {
    /** The purpose of each shard's first checkpoint, written when the checkpoints table is created. */
    private static final String FIRST = "the first checkpoint of a shard: now (no marker written before the first serve is skipped)";
    private static final List<String> FIRST_CHECKPOINTS = ProjectTables.initialRows("gsi", io.cassandragsi.schema.QueueLayout.Settings.defaults());

    private static final String REPLICATION = "{'class': 'SimpleStrategy', 'replication_factor': 1}";

    static final String REVISIONS = """
            {
              "keyspace": "wiki",
              "table": "revisions",
              "attributes": { "key": "string", "tid": "timeuuid", "length": "varint", "value": "string" },
              "index": [
                { "type": "hash", "attribute": "key" },
                { "type": "range", "order": "desc", "attribute": "tid" }
              ],
              "secondaryIndexes": {
                "by_length": [
                  { "type": "hash", "attribute": "length" },
                  { "type": "proj", "attribute": "value" }
                ],
                "by_tid": [
                  { "type": "hash", "attribute": "tid" }
                ]
              }
            }
            """;

    static TableDef revisions() {
        return Definitions.parse(REVISIONS, "revisions.json");
    }

    static TableDef revisions(String replace, String with) {
        String json = REVISIONS.replace(replace, with);
        assertThat(json).isNotEqualTo(REVISIONS);
        return Definitions.parse(json, "revisions.json");
    }

    static TableDef talk(String keyspace) {
        return Definitions.parse("""
                {
                  "keyspace": "%s",
                  "table": "talk",
                  "attributes": { "page": "string", "tid": "timeuuid", "author": "string" },
                  "index": [ { "type": "hash", "attribute": "page" }, { "type": "range", "attribute": "tid" } ],
                  "secondaryIndexes": { "by_author": [ { "type": "hash", "attribute": "author" } ] }
                }
                """.formatted(keyspace), "talk.json");
    }

    private static Plan plan(LiveSchema live, TableDef... defs) {
        return SchemaPlanner.plan(List.of(defs), live, QueueLayout.DEFAULT_KEYSPACE, REPLICATION, QueueLayout.Settings.defaults());
    }

    private static List<String> purposes(Plan plan) {
        return plan.statements().stream().map(Statement::purpose).toList();
    }

    @Test
    void should_create_everything_in_generator_order_when_cluster_is_empty() {
        Plan plan = plan(LiveSchema.empty(), revisions());
        assertThat(plan.errors()).isEmpty();
        assertThat(plan.warnings()).as("only the projection of text values, for the new index that has one").singleElement().asString()
                .startsWith("wiki.revisions: index 'by_length' projects value (string): each write copies");
        List<String> generated = new java.util.ArrayList<>(CqlGenerator.all(revisions(), "gsi", REPLICATION).stream().map(Statement::cql).toList());
        generated.addAll(2, List.of(io.cassandragsi.schema.NodeProgressLayout.createTable("gsi", io.cassandragsi.schema.QueueLayout.Settings.defaults()),
                CheckpointsTable.createStatement("gsi")));
        generated.addAll(4, ProjectTables.initialRows("gsi", io.cassandragsi.schema.QueueLayout.Settings.defaults()));
        generated.addAll(4 + FIRST_CHECKPOINTS.size(), List.of(LeasesTable.createStatement("gsi"),
                InstancesTable.createStatement("gsi"), JobsTable.createStatement("gsi"), io.cassandragsi.repair.store.BucketsTable.createStatement("gsi"),
                io.cassandragsi.schema.TriggerVersionsLayout.createTable("gsi")));
        assertThat(plan.statements().stream().map(Statement::cql).toList()).as("the generator's, the service's tables after the queue")
                .isEqualTo(generated);
        assertThat(purposes(plan)).containsExactly(
                "create project keyspace gsi",
                "create work queue gsi.queue",
                "create in-node maintainers' progress gsi.node_progress",
                "create shard checkpoints gsi.checkpoints",
                FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST,
                "create shard leases gsi.leases",
                "create service instances gsi.instances",
                "create job ledger gsi.jobs",
                "create bucket seals and changes gsi.buckets",
                "create nodes' trigger jar versions gsi.trigger_versions",
                "create keyspace wiki",
                "create base table wiki.revisions",
                "create rows table wiki.idx_revisions__rows (the entry keys each row has had)",
                "create index table wiki.idx_revisions_by_length_ever (index by_length)",
                "create index table wiki.idx_revisions_by_tid_ever (index by_tid)",
                "create trigger gsi_index on wiki.revisions");
        assertThat(plan.rebuildCandidates()).isEmpty();
    }

    @Test
    void should_plan_nothing_when_live_schema_matches_the_definitions() {
        Plan plan = plan(LiveFixtures.created(revisions(), talk("wiki")), revisions(), talk("wiki"));
        assertThat(plan.statements()).isEmpty();
        assertThat(plan.errors()).isEmpty();
        assertThat(plan.warnings()).isEmpty();
    }

    @Test
    void should_create_shared_keyspace_once_when_two_definitions_use_it() {
        Plan plan = plan(LiveSchema.empty(), revisions(), talk("wiki"));
        assertThat(purposes(plan)).filteredOn(p -> p.startsWith("create keyspace")).containsExactly("create keyspace wiki");
        assertThat(purposes(plan)).filteredOn(p -> p.startsWith("create trigger")).hasSize(2);
    }

    @Test
    void should_create_the_rows_table_and_flag_a_rebuild_when_an_indexed_table_predates_it() {
        TableDef def = revisions();
        LiveSchema live = LiveFixtures.project("gsi").with(LiveFixtures.baseTable(def, Map.of(CqlGenerator.TRIGGER_NAME, CqlGenerator.TRIGGER_CLASS)));
        for (io.cassandragsi.schema.Index index : def.indexes().values()) {
            live = live.with(LiveFixtures.indexTable(def, index));
        }
        Plan plan = plan(live, def);
        assertThat(purposes(plan)).containsExactly("create rows table wiki.idx_revisions__rows (the entry keys each row has had)");
        assertThat(plan.rebuildCandidates()).as("a rebuild records the entry keys of the versions already there")
                .extracting(Plan.RebuildCandidate::index).containsExactly("by_length", "by_tid");
    }

    @Test
    void should_add_the_version_keys_column_and_flag_a_rebuild_of_per_version_indexes_when_the_rows_table_predates_it() {
        TableDef def = revisions();
        Plan plan = plan(appliedWithRowsTableLacking(def, io.cassandragsi.schema.RowsLayout.VERSION_KEYS), def);
        assertThat(purposes(plan)).containsExactly("add _vkeys to rows table wiki.idx_revisions__rows (the entry keys of per-version indexes,"
                + " so that deletes of versions find their entries)");
        assertThat(plan.statements().get(0).cql()).isEqualTo("ALTER TABLE \"wiki\".\"idx_revisions__rows\" ADD \"_vkeys\" set<blob>;");
        assertThat(plan.rebuildCandidates()).as("a rebuild records the keys of the versions already there")
                .extracting(Plan.RebuildCandidate::index).containsExactly("by_tid");
    }

    @Test
    void should_add_the_newest_write_columns_without_a_rebuild_when_the_rows_table_of_a_versioned_table_predates_them() {
        TableDef def = revisions();
        LiveSchema live = appliedWithRowsTableLacking(def, io.cassandragsi.schema.RowsLayout.NEWEST_HI, io.cassandragsi.schema.RowsLayout.NEWEST_LO);
        Plan plan = plan(live, def);
        assertThat(plan.statements()).extracting(io.cassandragsi.schema.CqlGenerator.Statement::cql)
                .containsExactly("ALTER TABLE \"wiki\".\"idx_revisions__rows\" ADD (\"_whi\" bigint, \"_wlo\" bigint);");
        assertThat(plan.rebuildCandidates()).isEmpty();
        assertThat(plan(live.with(LiveFixtures.rowsTable(def)), def).statements()).as("once they are there").isEmpty();
    }

    @Test
    void should_add_the_write_id_column_without_a_rebuild_when_the_rows_table_of_an_unversioned_table_predates_it() {
        TableDef def = Definitions.read(java.nio.file.Path.of("../schemas/examples/users.json"));
        LiveSchema live = appliedWithRowsTableLacking(def, io.cassandragsi.schema.RowsLayout.WRITE_ID);
        Plan plan = plan(live, def);
        assertThat(plan.statements()).extracting(io.cassandragsi.schema.CqlGenerator.Statement::cql)
                .containsExactly("ALTER TABLE " + io.cassandragsi.schema.Cql.qualified(def.keyspace(), io.cassandragsi.schema.RowsLayout.tableName(def.table()))
                        + " ADD \"_wid\" timeuuid;");
        assertThat(plan.rebuildCandidates()).isEmpty();
        assertThat(plan(live.with(LiveFixtures.rowsTable(def)), def).statements()).as("once it is there").isEmpty();
    }

    /** Everything a definition's apply made, with the trigger, but a rows table without {@code missing} (made by an older version). */
    private static LiveSchema appliedWithRowsTableLacking(TableDef def, String... missing) {
        LiveTable rows = LiveFixtures.rowsTable(def);
        Map<String, String> columns = new java.util.LinkedHashMap<>(rows.columns());
        for (String column : missing) {
            columns.remove(column);
        }
        LiveTable old = new LiveTable(rows.keyspace(), rows.name(), rows.partitionKey(), rows.clustering(), columns, rows.comment(), rows.triggers());
        LiveSchema live = LiveFixtures.project("gsi").with(LiveFixtures.baseTable(def, Map.of(CqlGenerator.TRIGGER_NAME, CqlGenerator.TRIGGER_CLASS)))
                .with(old);
        for (io.cassandragsi.schema.Index index : def.indexes().values()) {
            live = live.with(LiveFixtures.indexTable(def, index));
        }
        return live;
    }

    @Test
    void should_only_add_the_second_table_when_the_first_exists() {
        Plan plan = plan(LiveFixtures.created(revisions()), revisions(), talk("wiki"));
        assertThat(purposes(plan)).containsExactly(
                "create base table wiki.talk",
                "create rows table wiki.idx_talk__rows (the entry keys each row has had)",
                "create index table wiki.idx_talk_by_author_ever (index by_author)",
                "create trigger gsi_index on wiki.talk");
    }

    @Test
    void should_add_done_before_to_the_checkpoints_table_of_an_older_release() {
        LiveSchema live = LiveFixtures.created(revisions()).with(new LiveTable("gsi", CheckpointsTable.TABLE, List.of(LiveColumn.of("shard", "int")),
                List.of(), Map.of("shard", "int", "resume_from", "timestamp", "updated_by", "text"), "", Map.of()));
        Plan plan = plan(live, revisions());
        assertThat(plan.statements()).singleElement().satisfies(s -> {
            assertThat(s.purpose()).startsWith("add done_before to gsi.checkpoints");
            assertThat(s.cql()).isEqualTo("ALTER TABLE \"gsi\".\"checkpoints\" ADD done_before timestamp;");
        });
    }

    @Test
    void should_add_cdc_lost_to_the_progress_table_of_an_older_release() {
        LiveSchema live = LiveFixtures.created(revisions()).with(new LiveTable("gsi", io.cassandragsi.schema.NodeProgressLayout.TABLE,
                List.of(LiveColumn.of("shard", "int")), List.of(), Map.of("shard", "int", "retried", "bigint"), "", Map.of()));
        Plan plan = plan(live, revisions());
        assertThat(plan.statements()).extracting(s -> s.cql()).containsExactly("ALTER TABLE \"gsi\".\"node_progress\" ADD cdc_lost bigint;",
                "ALTER TABLE \"gsi\".\"node_progress\" ADD cdc_lost_behind text;", "ALTER TABLE \"gsi\".\"node_progress\" ADD cdc_repaired text;");
        assertThat(plan.statements().get(0).purpose()).startsWith("add cdc_lost to gsi.node_progress");
    }

    @Test
    void should_add_only_the_cdc_repair_columns_to_a_progress_table_that_has_cdc_lost() {
        LiveSchema live = LiveFixtures.created(revisions()).with(new LiveTable("gsi", io.cassandragsi.schema.NodeProgressLayout.TABLE,
                List.of(LiveColumn.of("shard", "int")), List.of(), Map.of("shard", "int", "cdc_lost", "bigint"), "", Map.of()));
        Plan plan = plan(live, revisions());
        assertThat(plan.statements()).extracting(s -> s.purpose()).allMatch(p -> p.contains("gsi.node_progress")).hasSize(2);
        assertThat(plan.statements()).extracting(s -> s.cql()).containsExactly("ALTER TABLE \"gsi\".\"node_progress\" ADD cdc_lost_behind text;",
                "ALTER TABLE \"gsi\".\"node_progress\" ADD cdc_repaired text;");
    }

    @Test
    void should_use_configured_queue_settings_when_creating_the_queue() {
        QueueLayout.Settings settings = new QueueLayout.Settings(32, 10, 604800);
        Plan plan = SchemaPlanner.plan(List.of(revisions()), LiveSchema.empty(), "gsi_x", REPLICATION, settings);
        assertThat(plan.statements().get(1).cql()).isEqualTo(QueueLayout.createTable("gsi_x", settings));
    }

    @Test
    void should_add_attribute_projection_and_refresh_comments_when_definition_grew() {
        TableDef grown = Definitions.parse(REVISIONS
                .replace("\"value\": \"string\" }", "\"value\": \"string\", \"editor\": \"string\" }")
                .replace("{ \"type\": \"proj\", \"attribute\": \"value\" }",
                        "{ \"type\": \"proj\", \"attribute\": \"value\" }, { \"type\": \"proj\", \"attribute\": \"editor\" }"),
                "revisions.json");
        Plan plan = plan(LiveFixtures.created(revisions()), grown);
        assertThat(plan.errors()).isEmpty();
        assertThat(purposes(plan)).containsExactly(
                "add attribute editor to base table wiki.revisions",
                "add projection editor to index table wiki.idx_revisions_by_length_ever",
                "update the definition in the comment of index table wiki.idx_revisions_by_length_ever",
                "update the definition in the comment of index table wiki.idx_revisions_by_tid_ever");
        assertThat(plan.statements().get(0).cql()).isEqualTo("ALTER TABLE \"wiki\".\"revisions\" ADD \"editor\" text;");
        assertThat(plan.statements().get(1).cql())
                .isEqualTo("ALTER TABLE \"wiki\".\"idx_revisions_by_length_ever\" ADD \"editor\" text;");
        assertThat(plan.statements().get(2).cql())
                .isEqualTo(CqlGenerator.setComment("wiki", "idx_revisions_by_length_ever",
                        CqlGenerator.indexComment(grown, grown.index("by_length"))));
        // existing rows have no editor yet: nothing to back-fill
        assertThat(plan.rebuildCandidates()).isEmpty();
    }

    @Test
    void should_flag_rebuild_when_an_existing_attribute_becomes_projected() {
        TableDef projected = revisions("\"by_tid\": [\n      { \"type\": \"hash\", \"attribute\": \"tid\" }",
                "\"by_tid\": [\n      { \"type\": \"hash\", \"attribute\": \"tid\" }, { \"type\": \"proj\", \"attribute\": \"value\" }");
        Plan plan = plan(LiveFixtures.created(revisions()), projected);
        assertThat(purposes(plan)).contains("add projection value to index table wiki.idx_revisions_by_tid_ever");
        assertThat(plan.rebuildCandidates()).singleElement().satisfies(c -> {
            assertThat(c.index()).isEqualTo("by_tid");
            assertThat(c.reason()).isEqualTo("new projection(s): value");
            assertThat(c.command()).isEqualTo("./gsi rebuild wiki.revisions by_tid");
        });
    }

    @Test
    void should_not_flag_rebuild_when_new_index_is_keyed_on_a_new_attribute() {
        TableDef def = Definitions.parse(REVISIONS
                .replace("\"value\": \"string\" }", "\"value\": \"string\", \"editor\": \"string\" }")
                .replace("\"by_tid\": [", "\"by_editor\": [ { \"type\": \"hash\", \"attribute\": \"editor\" } ],\n\"by_tid\": ["),
                "revisions.json");
        Plan plan = plan(LiveFixtures.created(revisions()), def);
        assertThat(purposes(plan)).contains("create index table wiki.idx_revisions_by_editor_ever (index by_editor)");
        assertThat(plan.rebuildCandidates()).isEmpty();
    }

    @Test
    void should_create_the_bucket_table_and_flag_rebuild_when_an_index_gets_a_bucket() {
        TableDef bucketed = revisions("{ \"type\": \"proj\", \"attribute\": \"value\" }",
                "{ \"type\": \"proj\", \"attribute\": \"value\" }, { \"type\": \"bucket\", \"period\": \"day\" }");
        Plan plan = plan(LiveFixtures.created(revisions()), bucketed);
        assertThat(plan.errors()).isEmpty();
        assertThat(purposes(plan)).contains("update the definition in the comment of index table wiki.idx_revisions_by_length_ever",
                "create bucket table wiki.idx_revisions_by_length_day (index by_length, one bucket per day)");
        assertThat(plan.statements()).filteredOn(s -> s.purpose().startsWith("create bucket table")).singleElement().satisfies(s -> assertThat(
                s.cql()).startsWith("CREATE TABLE IF NOT EXISTS \"wiki\".\"idx_revisions_by_length_day\"").contains(
                        "PRIMARY KEY ((\"_bucket\", \"length\"), \"key\")"));
        assertThat(plan.rebuildCandidates()).singleElement().satisfies(c -> {
            assertThat(c.index()).isEqualTo("by_length");
            assertThat(c.reason()).isEqualTo("new bucket table (the rebuild seals the ended buckets)");
        });
        assertThat(plan(LiveFixtures.created(bucketed), bucketed).statements()).as("nothing once it exists").isEmpty();
        Plan fresh = plan(LiveSchema.empty(), bucketed);
        assertThat(purposes(fresh)).contains("create bucket table wiki.idx_revisions_by_length_day (index by_length, one bucket per day)");
        assertThat(fresh.rebuildCandidates()).as("a new table has nothing to seal").isEmpty();
    }

    @Test
    void should_create_index_and_flag_rebuild_when_index_is_added_to_existing_table() {
        TableDef withIndex = revisions("\"by_tid\": [", "\"by_value\": [ { \"type\": \"hash\", \"attribute\": \"value\" } ],\n\"by_tid\": [");
        Plan plan = plan(LiveFixtures.created(revisions()), withIndex);
        assertThat(purposes(plan)).containsExactly(
                "update the definition in the comment of index table wiki.idx_revisions_by_length_ever",
                "create index table wiki.idx_revisions_by_value_ever (index by_value)",
                "update the definition in the comment of index table wiki.idx_revisions_by_tid_ever");
        assertThat(plan.rebuildCandidates()).singleElement().satisfies(c -> {
            assertThat(c.index()).isEqualTo("by_value");
            assertThat(c.firstPartitionKeyColumn()).isEqualTo("key");
            assertThat(c.reason()).isEqualTo("new index");
        });
    }

    @Test
    void should_retire_and_not_drop_when_index_left_the_definition() {
        TableDef withoutByTid = revisions(",\n    \"by_tid\": [\n      { \"type\": \"hash\", \"attribute\": \"tid\" }\n    ]", "");
        assertThat(withoutByTid.indexes()).containsOnlyKeys("by_length");
        Plan plan = plan(LiveFixtures.created(revisions()), withoutByTid);
        assertThat(plan.errors()).isEmpty();
        assertThat(plan.statements()).allSatisfy(s -> assertThat(s.cql()).doesNotContain("DROP"));
        assertThat(purposes(plan)).containsExactly(
                "update the definition in the comment of index table wiki.idx_revisions_by_length_ever",
                "retire index table wiki.idx_revisions_by_tid_ever (index 'by_tid' left the definition): the trigger stops maintaining it");
        assertThat(plan.statements().get(1).cql()).contains("\"retired\":true");
        assertThat(plan.warnings()).singleElement().asString()
                .contains("wiki.idx_revisions_by_tid_ever serves index 'by_tid', which is no longer in the definition")
                .contains("left in place, not dropped");
    }

    @Test
    void should_warn_and_keep_column_when_projection_left_the_definition() {
        TableDef noProj = revisions(",\n      { \"type\": \"proj\", \"attribute\": \"value\" }", "");
        Plan plan = plan(LiveFixtures.created(revisions()), noProj);
        assertThat(plan.errors()).isEmpty();
        assertThat(plan.warnings()).singleElement().asString()
                .contains("has column 'value', which the definition no longer projects; left in place");
    }

    @Test
    void should_refuse_and_name_drop_or_rename_when_index_key_changed() {
        TableDef changed = revisions("{ \"type\": \"proj\", \"attribute\": \"value\" }",
                "{ \"type\": \"range\", \"attribute\": \"value\" }");
        Plan plan = plan(LiveFixtures.created(revisions()), changed);
        assertThat(plan.errors()).singleElement().asString()
                .startsWith("wiki.revisions: index 'by_length': the index key changed")
                .contains("DROP TABLE wiki.idx_revisions_by_length_ever")
                .contains("give the index a new name");
    }

    @Test
    void should_refuse_when_primary_key_changed() {
        TableDef changed = revisions("\"order\": \"desc\", \"attribute\": \"tid\"", "\"order\": \"asc\", \"attribute\": \"tid\"");
        Plan plan = plan(LiveFixtures.created(revisions()), changed);
        assertThat(plan.errors()).singleElement().asString()
                .contains("wiki.revisions: the primary key differs from the definition")
                .contains("tid timeuuid DESC")
                .contains("cannot be changed in place");
        assertThat(plan.statements()).noneMatch(s -> s.cql().contains("revisions"));
    }

    @Test
    void should_refuse_when_column_type_changed() {
        TableDef changed = revisions("\"length\": \"varint\"", "\"length\": \"long\"");
        Plan plan = plan(LiveFixtures.created(revisions()), changed);
        assertThat(plan.errors()).singleElement().asString()
                .isEqualTo("wiki.revisions: attribute 'length' is varint in the table but long (bigint) in the definition;"
                        + " a column type cannot be changed in place");
    }

    @Test
    void should_refuse_counter_tables_when_base_table_has_counter_columns() {
        Map<String, String> columns = new LinkedHashMap<>(Map.of("key", "text", "tid", "timeuuid"));
        columns.put("hits", "counter");
        LiveTable counters = new LiveTable("wiki", "revisions", List.of(LiveColumn.of("key", "text")),
                List.of(new LiveColumn("tid", "timeuuid", io.cassandragsi.schema.Order.DESC)), columns, "", Map.of());
        Plan plan = plan(LiveFixtures.project("gsi").with(counters), revisions());
        assertThat(plan.errors()).singleElement().asString()
                .isEqualTo("wiki.revisions: is a counter table; counter tables cannot have global secondary indexes"
                        + " (Cassandra rejects counter writes that carry trigger mutations)");
    }

    @Test
    void should_refuse_when_index_table_name_is_taken_by_a_foreign_table() {
        TableDef def = revisions();
        LiveTable foreign = new LiveTable("wiki", "idx_revisions_by_tid_ever", List.of(LiveColumn.of("x", "int")), List.of(),
                Map.of("x", "int"), "someone else's table", Map.of());
        Plan plan = plan(LiveFixtures.created(def).with(foreign), def);
        assertThat(plan.errors()).singleElement().asString()
                .contains("table wiki.idx_revisions_by_tid_ever exists but is not a gsi index table");
    }

    @Test
    void should_create_trigger_when_it_is_missing_on_an_existing_table() {
        TableDef def = revisions();
        LiveSchema live = LiveFixtures.created(def).with(LiveFixtures.baseTable(def, Map.of()));
        Plan plan = plan(live, def);
        assertThat(purposes(plan)).containsExactly("create trigger gsi_index on wiki.revisions",
                "make clients re-prepare their statements on wiki.revisions so that their writes fire the new trigger (1/2)",
                "... and restore gc_grace_seconds (2/2)");
        // statements prepared before CREATE TRIGGER keep the old trigger set: a gc_grace_seconds change invalidates them
        assertThat(plan.statements().get(1).cql()).isEqualTo("ALTER TABLE \"wiki\".\"revisions\" WITH gc_grace_seconds = 864001;");
        assertThat(plan.statements().get(2).cql()).isEqualTo("ALTER TABLE \"wiki\".\"revisions\" WITH gc_grace_seconds = 864000;");
    }

    @Test
    void should_refuse_when_trigger_name_is_used_by_another_class() {
        TableDef def = revisions();
        LiveSchema live = LiveFixtures.created(def)
                .with(LiveFixtures.baseTable(def, Map.of(CqlGenerator.TRIGGER_NAME, "com.example.Other")));
        assertThat(plan(live, def).errors()).singleElement().asString().contains("DROP TRIGGER gsi_index ON wiki.revisions");
    }

    @Test
    void should_refuse_when_a_table_is_defined_twice() {
        assertThat(plan(LiveSchema.empty(), revisions(), revisions()).errors()).singleElement().asString()
                .isEqualTo("wiki.revisions is defined twice; give each table one definition file");
    }

    @Test
    void should_refuse_definitions_in_the_project_keyspace() {
        Plan plan = plan(LiveSchema.empty(), talk("gsi"));
        assertThat(plan.errors()).singleElement().asString().contains("is the project keyspace");
        assertThat(plan.statements()).isEmpty();
    }

    @Test
    void should_report_every_problem_and_plan_nothing_executable_when_several_are_wrong() {
        TableDef changedType = revisions("\"length\": \"varint\"", "\"length\": \"long\"");
        Map<String, String> columns = new LinkedHashMap<>(Map.of("page", "text", "tid", "timeuuid", "n", "counter"));
        LiveTable counterTalk = new LiveTable("wiki", "talk", List.of(LiveColumn.of("page", "text")),
                List.of(LiveColumn.of("tid", "timeuuid")), columns, "", Map.of());
        Plan plan = plan(LiveFixtures.created(revisions()).with(counterTalk), changedType, talk("wiki"));
        assertThat(plan.errors()).hasSize(2);
        assertThat(plan.hasErrors()).isTrue();
    }

    @Test
    void should_not_create_project_keyspace_when_it_exists_without_queue() {
        Plan plan = plan(LiveSchema.empty().withKeyspace("gsi"), revisions());
        assertThat(purposes(plan)).startsWith("create work queue gsi.queue", "create in-node maintainers' progress gsi.node_progress",
                "create shard checkpoints gsi.checkpoints");
        assertThat(purposes(plan)).doesNotContain("create project keyspace gsi");
    }

    @Test
    void should_create_only_the_missing_service_tables_when_the_queue_exists() {
        LiveSchema live = LiveSchema.empty().with(LiveFixtures.project("gsi").table("gsi", "queue").orElseThrow())
                .with(LiveFixtures.project("gsi").table("gsi", "leases").orElseThrow());
        Plan plan = plan(live);
        assertThat(plan.errors()).isEmpty();
        assertThat(purposes(plan)).containsExactly("create in-node maintainers' progress gsi.node_progress",
                "create shard checkpoints gsi.checkpoints", FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST,
                "create service instances gsi.instances", "create job ledger gsi.jobs", "create bucket seals and changes gsi.buckets",
                "create nodes' trigger jar versions gsi.trigger_versions");
        assertThat(plan.statements()).allSatisfy(s -> assertThat(s.cql()).matches("(?s)(CREATE TABLE IF NOT EXISTS|INSERT INTO) \"gsi\"\\..*"));
    }

    @Test
    void should_stop_read_repair_on_a_queue_made_with_it() {
        LiveTable queue = LiveFixtures.project("gsi").table("gsi", "queue").orElseThrow();
        LiveTable blocking = new LiveTable(queue.keyspace(), queue.name(), queue.partitionKey(), queue.clustering(), queue.columns(),
                queue.comment(), queue.triggers(), queue.gcGraceSeconds(), "BLOCKING");
        LiveSchema live = LiveFixtures.project("gsi").with(blocking);
        Plan plan = plan(live);
        assertThat(plan.statements()).singleElement().satisfies(s -> {
            assertThat(s.purpose()).startsWith("stop read repair on work queue gsi.queue");
            assertThat(s.cql()).isEqualTo("ALTER TABLE \"gsi\".\"queue\" WITH read_repair = 'NONE';");
        });
        assertThat(plan(LiveFixtures.project("gsi")).statements()).as("a queue made with read_repair 'NONE'").isEmpty();
    }

    @Test
    void should_create_the_project_tables_when_there_is_no_definition() {
        Plan plan = plan(LiveSchema.empty());
        assertThat(purposes(plan)).containsExactly("create project keyspace gsi", "create work queue gsi.queue",
                "create in-node maintainers' progress gsi.node_progress", "create shard checkpoints gsi.checkpoints",
                FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, FIRST, "create shard leases gsi.leases", "create service instances gsi.instances",
                "create job ledger gsi.jobs", "create bucket seals and changes gsi.buckets", "create nodes' trigger jar versions gsi.trigger_versions");
        assertThat(plan(LiveFixtures.project("gsi")).statements()).as("and nothing once they exist").isEmpty();
    }

    @Test
    void should_turn_change_data_capture_on_when_a_table_switches_to_eventual_indexing_and_off_when_it_switches_back() {
        TableDef atomic = revisions();
        TableDef eventual = io.cassandragsi.schema.Definitions.parse(io.cassandragsi.schema.Definitions.toJson(atomic)
                .replace("\"table\":\"revisions\",", "\"table\":\"revisions\",\"indexing\":\"eventual\","), "revisions.json");
        assertThat(eventual.indexing()).isEqualTo(io.cassandragsi.schema.Indexing.EVENTUAL);
        assertThat(CqlGenerator.createBaseTable(eventual)).endsWith("WITH CLUSTERING ORDER BY (\"tid\" DESC)\n  AND cdc = true;");
        assertThat(CqlGenerator.createBaseTable(atomic)).doesNotContain("cdc");

        Plan toEventual = plan(LiveFixtures.created(atomic), eventual);
        assertThat(toEventual.errors()).isEmpty();
        assertThat(toEventual.statements()).extracting(Statement::cql).contains("ALTER TABLE \"wiki\".\"revisions\" WITH cdc = true;");
        Plan back = plan(LiveFixtures.created(eventual), atomic);
        assertThat(back.statements()).extracting(Statement::cql).contains("ALTER TABLE \"wiki\".\"revisions\" WITH cdc = false;");
        assertThat(plan(LiveFixtures.created(eventual), eventual).statements()).as("once it is on").isEmpty();
    }
}
