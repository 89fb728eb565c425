package io.cassandragsi.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The one column layout of an index table: the DDL declares the columns in the order the service
 * binds, selects and decodes them, and every base row key sits in the entry key.
 */
class IndexLayoutTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "docs",
             "attributes": {"site": "string", "path": "string", "tid": "timeuuid", "length": "varint", "value": "string",
                            "author": "string"},
             "index": [{"type": "hash", "attribute": "site"}, {"type": "range", "attribute": "path"},
                       {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"},
                             {"type": "proj", "attribute": "author"}],
               "by_author": [{"type": "hash", "attribute": "author"}, {"type": "range", "attribute": "tid"}],
               "by_path": [{"type": "range", "attribute": "path"}]}}
            """, "docs.json");

    /** The column names of a CREATE TABLE statement, in the order it declares them. */
    private static List<String> declared(String ddl) {
        Matcher m = Pattern.compile("(?m)^  (\"[^\"]+\") [a-z]").matcher(ddl);
        List<String> names = new ArrayList<>();
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    @Test
    void should_declare_the_columns_in_the_order_the_layout_gives_them() {
        for (Index index : DEF.indexes().values()) {
            assertThat(declared(CqlGenerator.createIndexTable(DEF, index))).as(index.name()).isEqualTo(IndexLayout.of(index).cqlNames());
        }
    }

    @Test
    void should_put_the_key_then_projections_then_tid_and_deleted_when_the_index_spans_versions() {
        IndexLayout l = IndexLayout.of(DEF.index("by_length"));

        assertThat(l.cqlNames()).containsExactly("\"length\"", "\"site\"", "\"path\"", "\"value\"", "\"author\"", "\"_tid\"", "\"_deleted\"");
        assertThat(l.regularColumns()).extracting(Column::name).containsExactly("value", "author", "_tid", "_deleted");
        assertThat(l.keySize()).isEqualTo(3);
        assertThat(l.projColumn(1)).isEqualTo(l.column("author")).isEqualTo(4);
        assertThat(l.tidColumn()).isEqualTo(5);
        assertThat(l.deletedColumn()).isEqualTo(6);
        assertThat(l.column("tid")).as("the tid is no column of its own").isEqualTo(-1);
    }

    @Test
    void should_keep_the_tid_in_the_key_and_no_tid_or_deleted_column_when_the_index_is_per_version() {
        IndexLayout l = IndexLayout.of(DEF.index("by_author"));

        assertThat(l.cqlNames()).containsExactly("\"author\"", "\"tid\"", "\"site\"", "\"path\"");
        assertThat(l.regularColumns()).isEmpty();
        assertThat(l.tidColumn()).isEqualTo(-1);
        assertThat(l.deletedColumn()).isEqualTo(-1);
        assertThat(l.keyColumn("tid")).isEqualTo(1);
    }

    @Test
    void should_find_the_base_row_key_in_every_entry_key() {
        assertThat(IndexLayout.of(DEF.index("by_length")).rowKeyInEntryKey(DEF)).containsExactly(1, 2);
        assertThat(IndexLayout.of(DEF.index("by_author")).rowKeyInEntryKey(DEF)).containsExactly(2, 3);
        assertThat(IndexLayout.of(DEF.index("by_path")).cqlNames()).as("constant partition").startsWith("\"_index\"", "\"path\"", "\"site\"");
        assertThat(IndexLayout.of(DEF.index("by_path")).rowKeyInEntryKey(DEF)).containsExactly(2, 1);
    }

    @Test
    void should_fail_naming_the_attribute_when_a_row_key_attribute_is_not_in_the_entry_key() {
        TableDef other = Definitions.parse("""
                {"keyspace": "ks", "table": "docs",
                 "attributes": {"owner": "string", "tid": "timeuuid", "length": "varint"},
                 "index": [{"type": "hash", "attribute": "owner"}, {"type": "range", "attribute": "tid"}],
                 "secondaryIndexes": {"by_length": [{"type": "hash", "attribute": "length"}]}}
                """, "other.json");

        assertThatThrownBy(() -> IndexLayout.of(DEF.index("by_length")).rowKeyInEntryKey(other)).as("an index of another table")
                .hasMessage("index by_length lacks base key attribute owner")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void should_give_the_row_key_in_definition_positions() {
        assertThat(RowsLayout.rowKey(DEF)).extracting(Column::name).containsExactly("site", "path");
        assertThat(RowsLayout.rowKeyAttributes(DEF)).containsExactly(0, 1);
    }
}
