package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import org.junit.jupiter.api.Test;

class DefinitionCheckTest {
    private static final String REVISIONS = """
            {"keyspace": "wiki", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}],
               "by_tid": [{"type": "hash", "attribute": "tid"}]}}
            """;

    private static TableDef def(String json) {
        return Definitions.parse(json, "revisions.json");
    }

    @Test
    void should_find_no_difference_in_the_same_definition_or_one_that_names_less() {
        assertThat(DefinitionCheck.differences(def(REVISIONS), def(REVISIONS))).isEmpty();
        TableDef onlyByLength = def(REVISIONS.replace("""
                ,
                   "by_tid": [{"type": "hash", "attribute": "tid"}]""", ""));
        assertThat(onlyByLength.indexes().keySet()).containsExactly("by_length");
        assertThat(DefinitionCheck.differences(onlyByLength, def(REVISIONS))).isEmpty();
        assertThat(DefinitionCheck.differences(def(REVISIONS), def(REVISIONS.replace("\"table\": \"revisions\",",
                "\"table\": \"revisions\", \"maintenance\": \"node\",")))).as("maintenance is the writers' business").isEmpty();
    }

    @Test
    void should_name_each_attribute_and_index_that_differs() {
        TableDef served = def(REVISIONS);
        assertThat(DefinitionCheck.differences(def(REVISIONS.replace("\"length\": \"varint\"", "\"length\": \"long\"")), served))
                .containsExactly("wiki.revisions: attribute 'length' of type long expected, Cassandra's definition has varint");
        assertThat(DefinitionCheck.differences(def(REVISIONS.replace("by_length", "by_size")), served))
                .containsExactly("wiki.revisions: index 'by_size' expected, Cassandra serves by_length, by_tid");
        assertThat(DefinitionCheck.differences(def(REVISIONS.replace(", {\"type\": \"proj\", \"attribute\": \"value\"}", "")), served))
                .containsExactly("wiki.revisions: index 'by_length' proj attributes [] expected, Cassandra's definition has [value]");
        assertThat(DefinitionCheck.differences(def(REVISIONS.replace("\"order\": \"desc\", ", "")), served))
                .containsExactly("wiki.revisions: primary key [key] [tid] expected, Cassandra's definition has [key] [tid desc]");
    }
}
