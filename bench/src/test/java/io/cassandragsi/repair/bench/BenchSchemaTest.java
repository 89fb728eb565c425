package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.CqlGenerator;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CQL of each variant, as text: no node. */
class BenchSchemaTest {
    /** The statements of a variant with identifier quotes removed, for readable assertions. */
    private static List<String> cql(Variant v) {
        return BenchSchema.statements(v).stream().map(s -> s.replace("\"", "")).toList();
    }

    private static long count(List<String> statements, String fragment) {
        return statements.stream().filter(s -> s.contains(fragment)).count();
    }

    @Test
    void should_create_one_index_table_the_queue_and_the_trigger_for_gsi_1() {
        List<String> cql = cql(Variant.GSI_1);
        assertThat(count(cql, "CREATE TABLE IF NOT EXISTS bench_gsi_1.idx_revisions_by_a_ever")).isEqualTo(1);
        assertThat(count(cql, "idx_revisions_by_b_ever")).isZero();
        assertThat(count(cql, "CREATE TABLE IF NOT EXISTS gsi.queue")).isEqualTo(1);
        assertThat(count(cql, "CREATE TRIGGER IF NOT EXISTS gsi_index ON bench_gsi_1.revisions")).isEqualTo(1);
    }

    @Test
    void should_create_three_index_tables_for_gsi_3_and_three_views_for_mv_3() {
        assertThat(count(cql(Variant.GSI_3), "CREATE TABLE IF NOT EXISTS bench_gsi_3.idx_revisions_by_")).isEqualTo(3);
        List<String> mv3 = cql(Variant.MV_3);
        assertThat(count(mv3, "CREATE MATERIALIZED VIEW")).isEqualTo(3);
        assertThat(mv3).anySatisfy(s -> assertThat(s).contains("mv_revisions_by_c").contains("PRIMARY KEY ((c), key, tid)"));
    }

    @Test
    void should_install_the_trigger_without_index_tables_for_trigger_only() {
        List<String> cql = cql(Variant.TRIGGER_ONLY);
        assertThat(count(cql, "CREATE TRIGGER")).isEqualTo(1);
        assertThat(count(cql, "idx_")).isZero();
    }

    @Test
    void should_use_the_same_base_table_in_every_variant_of_a_table() {
        for (Variant v : Variant.values()) {
            List<String> cql = cql(v);
            String table = v.unversioned() ? "items" : "revisions";
            String base = cql.stream().filter(s -> s.startsWith("CREATE TABLE IF NOT EXISTS " + v.keyspace() + "." + table + " "))
                    .findFirst().orElseThrow();
            Variant unindexed = v.unindexed();
            if (v.eventual()) {
                // the one difference: change data capture, eventual indexing's durable record (docs/design.md section 7.11)
                assertThat(base).as(v.label()).contains("cdc = true");
                base = base.replace("\n  AND cdc = true", "").replace(" WITH cdc = true", "");
            }
            assertThat(base.replace(v.keyspace() + ".", "")).as(v.label()).isEqualTo(
                    cql(unindexed).get(1).replace(unindexed.keyspace() + ".", ""));
            boolean trigger = v.indexedByTrigger() || v == Variant.TRIGGER_ONLY;
            assertThat(count(cql, "CREATE TRIGGER")).as(v.label()).isEqualTo(trigger ? 1 : 0);
        }
    }

    @Test
    void should_give_the_unversioned_table_the_versioned_columns_but_the_tid_when_a_variant_is_u() {
        assertThat(cql(Variant.UNINDEXED_U)).containsExactly(
                "CREATE KEYSPACE IF NOT EXISTS bench_unindexed_u WITH replication = " + BenchSchema.REPLICATION + ";",
                "CREATE TABLE IF NOT EXISTS bench_unindexed_u.items (\n  key text,\n  a text,\n  b text,\n  c text,\n"
                        + "  value text,\n  PRIMARY KEY ((key))\n);");
        assertThat(BenchSchema.unversionedDefinition("ks", 1).versioned()).isFalse();
        assertThat(BenchSchema.definition("ks", 1).versioned()).isTrue();
        assertThat(BenchSchema.insertBase(Variant.MV_U))
                .isEqualTo("INSERT INTO bench_mv_u.items (key, a, b, c, value) VALUES (?, ?, ?, ?, ?)");
    }

