package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bucket element of an index definition ({@code {"type": "bucket", "period": ...}},
 * docs/design.md sections 2 and 3.2): what it parses to, what writes it back, what is rejected and
 * the layout of the bucket table it asks for ({@link BucketLayout}).
 */
class BucketDefinitionsTest {
    /** A versioned table like examples/revisions.json, with the index elements of {@code %s}. */
    private static final String VERSIONED = """
            {"keyspace": "wiki", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {%s}}
            """;
    private static final String BY_LENGTH_DAY = """
            "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                          {"type": "bucket", "period": "day"}]""";

    private static TableDef parse(String indexes) {
        return Definitions.parse(VERSIONED.formatted(indexes), "test.json");
    }

    private static void assertRejected(String json, String index, String... problem) {
        var thrown = assertThatThrownBy(() -> Definitions.parse(json, "test.json"))
                .isInstanceOf(DefinitionException.class)
                .hasMessageStartingWith("test.json: ")
                .hasMessageContaining("index '" + index + "'");
        for (String p : problem) {
            thrown.hasMessageContaining(p);
        }
        thrown.extracting(e -> ((DefinitionException) e).index()).isEqualTo(index);
    }

    @Test
    void should_parse_a_day_bucket_and_name_its_table_when_a_versioned_table_declares_one() {
        TableDef def = parse(BY_LENGTH_DAY);
        Index byLength = def.index("by_length");

        assertThat(byLength.bucket()).isEqualTo(BucketPeriod.DAY);
        assertThat(byLength.bucketTableName()).isEqualTo("idx_revisions_by_length_day");
        assertThat(byLength.tableName()).as("the index table is still there").isEqualTo("idx_revisions_by_length_ever");
        assertThat(byLength.hash()).extracting(Column::name).containsExactly("length");
        assertThat(byLength.proj()).extracting(Column::name).as("the bucket element is no attribute").containsExactly("value");
        assertThat(byLength.range()).isEmpty();
    }

    @Test
    void should_declare_no_bucket_when_an_index_has_no_bucket_element() {
        Index byLength = parse("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}]").index("by_length");
        assertThat(byLength.bucket()).isNull();
        assertThat(byLength.bucketTableName()).isNull();
    }

    @Test
    void should_parse_every_period_when_the_bucket_element_comes_first() {
        for (BucketPeriod p : BucketPeriod.values()) {
            Index index = parse("\"by_length\": [{\"type\": \"bucket\", \"period\": \"" + p.jsonName()
                    + "\"}, {\"type\": \"hash\", \"attribute\": \"length\"}]").index("by_length");
            assertThat(index.bucket()).isEqualTo(p);
            assertThat(index.bucketTableName()).isEqualTo("idx_revisions_by_length_" + p.jsonName());
        }
    }

    @Test
    void should_keep_the_bucket_when_a_definition_is_written_and_read_back() {
        TableDef def = parse(BY_LENGTH_DAY + ", \"by_value\": [{\"type\": \"range\", \"attribute\": \"value\"}, {\"type\": \"bucket\", \"period\": \"month\"}]");
        String json = Definitions.toJson(def);
        TableDef again = Definitions.parse(json, "again.json");

        assertThat(again.index("by_length").bucket()).isEqualTo(BucketPeriod.DAY);
        assertThat(again.index("by_length").bucketTableName()).isEqualTo("idx_revisions_by_length_day");
        assertThat(again.index("by_length").proj()).extracting(Column::name).containsExactly("value");
        assertThat(again.index("by_value").bucket()).isEqualTo(BucketPeriod.MONTH);
        assertThat(Definitions.toJson(again)).as("canonical: a fixed point").isEqualTo(json);
        assertThat(json).contains("{\"type\":\"bucket\",\"period\":\"day\"}");
    }

    @Test
    void should_write_no_bucket_element_when_an_index_has_none() {
        String json = Definitions.toJson(parse("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}]"));
        assertThat(json).doesNotContain("bucket");
        assertThat(Definitions.parse(json, "again.json").index("by_length").bucket()).isNull();
    }

    @Test
    void should_reject_a_bucket_naming_the_index_when_the_table_is_unversioned() {
        String unversioned = """
                {"keyspace": "ks", "table": "users",
                 "attributes": {"id": "string", "email": "string"},
                 "index": [{"type": "hash", "attribute": "id"}],
                 "secondaryIndexes": {"by_email": [{"type": "hash", "attribute": "email"}, {"type": "bucket", "period": "day"}]}}
                """;
        assertRejected(unversioned, "by_email", "a bucket needs a versioned table", "unversioned");
    }

    @Test
    void should_reject_a_bucket_when_the_table_says_it_is_not_versioned() {
        String notVersioned = """
                {"keyspace": "wiki", "table": "revisions", "versioned": false,
                 "attributes": {"key": "string", "tid": "timeuuid", "length": "varint"},
                 "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "attribute": "tid"}],
                 "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}, {"type": "bucket", "period": "year"}]}}
                """;
        assertRejected(notVersioned, "by_length", "a bucket needs a versioned table");
    }

