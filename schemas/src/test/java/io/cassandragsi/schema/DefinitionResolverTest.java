package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The one rule that picks the current definition of a base table and the index tables to maintain,
 * from the comments of its index tables: the trigger and the repair service both resolve with it.
 */
class DefinitionResolverTest {
    /** Generation 2 adds the attribute {@code lang} (of {@code langType}) and the index {@code by_lang}. */
    private static TableDef definition(int generation, String langType, String lengthType) {
        String lang = generation >= 2 ? ", \"lang\": \"" + langType + "\"" : "";
        String byLang = generation >= 2 ? ", \"by_lang\": [ { \"type\": \"hash\", \"attribute\": \"lang\" } ]" : "";
        return Definitions.parse("""
                {
                  "keyspace": "ks",
                  "table": "revisions",
                  "attributes": { "key": "string", "tid": "timeuuid", "length": "%s", "value": "string"%s },
                  "index": [ { "type": "hash", "attribute": "key" }, { "type": "range", "order": "desc", "attribute": "tid" } ],
                  "secondaryIndexes": {
                    "by_length": [ { "type": "hash", "attribute": "length" }, { "type": "proj", "attribute": "value" } ],
                    "by_tid": [ { "type": "hash", "attribute": "tid" } ],
                    "by_size": [ { "type": "range", "attribute": "length" } ]%s
                  }
                }
                """.formatted(lengthType, lang, byLang), "revisions.json");
    }

    private static TableDef definition(int generation) {
        return definition(generation, "string", "varint");
    }

    private static DefinitionResolver.Found found(TableDef def, String index) {
        String comment = CqlGenerator.indexComment(def, def.index(index));
        return new DefinitionResolver.Found(Index.tableName(def.table(), index), CqlGenerator.parseIndexComment(comment, index));
    }

    private static DefinitionResolver.Found retired(TableDef def, String index) {
        String comment = CqlGenerator.retiredIndexComment(CqlGenerator.parseIndexComment(CqlGenerator.indexComment(def, def.index(index)), index));
        return new DefinitionResolver.Found(Index.tableName(def.table(), index), CqlGenerator.parseIndexComment(comment, index));
    }

    private static DefinitionResolver.Resolution resolve(DefinitionResolver.Found... found) {
        return DefinitionResolver.resolve(List.of(found), (table, comment) -> null);
    }

    private static List<String> maintained(DefinitionResolver.Resolution r) {
        return r.maintained().stream().map(DefinitionResolver.Maintained::indexTable).toList();
    }

    @Test
    void should_resolve_every_index_against_the_newest_definition_when_the_comments_hold_two_generations() {
        TableDef v1 = definition(1);
        TableDef v2 = definition(2);

        DefinitionResolver.Found newest = found(v2, "by_lang");
        TableDef chosen = newest.comment().definition();

        DefinitionResolver.Resolution r = resolve(found(v1, "by_length"), newest, found(v1, "by_tid"), found(v1, "by_size"));

        assertThat(r.definition()).isSameAs(chosen);
        assertThat(maintained(r)).as("by_size has no hash attribute: its constant partition column is no attribute").containsExactly(
                "idx_revisions_by_length_ever", "idx_revisions_by_lang_ever", "idx_revisions_by_tid_ever", "idx_revisions_by_size_ever");
        assertThat(r.indexes()).as("resolved against the newest: attribute positions agree").containsExactly(chosen.index("by_length"),
                chosen.index("by_lang"), chosen.index("by_tid"), chosen.index("by_size"));
        assertThat(r.skipped()).isEmpty();
    }

    @Test
    void should_pick_the_first_of_the_largest_definitions_when_several_have_as_many_attributes() {
        DefinitionResolver.Found a = found(definition(2), "by_length");
        DefinitionResolver.Found b = found(definition(2), "by_lang");

        assertThat(resolve(a, b).definition()).isSameAs(a.comment().definition());
    }

    @Test
    void should_ignore_a_retired_index_table_when_choosing_and_maintaining() {
        TableDef v1 = definition(1);
        TableDef v2 = definition(2);

        DefinitionResolver.Found live = found(v1, "by_length");

        DefinitionResolver.Resolution r = resolve(live, retired(v2, "by_lang"));

        assertThat(r.definition()).as("a retired comment says nothing about the definition").isSameAs(live.comment().definition());
        assertThat(maintained(r)).containsExactly("idx_revisions_by_length_ever");
        assertThat(r.skipped()).isEmpty();
    }

    @Test
    void should_have_no_definition_when_every_index_table_is_retired() {
        DefinitionResolver.Resolution r = resolve(retired(definition(2), "by_lang"));

        assertThat(r.definition()).isNull();
        assertThat(r.maintained()).isEmpty();
    }

    @Test
    void should_report_an_index_the_newest_definition_lacks() {
        TableDef v2 = definition(2);
        TableDef v3 = Definitions.parse(Definitions.toJson(v2).replace("\"by_tid\"", "\"by_tid2\""), "v3.json");
        assertThat(v3.index("by_tid")).as("premise").isNull();

        DefinitionResolver.Found newest = found(v3, "by_lang");

        DefinitionResolver.Resolution r = resolve(newest, found(v2, "by_tid"));

        assertThat(r.definition()).as("the first of two as large").isSameAs(newest.comment().definition());
        assertThat(maintained(r)).containsExactly("idx_revisions_by_lang_ever");
        assertThat(r.skipped()).containsExactly(new DefinitionResolver.Skipped("idx_revisions_by_tid_ever", "by_tid",
                DefinitionResolver.Reason.DROPPED, "index table exists but the newest definition lacks index by_tid"));
    }