    @Test
    void should_create_gsi_1_u_as_schema_apply_does_rows_table_included() {
        List<String> cql = BenchSchema.statements(Variant.GSI_1_U);
        assertThat(cql).containsExactlyElementsOf(CqlGenerator.all(BenchSchema.unversionedDefinition("bench_gsi_1_u", 1),
                "gsi", BenchSchema.REPLICATION).stream().map(CqlGenerator.Statement::cql).toList());
        List<String> plain = cql(Variant.GSI_1_U);
        assertThat(count(plain, "CREATE TABLE IF NOT EXISTS bench_gsi_1_u.idx_items__rows")).isEqualTo(1);
        assertThat(count(plain, "CREATE TABLE IF NOT EXISTS bench_gsi_1_u.idx_items_by_a_ever")).isEqualTo(1);
        assertThat(count(plain, "CREATE TRIGGER IF NOT EXISTS gsi_index ON bench_gsi_1_u.items")).isEqualTo(1);
        assertThat(BenchSchema.flushTargets(Variant.GSI_1_U)).containsExactly("bench_gsi_1_u", "gsi.queue", "system.batches");
    }

    @Test
    void should_key_the_unversioned_view_by_a_with_one_row_per_base_row() {
        assertThat(cql(Variant.MV_U)).last().isEqualTo("CREATE MATERIALIZED VIEW IF NOT EXISTS bench_mv_u.mv_items_by_a AS\n"
                + "  SELECT key, a, value FROM bench_mv_u.items\n"
                + "  WHERE a IS NOT NULL AND key IS NOT NULL\n"
                + "  PRIMARY KEY ((a), key);");
        assertThat(cql(Variant.MV)).last().isEqualTo("CREATE MATERIALIZED VIEW IF NOT EXISTS bench_mv.mv_revisions_by_a AS\n"
                + "  SELECT key, tid, a, value FROM bench_mv.revisions\n"
                + "  WHERE a IS NOT NULL AND key IS NOT NULL AND tid IS NOT NULL\n"
                + "  PRIMARY KEY ((a), key, tid)\n"
                + "  WITH CLUSTERING ORDER BY (key ASC, tid DESC);");
    }

    @Test
    void should_index_a_with_sai_and_batch_into_an_index_table_keyed_by_a() {
        assertThat(cql(Variant.SAI)).last().asString().contains("ON bench_sai.revisions (a) USING 'sai'");
        assertThat(cql(Variant.LOGGED_BATCH)).last().asString().contains("PRIMARY KEY ((a), key)");
        assertThat(BenchSchema.insertBatchIndex(Variant.LOGGED_BATCH)).startsWith("INSERT INTO bench_logged_batch.idx_revisions_by_a ");
    }

    @Test
    void should_write_in_the_batch_as_trigger_variant_what_the_trigger_writes() {
        List<String> cql = cql(Variant.BATCH_AS_TRIGGER);
        assertThat(cql).noneMatch(s -> s.contains("CREATE TRIGGER"));
        assertThat(cql).last().asString().startsWith("CREATE TABLE IF NOT EXISTS bench_batch_as_trigger.queue (")
                .contains("default_time_to_live = " + io.cassandragsi.schema.QueueLayout.DEFAULT_TTL_SECONDS);
        // the entry: row marker, value and _tid at TS(tid); no _deleted (the trigger leaves it alone)
        assertThat(BenchSchema.insertTriggerLikeEntry(Variant.BATCH_AS_TRIGGER)).isEqualTo("INSERT INTO"
                + " bench_batch_as_trigger.idx_revisions_by_a_ever (a, key, value, \"_tid\") VALUES (?, ?, ?, ?) USING TIMESTAMP ?");
        // the rows-table row: a _keys element and the newest-write cells, no row marker, no _w (versioned), keyed like the base partition
        assertThat(BenchSchema.updateVersionedRows(Variant.BATCH_AS_TRIGGER)).isEqualTo(
                "UPDATE bench_batch_as_trigger.idx_revisions__rows SET \"_keys\" = \"_keys\" + ?, \"_whi\" = ?, \"_wlo\" = ? WHERE key = ?");
        assertThat(BenchSchema.insertMarker(Variant.BATCH_AS_TRIGGER)).startsWith("INSERT INTO bench_batch_as_trigger.queue ");
        assertThat(BenchSchema.flushTargets(Variant.BATCH_AS_TRIGGER)).containsExactly("bench_batch_as_trigger", "system.batches");
        assertThat(BenchSchema.probes(Variant.BATCH_AS_TRIGGER)).extracting(BenchSchema.Probe::cql).containsExactly(
                "SELECT tid FROM bench_batch_as_trigger.revisions WHERE key = ? LIMIT 1",
                "SELECT \"_tid\" FROM bench_batch_as_trigger.idx_revisions_by_a_ever WHERE a = ? LIMIT 1",
                "SELECT \"_keys\" FROM bench_batch_as_trigger.idx_revisions__rows WHERE key = ?");
    }

