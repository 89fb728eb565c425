package io.cassandragsi.repair.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import org.junit.jupiter.api.Test;

/** The one column layout of an index table: the order written and selected, and the positions decoded. */
class IndexColumnsTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string", "author": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}],
               "by_author": [{"type": "hash", "attribute": "author"}, {"type": "range", "attribute": "tid"}]}}
            """, "revisions.json");

    @Test
    void should_decode_each_column_where_it_writes_it_when_the_index_keeps_tid_and_deleted() {
        IndexColumns c = IndexColumns.of(DEF.index("by_length"));
        assertThat(c.cqlNames()).containsExactly("\"length\"", "\"key\"", "\"value\"", "\"_tid\"", "\"_deleted\"");
        assertThat(c.keySize()).isEqualTo(2);
        assertThat(c.cqlNames().get(c.column("length"))).isEqualTo("\"length\"");
        assertThat(c.cqlNames().get(c.column("key"))).isEqualTo("\"key\"");
        assertThat(c.cqlNames().get(c.column("value"))).isEqualTo("\"value\"");
        assertThat(c.cqlNames().get(c.tidColumn())).isEqualTo("\"_tid\"");
        assertThat(c.cqlNames().get(c.deletedColumn())).isEqualTo("\"_deleted\"");
        assertThat(c.column("author")).isEqualTo(-1);
    }

    @Test
    void should_have_no_tid_or_deleted_column_when_the_index_is_per_version() {
        IndexColumns c = IndexColumns.of(DEF.index("by_author"));
        assertThat(c.cqlNames()).containsExactly("\"author\"", "\"tid\"", "\"key\"");
        assertThat(c.tidColumn()).isEqualTo(-1);
        assertThat(c.deletedColumn()).isEqualTo(-1);
        assertThat(c.keyColumn("tid")).isEqualTo(1);
    }
}