    @Test
    void should_not_maintain_an_index_table_whose_older_definition_gives_its_attributes_other_types() {
        TableDef v1 = definition(1, "string", "int");
        TableDef v2 = definition(2, "string", "varint");

        DefinitionResolver.Found newest = found(v2, "by_lang");

        DefinitionResolver.Resolution r = resolve(found(v1, "by_length"), newest, found(v1, "by_tid"));

        assertThat(r.definition()).isSameAs(newest.comment().definition());
        assertThat(maintained(r)).containsExactly("idx_revisions_by_lang_ever", "idx_revisions_by_tid_ever");
        assertThat(r.skipped()).extracting(DefinitionResolver.Skipped::indexTable, DefinitionResolver.Skipped::reason)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("idx_revisions_by_length_ever", DefinitionResolver.Reason.OUTDATED));
    }

    @Test
    void should_leave_a_misfit_out_of_the_choice_and_report_the_callers_problem() {
        TableDef v1 = definition(1);
        TableDef v2 = definition(2);
        List<String> asked = new ArrayList<>();

        DefinitionResolver.Found fits = found(v1, "by_length");

        DefinitionResolver.Resolution r = DefinitionResolver.resolve(List.of(fits, found(v2, "by_lang"), retired(v2, "by_tid")),
                (table, comment) -> {
                    asked.add(table);
                    return comment.index().equals("by_lang") ? "the base table has no column lang" : null;
                });

        assertThat(asked).as("retired tables are not checked").containsExactly("idx_revisions_by_length_ever", "idx_revisions_by_lang_ever");
        assertThat(r.definition()).as("a misfit's definition is no candidate").isSameAs(fits.comment().definition());
        assertThat(maintained(r)).containsExactly("idx_revisions_by_length_ever");
        assertThat(r.skipped()).containsExactly(new DefinitionResolver.Skipped("idx_revisions_by_lang_ever", "by_lang",
                DefinitionResolver.Reason.MISFIT, "the base table has no column lang"));
    }

    /** The live columns of the table {@code def} makes. */
    private static DefinitionResolver.LiveTable live(TableDef def) {
        Map<String, DefinitionResolver.LiveColumn> columns = new LinkedHashMap<>();
        def.attributes().forEach((name, type) -> columns.put(name, new DefinitionResolver.LiveColumn(type.cql(), false)));
        return new DefinitionResolver.LiveTable(def.primaryKey().stream().map(Column::name).toList(), columns);
    }

    @Test
    void should_fit_the_tables_the_definition_makes() {
        TableDef v2 = definition(2);
        Set<String> indexColumns = Set.of("length", "key", "value", "_tid", "_deleted");

        assertThat(DefinitionResolver.misfit(v2, "by_length", live(v2), indexColumns::contains)).isNull();
        assertThat(DefinitionResolver.misfit(v2, "by_tid", live(v2), Set.of("tid", "key")::contains)).as("per version: no _tid, _deleted").isNull();
    }

    @Test
    void should_name_what_does_not_fit_the_live_tables() {
        TableDef v2 = definition(2);
        Set<String> all = Set.of("length", "key", "value", "_tid", "_deleted", "lang");
        DefinitionResolver.LiveTable base = live(v2);
        Map<String, DefinitionResolver.LiveColumn> intLang = new LinkedHashMap<>(base.columns());
        intLang.put("lang", new DefinitionResolver.LiveColumn("int", false));
        Map<String, DefinitionResolver.LiveColumn> staticValue = new LinkedHashMap<>(base.columns());
        staticValue.put("value", new DefinitionResolver.LiveColumn("text", true));

        assertThat(DefinitionResolver.misfit(v2, "by_length", new DefinitionResolver.LiveTable(List.of("key"), base.columns()), all::contains))
                .isEqualTo("the base table's primary key differs from the definition's");
        assertThat(DefinitionResolver.misfit(v2, "by_length", new DefinitionResolver.LiveTable(List.of("key", "length"), base.columns()), all::contains))
                .isEqualTo("the base table's primary key differs from the definition's at tid");
        assertThat(DefinitionResolver.misfit(v2, "by_length", live(definition(1)), all::contains)).isEqualTo("the base table has no column lang");
        assertThat(DefinitionResolver.misfit(v2, "by_lang", new DefinitionResolver.LiveTable(base.primaryKey(), intLang), all::contains))
                .isEqualTo("column lang is int in the base table but string in the definition");
        assertThat(DefinitionResolver.misfit(v2, "by_length", new DefinitionResolver.LiveTable(base.primaryKey(), staticValue), all::contains))
                .isEqualTo("column value is a counter or static column");
        assertThat(DefinitionResolver.misfit(v2, "by_length", base, Set.of("length", "key", "value", "_tid")::contains))
                .isEqualTo("the index table has no column _deleted");
        assertThat(DefinitionResolver.misfit(v2, "by_length", base, Set.of("length", "key", "_tid", "_deleted")::contains))
                .isEqualTo("the index table has no column value");
    }
}