    @Test
    void should_create_gsi_1_s_rows_and_index_tables_without_a_trigger_for_batch_as_trigger() {
        for (String table : List.of("revisions", "idx_revisions__rows", "idx_revisions_by_a_ever")) {
            assertThat(creating(Variant.BATCH_AS_TRIGGER, table)).as(table).isEqualTo(creating(Variant.GSI_1, table));
        }
        assertThat(creating(Variant.BATCH_AS_TRIGGER, "idx_revisions__rows")).startsWith(
                "CREATE TABLE IF NOT EXISTS KS.idx_revisions__rows (\n  key text,\n  _keys set<blob>,").contains("PRIMARY KEY ((key))");
        assertThat(cql(Variant.BATCH_AS_TRIGGER)).hasSize(5);
    }

    @Test
    void should_record_the_entry_key_in_the_rows_table_as_the_trigger_does() {
        // the trigger: RowsLayout.element(index name, entry key) for each entry TablePlan derives
        io.cassandragsi.index.TablePlan plan = io.cassandragsi.index.TablePlan.of(BenchSchema.definition("ks", 1));
        WriteSequence.Write w = new WriteSequence.Write("k-1", "a-2", "b-3", "c-4", "v");
        java.util.UUID tid = com.datastax.oss.driver.api.core.uuid.Uuids.timeBased();
        java.util.Map<String, java.nio.ByteBuffer> byName = java.util.Map.of("key", utf8(w.key()), "tid",
                com.datastax.oss.driver.api.core.type.codec.TypeCodecs.TIMEUUID.encode(tid, com.datastax.oss.driver.api.core.ProtocolVersion.DEFAULT),
                "a", utf8(w.a()), "b", utf8(w.b()), "c", utf8(w.c()), "value", utf8(w.value()));
        List<java.nio.ByteBuffer> values = plan.table().attributes().keySet().stream().map(byName::get).toList();
        io.cassandragsi.index.TablePlan.Derivation d = plan.derive(new io.cassandragsi.index.VersionRow() {
            @Override
            public boolean has(int attribute) {
                return true;
            }

            @Override
            public java.nio.ByteBuffer get(int attribute) {
                return values.get(attribute).duplicate();
            }
        });
        assertThat(d.complete()).isTrue();
        assertThat(d.entries()).singleElement().satisfies(e -> assertThat(
                io.cassandragsi.schema.RowsLayout.element(e.index().index().name(), e.key())).isEqualTo(WriteLoad.entryKey(w)));
    }