    @Test
    void should_reject_an_unknown_period_naming_it_when_the_period_is_week() {
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": \"week\"}]"),
                "by_length", "'period'", "\"week\"");
    }

    @Test
    void should_reject_a_period_that_is_not_a_string_when_it_is_a_number() {
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": 1}]"),
                "by_length", "'period'");
    }

    @Test
    void should_reject_a_bucket_saying_the_period_is_missing_when_it_has_none() {
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\"}]"),
                "by_length", "'period'", "missing");
    }

    @Test
    void should_reject_the_second_bucket_when_an_index_declares_two() {
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": \"day\"},"
                + " {\"type\": \"bucket\", \"period\": \"month\"}]"), "by_length", "two buckets");
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": \"day\"},"
                + " {\"type\": \"bucket\", \"period\": \"day\"}]"), "by_length", "two buckets");
    }

    @Test
    void should_reject_an_unknown_field_naming_it_when_a_bucket_element_carries_an_attribute() {
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"},"
                + " {\"type\": \"bucket\", \"period\": \"day\", \"attribute\": \"tid\"}]"), "by_length", "unknown field 'attribute'", "bucket");
        assertRejected(VERSIONED.formatted("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"},"
                + " {\"type\": \"bucket\", \"perid\": \"day\"}]"), "by_length", "unknown field 'perid'");
    }

    @Test
    void should_reject_a_bucket_naming_the_tid_when_the_index_key_holds_the_tid() {
        assertRejected(VERSIONED.formatted("\"by_tid\": [{\"type\": \"hash\", \"attribute\": \"tid\"}, {\"type\": \"bucket\", \"period\": \"day\"}]"),
                "by_tid", "attribute 'tid'", "holds the tid");
        assertRejected(VERSIONED.formatted("\"by_len_tid\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"range\", \"attribute\": \"tid\"},"
                + " {\"type\": \"bucket\", \"period\": \"month\"}]"), "by_len_tid", "holds the tid");
    }

    @Test
    void should_reject_a_bucket_only_index_when_it_has_no_key_attribute() {
        assertRejected(VERSIONED.formatted("\"by_nothing\": [{\"type\": \"bucket\", \"period\": \"day\"}]"), "by_nothing");
    }

    @Test
    void should_reject_a_bucket_table_name_too_long_for_cassandra_when_the_index_table_name_fits() {
        // idx_revisions_<name>_ever fits in 222 characters when the name has 203; idx_revisions_<name>_month does not
        String name = "i".repeat(203);
        assertThat(("idx_revisions_" + name + "_ever").length()).isEqualTo(222);
        assertRejected(VERSIONED.formatted("\"" + name + "\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": \"month\"}]"),
                name, "bucket table name", "too long");
        assertThat(parse("\"" + name + "\": [{\"type\": \"hash\", \"attribute\": \"length\"}, {\"type\": \"bucket\", \"period\": \"day\"}]")
                .index(name).bucketTableName()).hasSize(221);
    }

    // ----- BucketLayout

    @Test
    void should_create_the_bucket_table_with_label_and_index_key_as_partition_key_when_an_index_has_a_day_bucket() {
        TableDef def = parse(BY_LENGTH_DAY);
        Index byLength = def.index("by_length");
        String ddl = CqlGenerator.createBucketTable(def, byLength);

        assertThat(ddl).startsWith("CREATE TABLE IF NOT EXISTS \"wiki\".\"idx_revisions_by_length_day\" (")
                .contains("PRIMARY KEY ((\"_bucket\", \"length\"), \"key\")")
                .contains("\"_bucket\" text")
                .contains("\"_first\" timeuuid")
                .contains("\"_seal\" timeuuid")
                .contains("\"_tid\" timeuuid")
                .contains("\"_deleted\" timeuuid")
                .contains("\"value\" text")
                .contains("{\"gsi_bucket\":{\"table\":\"revisions\",\"index\":\"by_length\",\"period\":\"day\"}}")
                .contains("CLUSTERING ORDER BY (\"key\" ASC)")
                .endsWith(";");
        assertThat(CqlGenerator.all(def, "gsi", "{'class': 'SimpleStrategy', 'replication_factor': 1}")).as("the generator creates it too")
                .anyMatch(s -> s.cql().equals(ddl));
    }

    @Test
    void should_put_first_and_seal_last_when_the_layout_lists_its_columns() {
        TableDef def = parse(BY_LENGTH_DAY);
        BucketLayout layout = BucketLayout.of(def.index("by_length"));
        List<Column> columns = layout.columns();

        assertThat(layout.tableName()).isEqualTo("idx_revisions_by_length_day");
        assertThat(columns).extracting(Column::name).containsExactly("length", "key", "value", "_tid", "_deleted", "_first", "_seal");
        assertThat(layout.firstColumn()).isEqualTo(columns.size() - 2);
        assertThat(layout.sealColumn()).isEqualTo(columns.size() - 1);
        assertThat(columns.get(layout.firstColumn()).name()).isEqualTo(BucketLayout.FIRST_COLUMN);
        assertThat(columns.get(layout.sealColumn()).name()).isEqualTo(BucketLayout.SEAL_COLUMN);
        assertThat(layout.partitionColumns()).extracting(Column::name).containsExactly("_bucket", "length");
        assertThat(layout.clusteringColumns()).extracting(Column::name).containsExactly("key");
    }

    @Test
    void should_refuse_a_layout_when_the_index_declares_no_bucket() {
        Index plain = parse("\"by_length\": [{\"type\": \"hash\", \"attribute\": \"length\"}]").index("by_length");
        assertThatThrownBy(() -> BucketLayout.of(plain)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("by_length");
    }
}
