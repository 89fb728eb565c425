package io.cassandragsi.trigger;

import static io.cassandragsi.trigger.OfflineCassandra.counter;
import static io.cassandragsi.trigger.OfflineCassandra.createTables;
import static io.cassandragsi.trigger.OfflineCassandra.markers;
import static io.cassandragsi.trigger.OfflineCassandra.of;
import static io.cassandragsi.trigger.OfflineCassandra.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.CqlGenerator;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.RowsLayout;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.cassandra.db.Mutation;
import org.apache.cassandra.utils.TimeUUID;
import org.junit.jupiter.api.Test;

/**
 * Which index tables the trigger maintains, from the definitions their comments carry (the
 * definitions travel with Cassandra's schema). {@code schema apply} only ever grows a definition and
 * rewrites the comments one table at a time, so while it runs the comments hold two generations:
 * the newest (most attributes) decides, for every index it still has. A definition that does not fit
 * the live table is skipped and counted, and never fails a write.
 */
class DefinitionResolutionTest {
    private final IndexTrigger trigger = new IndexTrigger(() -> true, markers -> fail("no CAS marker expected"));

    /** The revisions table of keyspace {@code ks}; generation 2 adds the attribute {@code lang} and the index {@code by_lang}. */
    private static TableDef definition(String ks, int generation) {
        String lang = generation >= 2 ? ", \"lang\": \"string\"" : "";
        String byLang = generation >= 2 ? ", \"by_lang\": [ { \"type\": \"hash\", \"attribute\": \"lang\" } ]" : "";
        return Definitions.parse("""
                {
                  "keyspace": "%s",
                  "table": "revisions",
                  "attributes": { "key": "string", "tid": "timeuuid", "length": "varint", "value": "string"%s },
                  "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
                  "secondaryIndexes": {
                    "by_length": [ { "type": "hash", "attribute": "length" }, { "type": "proj", "attribute": "value" } ]%s
                  }
                }
                """.formatted(ks, lang, byLang), ks + ".json");
    }

    /** The base table (as {@code baseDdl} makes it), its rows table and the given index tables. */
    private static void createTablesOf(TableDef def, String baseDdl, String... indexTables) {
        OfflineCassandra.init();
        List<String> ddl = new ArrayList<>(List.of(baseDdl, RowsLayout.createTable(def)));
        ddl.addAll(List.of(indexTables));
        createTables(def.keyspace(), ddl);
    }

    private Collection<Mutation> insert(String ks) {
        return trigger.augment(update("INSERT INTO " + ks + ".revisions (key, tid, length, value, lang) VALUES ('k', "
                + TimeUUID.Generator.nextTimeUUID() + ", 5, 'v', 'en')"));
    }

    @Test
    void should_maintain_every_index_by_the_newest_definition_when_the_comments_hold_two_generations() {
        String ks = "trigger_generations";
        TableDef v1 = definition(ks, 1);
        TableDef v2 = definition(ks, 2);
        createTablesOf(v2, CqlGenerator.createBaseTable(v2), CqlGenerator.createIndexTable(v1, v1.index("by_length")),
                CqlGenerator.createIndexTable(v2, v2.index("by_lang")));
        long skipped = counter("SkippedIndexes");

        Collection<Mutation> out = insert(ks);

        assertThat(of(out, ks, "idx_revisions_by_length_ever")).hasSize(1);
        assertThat(of(out, ks, "idx_revisions_by_lang_ever")).as("only the newest definition has by_lang").hasSize(1);
        assertThat(counter("SkippedIndexes")).isEqualTo(skipped);
    }

    @Test
    void should_skip_and_count_an_index_whose_definition_does_not_fit_the_base_table_and_keep_the_others() {
        String ks = "trigger_misfit";
        TableDef v1 = definition(ks, 1);
        TableDef v2 = definition(ks, 2);
        // by_lang's comment holds generation 2 (lang is a string), but the base table's lang is an int
        String base = CqlGenerator.createBaseTable(v1).replace("\"value\" text", "\"value\" text,\n  \"lang\" int");
        assertThat(base).as("premise").contains("\"lang\" int");
        createTablesOf(v1, base, CqlGenerator.createIndexTable(v1, v1.index("by_length")), CqlGenerator.createIndexTable(v2, v2.index("by_lang")));
        long skipped = counter("SkippedIndexes");

        Collection<Mutation> out = trigger.augment(update("INSERT INTO " + ks + ".revisions (key, tid, length, value, lang) VALUES ('k', "
                + TimeUUID.Generator.nextTimeUUID() + ", 5, 'v', 1)"));

        assertThat(of(out, ks, "idx_revisions_by_lang_ever")).isEmpty();
        assertThat(of(out, ks, "idx_revisions_by_length_ever")).as("the index that fits is still maintained").hasSize(1);
        assertThat(markers(out)).hasSize(1);
        assertThat(counter("SkippedIndexes") - skipped).isEqualTo(1);
    }

    @Test
    void should_not_maintain_a_retired_index_table() {
        String ks = "trigger_retired";
        TableDef v2 = definition(ks, 2);
        String live = CqlGenerator.indexComment(v2, v2.index("by_lang"));
        String retired = CqlGenerator.retiredIndexComment(CqlGenerator.parseIndexComment(live, "by_lang"));
        String byLang = CqlGenerator.createIndexTable(v2, v2.index("by_lang")).replace(Cql.literal(live), Cql.literal(retired));
        assertThat(byLang).as("premise").contains("\"retired\":true");
        createTablesOf(v2, CqlGenerator.createBaseTable(v2), CqlGenerator.createIndexTable(v2, v2.index("by_length")), byLang);

        Collection<Mutation> out = insert(ks);

        assertThat(of(out, ks, "idx_revisions_by_lang_ever")).isEmpty();
        assertThat(of(out, ks, "idx_revisions_by_length_ever")).hasSize(1);
    }
}