    private static java.nio.ByteBuffer utf8(String s) {
        return java.nio.ByteBuffer.wrap(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The statement of {@code v} that creates {@code table}, with the keyspace's name replaced by KS. */
    private static String creating(Variant v, String table) {
        return cql(v).stream().filter(s -> s.startsWith("CREATE TABLE IF NOT EXISTS " + v.keyspace() + "." + table + " ("))
                .findFirst().orElseThrow().replace(v.keyspace(), "KS");
    }

    @Test
    void should_create_gsi_1_u_s_rows_and_index_tables_without_a_trigger_for_the_unversioned_aids() {
        for (String table : List.of("idx_items__rows", "idx_items_by_a_ever")) {
            assertThat(creating(Variant.BATCH_AS_TRIGGER_U, table)).as(table).isEqualTo(creating(Variant.GSI_1_U, table));
        }
        assertThat(creating(Variant.ROWS_TABLE_U, "idx_items__rows")).isEqualTo(creating(Variant.GSI_1_U, "idx_items__rows"));
        assertThat(cql(Variant.ROWS_TABLE_U)).hasSize(3);
        assertThat(cql(Variant.BATCH_AS_TRIGGER_U)).noneMatch(s -> s.contains("CREATE TRIGGER"))
                .last().asString().startsWith("CREATE TABLE IF NOT EXISTS bench_batch_as_trigger_u.queue (");
        assertThat(BenchSchema.updateRows(Variant.ROWS_TABLE_U)).isEqualTo("UPDATE bench_rows_table_u.idx_items__rows USING TIMESTAMP ?"
                + " SET \"_keys\" = \"_keys\" + ?, \"_w\" = ? WHERE key = ?");
        assertThat(BenchSchema.updateEntry(Variant.BATCH_AS_TRIGGER_U)).isEqualTo("UPDATE bench_batch_as_trigger_u.idx_items_by_a_ever"
                + " USING TIMESTAMP ? SET value = ?, \"_tid\" = ? WHERE a = ? AND key = ?");
        assertThat(BenchSchema.insertBaseAt(Variant.ROWS_TABLE_U)).endsWith("VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?");
        assertThat(BenchSchema.probes(Variant.BATCH_AS_TRIGGER_U)).extracting(BenchSchema.Probe::column).containsExactly("key", "a", "key");
        assertThat(BenchSchema.probes(Variant.ROWS_TABLE_U).get(1).cql()).contains("bench_rows_table_u.idx_items__rows");
    }

    @Test
    void should_flush_the_queue_only_after_trigger_variants() {
        assertThat(BenchSchema.flushTargets(Variant.GSI_3)).containsExactly("bench_gsi_3", "gsi.queue", "system.batches");
        assertThat(BenchSchema.flushTargets(Variant.MV)).containsExactly("bench_mv", "system.batches");
    }

    @Test
    void should_probe_every_index_through_the_index_itself() {
        assertThat(BenchSchema.probes(Variant.UNINDEXED)).extracting(BenchSchema.Probe::column).containsExactly("key");
        assertThat(BenchSchema.probes(Variant.GSI_3)).extracting(BenchSchema.Probe::column).containsExactly("key", "a", "b", "c", "key");
        assertThat(BenchSchema.probes(Variant.GSI_1).get(2).cql()).isEqualTo("SELECT \"_keys\" FROM bench_gsi_1.idx_revisions__rows WHERE key = ?");
        assertThat(BenchSchema.probes(Variant.GSI_3).get(3).cql())
                .isEqualTo("SELECT \"_tid\" FROM bench_gsi_3.idx_revisions_by_c_ever WHERE c = ? LIMIT 1");
        assertThat(BenchSchema.probes(Variant.MV_3)).hasSize(4);
        assertThat(BenchSchema.probes(Variant.SAI).get(1).cql()).isEqualTo("SELECT key FROM bench_sai.revisions WHERE a = ? LIMIT 1");
        assertThat(BenchSchema.probes(Variant.LOGGED_BATCH).get(1).cql()).contains("bench_logged_batch.idx_revisions_by_a ");
        assertThat(BenchSchema.probes(Variant.GSI_1_U)).extracting(BenchSchema.Probe::cql).containsExactly(
                "SELECT a FROM bench_gsi_1_u.items WHERE key = ? LIMIT 1",
                "SELECT \"_tid\" FROM bench_gsi_1_u.idx_items_by_a_ever WHERE a = ? LIMIT 1",
                "SELECT \"_w\" FROM bench_gsi_1_u.idx_items__rows WHERE key = ?");
        assertThat(BenchSchema.probes(Variant.MV_U).get(1).cql()).isEqualTo("SELECT key FROM bench_mv_u.mv_items_by_a WHERE a = ? LIMIT 1");
        for (Variant v : Variant.values()) {
            assertThat(BenchSchema.probes(v)).allSatisfy(p -> assertThat(p.cql()).containsOnlyOnce("?"));
        }
    }

    @Test
    void should_replicate_every_keyspace_three_times_when_the_cluster_has_three_nodes() {
        for (Variant v : Variant.values()) {
            List<String> keyspaces = BenchSchema.statements(v, 3).stream().filter(s -> s.startsWith("CREATE KEYSPACE")).toList();
            assertThat(keyspaces).as(v.label()).isNotEmpty().allSatisfy(s -> assertThat(s).contains("'replication_factor': 3"));
        }
        assertThat(BenchSchema.projectStatements(8, 3).get(0)).startsWith("CREATE KEYSPACE").contains("'replication_factor': 3");
    }

    @Test
    void should_create_the_queue_with_the_shards_asked_for() {
        List<String> cql = BenchSchema.projectStatements(64);
        assertThat(cql.get(1)).contains("\"shards\":64").contains("\"bucket_seconds\":10");
    }

    @Test
    void should_create_the_service_tables_when_creating_the_project_keyspace() {
        assertThat(BenchSchema.projectStatements(8)).as("the end-to-end variants' service creates no table")
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS \"gsi\".\"checkpoints\""))
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS \"gsi\".\"leases\""))
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS \"gsi\".\"instances\""))
                .anySatisfy(s -> assertThat(s).startsWith("CREATE TABLE IF NOT EXISTS \"gsi\".\"jobs\""));
    }
}
