package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DefinitionsTest {

    private static final String BASE = """
            {"keyspace": "wiki", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string", "doc": "json"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {%s}}
            """;

    private static TableDef parse(String indexes) {
        return Definitions.parse(BASE.formatted(indexes), "test.json");
    }

    @Test
    void should_resolve_the_layout_of_the_design_example() {
        TableDef def = Definitions.read(Path.of("examples/revisions.json"));
        assertThat(def.qualifiedName()).isEqualTo("wiki.revisions");
        assertThat(def.tid().name()).isEqualTo("tid");
        Index byLength = def.index("by_length");
        assertThat(byLength.tableName()).isEqualTo("idx_revisions_by_length_ever");
        assertThat(byLength.partitionColumns()).extracting(Column::name).containsExactly("length");
        assertThat(byLength.clusteringColumns()).extracting(Column::name).containsExactly("key");
        assertThat(byLength.perVersion()).isFalse();
        Index byTid = def.index("by_tid");
        assertThat(byTid.perVersion()).isTrue();
        assertThat(byTid.keyColumns()).extracting(Column::name).containsExactly("tid", "key");
    }

    @Test
    void should_use_a_constant_partition_when_an_index_has_no_hash() {
        TableDef def = parse("\"by_len\": [{\"type\": \"range\", \"attribute\": \"length\"}]");
        Index index = def.index("by_len");
        assertThat(index.hasConstantPartition()).isTrue();
        assertThat(index.partitionColumns()).extracting(Column::name).containsExactly(Index.CONSTANT_COLUMN);
        assertThat(index.clusteringColumns()).extracting(Column::name).containsExactly("length", "key");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "unknown attribute | \"by_x\": [{\"type\": \"hash\", \"attribute\": \"lenght\"}] | index 'by_x': attribute 'lenght': unknown attribute",
        "json key | \"by_doc\": [{\"type\": \"hash\", \"attribute\": \"doc\"}] | index 'by_doc': attribute 'doc': type json cannot be part of an index key",
        "bad type word | \"by_x\": [{\"type\": \"hsah\", \"attribute\": \"length\"}] | index 'by_x': attribute 'length': unknown type 'hsah'",
        "twice | \"by_x\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"proj\", \"attribute\": \"length\"}] | attribute 'length': appears twice",
        "proj of key | \"by_x\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"proj\", \"attribute\": \"key\"}] | attribute 'key': is part of the base primary key",
        "only proj | \"by_x\": [{\"type\": \"proj\", \"attribute\": \"value\"}] | index 'by_x': needs at least one hash or range attribute",
        "same key | \"a\": [{\"type\": \"hash\", \"attribute\": \"length\"}], \"b\": [{\"type\": \"hash\", \"attribute\": \"length\"}] | index 'b': duplicate index: same key as index 'a'",
        "duplicate name | \"a\": [{\"type\": \"hash\", \"attribute\": \"length\"}], \"a\": [{\"type\": \"hash\", \"attribute\": \"value\"}] | Duplicate field 'a'",
        "upper-case name | \"ByLen\": [{\"type\": \"hash\", \"attribute\": \"length\"}] | index 'ByLen': index names must be lower case",
        "bad order | \"by_x\": [{\"type\": \"range\", \"order\": \"up\", \"attribute\": \"length\"}] | order must be 'asc' or 'desc'",
        "typo field | \"by_x\": [{\"type\": \"hash\", \"atribute\": \"length\"}] | unknown field 'atribute'",
    })
    void should_name_the_problem_when_an_index_is_bad(String name, String indexes, String message) {
        assertThatThrownBy(() -> parse(indexes))
                .isInstanceOf(DefinitionException.class)
                .hasMessageStartingWith("test.json: ")
                .hasMessageContaining(message);
    }

    @Test
    void should_reject_an_index_table_name_too_long_for_cassandra() {
        String longName = "i".repeat(220);
        assertThatThrownBy(() -> parse("\"" + longName + "\": [{\"type\": \"hash\", \"attribute\": \"length\"}]"))
                .isInstanceOf(DefinitionException.class)
                .hasMessageContaining("is too long for Cassandra")
                .hasMessageContaining("at most 222");
    }

    @Test
    void should_index_an_unversioned_table_with_its_whole_primary_key_in_each_entry() {
        String json = """
                {"keyspace": "k", "table": "t", "attributes": {"id": "string", "v": "int"},
                 "index": [{"type": "hash", "attribute": "id"}],
                 "secondaryIndexes": {"by_v": [{"type": "hash", "attribute": "v"}]}}""";
        TableDef def = Definitions.parse(json, "t.json");
        assertThat(def.versioned()).isFalse();
        assertThat(def.tid()).isNull();
        assertThat(def.index("by_v").perVersion()).isFalse();
        assertThat(def.index("by_v").keyColumns()).extracting(Column::name).containsExactly("v", "id");
        assertThat(Definitions.parse(Definitions.toJson(def), "again").versionedFlag()).isNull();
    }

    @Test
    void should_treat_a_table_as_unversioned_when_the_definition_says_so() {
        String json = """
                {"keyspace": "k", "table": "events", "versioned": false,
                 "attributes": {"src": "string", "at": "timeuuid", "kind": "string"},
                 "index": [{"type": "hash", "attribute": "src"}, {"type": "range", "attribute": "at"}],
                 "secondaryIndexes": {"by_kind": [{"type": "hash", "attribute": "kind"}]}}""";
        TableDef def = Definitions.parse(json, "events.json");
        assertThat(def.endsInTimeuuid()).isTrue();
        assertThat(def.versioned()).isFalse();
        assertThat(def.index("by_kind").keyColumns()).extracting(Column::name).containsExactly("kind", "src", "at");
        TableDef again = Definitions.parse(Definitions.toJson(def), "again");
        assertThat(again.versionedFlag()).isFalse();
        assertThat(again.versioned()).isFalse();
        assertThat(Definitions.parse(json.replace("\"versioned\": false", "\"versioned\": true"), "e.json").versioned()).isTrue();
    }

    @Test
    void should_reject_versioned_true_without_a_timeuuid_and_key_only_indexes_of_unversioned_tables() {
        assertThatThrownBy(() -> Definitions.parse("""
                {"keyspace": "k", "table": "t", "versioned": true, "attributes": {"id": "string", "v": "int"},
                 "index": [{"type": "hash", "attribute": "id"}]}""", "t.json"))
                .hasMessageContaining("t.json: attribute 'id': \"versioned\": true needs the last primary-key attribute to be a timeuuid");
        assertThatThrownBy(() -> Definitions.parse("""
                {"keyspace": "k", "table": "t", "versioned": "yes", "attributes": {"id": "string"},
                 "index": [{"type": "hash", "attribute": "id"}]}""", "t.json"))
                .hasMessageContaining("'versioned' must be true or false");
        assertThatThrownBy(() -> Definitions.parse("""
                {"keyspace": "k", "table": "t", "attributes": {"id": "string", "c": "int", "v": "int"},
                 "index": [{"type": "hash", "attribute": "id"}, {"type": "range", "attribute": "c"}],
                 "secondaryIndexes": {"by_c": [{"type": "hash", "attribute": "c"}]}}""", "t.json"))
                .hasMessageContaining("t.json: index 'by_c': on an unversioned table an index needs at least one hash or range attribute that is not");
    }

    @Test
    void should_reject_unsupported_types_and_unknown_fields() {
        assertThatThrownBy(() -> Definitions.parse("{\"keyspace\":\"k\",\"table\":\"t\",\"attributes\":{\"a\":\"text\"},\"index\":[]}", "x.json"))
                .hasMessageContaining("x.json: attribute 'a': unsupported type 'text'");
        assertThatThrownBy(() -> Definitions.parse("{\"keyspace\":\"k\",\"tabel\":\"t\"}", "x.json"))
                .hasMessageContaining("unknown field 'tabel'");
        assertThatThrownBy(() -> Definitions.parse("{\"keyspace\":\"system\",\"table\":\"t\"}", "x.json"))
                .hasMessageContaining("is a Cassandra system keyspace");
        assertThatThrownBy(() -> Definitions.parse("{ not json", "x.json"))
                .hasMessageStartingWith("x.json: not valid JSON");
        assertThatThrownBy(() -> Definitions.read(Path.of("examples/missing.json")))
                .hasMessageStartingWith("missing.json: cannot read file");
    }

    @Test
    void should_round_trip_through_canonical_json() {
        TableDef def = Definitions.read(Path.of("examples/orders.json"));
        TableDef again = Definitions.parse(Definitions.toJson(def), "again");
        assertThat(Definitions.toJson(again)).isEqualTo(Definitions.toJson(def));
        assertThat(again.index("by_customer").range().get(0).order()).isEqualTo(Order.DESC);
    }

    @Test
    void should_take_eventual_indexing_as_node_maintenance_and_round_trip_it() {
        String json = """
                {"keyspace": "k", "table": "t", "indexing": "eventual", "attributes": {"id": "string", "email": "string"},
                 "index": [{"type": "hash", "attribute": "id"}], "secondaryIndexes": {"by_email": [{"type": "hash", "attribute": "email"}]}}""";
        TableDef def = Definitions.parse(json, "t.json");
        assertThat(def.indexing()).isEqualTo(Indexing.EVENTUAL);
        assertThat(def.maintenance()).isEqualTo(Maintenance.NODE);
        TableDef again = Definitions.parse(Definitions.toJson(def), "again");
        assertThat(again.indexing()).isEqualTo(Indexing.EVENTUAL);
        assertThat(again.maintenance()).isEqualTo(Maintenance.NODE);
        assertThat(Definitions.parse(json.replace("\"indexing\": \"eventual\"", "\"indexing\": \"eventual\", \"maintenance\": \"node\""),
                "t.json").indexing()).isEqualTo(Indexing.EVENTUAL);
        TableDef atomic = Definitions.parse(json.replace("\"indexing\": \"eventual\", ", ""), "t.json");
        assertThat(atomic.indexing()).isEqualTo(Indexing.ATOMIC);
        assertThat(atomic.maintenance()).isEqualTo(Maintenance.SERVICE);
        assertThat(Definitions.toJson(atomic)).doesNotContain("indexing");
    }

    @Test
    void should_reject_eventual_indexing_beside_service_maintenance_naming_both_fields() {
        String json = """
                {"keyspace": "k", "table": "t", "indexing": "%s", "maintenance": "service", "attributes": {"id": "string", "email": "string"},
                 "index": [{"type": "hash", "attribute": "id"}], "secondaryIndexes": {"by_email": [{"type": "hash", "attribute": "email"}]}}""";
        assertThatThrownBy(() -> Definitions.parse(json.formatted("eventual"), "t.json"))
                .isInstanceOf(DefinitionException.class)
                .hasMessageStartingWith("t.json: ")
                .hasMessageContaining("\"indexing\": \"eventual\" and \"maintenance\": \"service\" do not go together");
        assertThatThrownBy(() -> Definitions.parse(json.formatted("lazy"), "t.json"))
                .hasMessageContaining("'indexing' must be \"atomic\"")
                .hasMessageContaining("not \"lazy\"");
        assertThat(Definitions.parse(json.formatted("atomic"), "t.json").maintenance()).isEqualTo(Maintenance.SERVICE);
    }
}
