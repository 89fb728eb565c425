package io.cassandragsi.repair.read;

import io.cassandragsi.maintain.Version;
import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.uuid.Uuids;
import io.cassandragsi.index.Tids;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ItemLayoutTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "revisions",
             "attributes": {"key": "string", "tid": "timeuuid", "length": "varint", "value": "string", "author": "string"},
             "index": [{"type": "hash", "attribute": "key"}, {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_length": [{"type": "hash", "attribute": "length"}, {"type": "proj", "attribute": "value"}],
               "by_author": [{"type": "hash", "attribute": "author"}, {"type": "range", "attribute": "tid"}]}}
            """, "revisions.json");

    private static Version version(String key, UUID tid, long length, String value, String author) {
        return new Version(new ByteBuffer[] {utf8(key), Tids.bytes(tid), ByteBuffer.wrap(BigInteger.valueOf(length).toByteArray()),
            utf8(value), utf8(author)}, 1);
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void should_order_an_items_attributes_index_key_then_base_key_with_tid_then_projections() {
        assertThat(ItemLayout.of(DEF, DEF.index("by_length")).names).containsExactly("length", "key", "tid", "value");
        assertThat(ItemLayout.of(DEF, DEF.index("by_author")).names).containsExactly("author", "tid", "key");
    }

    @Test
    void should_find_the_tid_of_an_entry_in_its_tid_column_unless_the_index_is_per_version() {
        ItemLayout byLength = ItemLayout.of(DEF, DEF.index("by_length"));
        // index row: length, key | value | _tid, _deleted
        assertThat(byLength.keySize).isEqualTo(2);
        assertThat(byLength.tidColumn).isEqualTo(3);
        assertThat(byLength.deletedColumn).isEqualTo(4);
        assertThat(byLength.tidInEntryKey).isEqualTo(-1);
        ItemLayout byAuthor = ItemLayout.of(DEF, DEF.index("by_author"));
        // index row: author, tid, key; no _tid, no _deleted
        assertThat(byAuthor.tidColumn).isEqualTo(-1);
        assertThat(byAuthor.tidInEntryKey).isEqualTo(1);
        assertThat(byAuthor.rowKey(List.of(utf8("ann"), Tids.bytes(Uuids.timeBased()), utf8("k1")))).containsExactly(utf8("k1"));
    }

    @Test
    void should_build_the_same_item_as_a_map_from_a_base_version() {
        UUID tid = Uuids.timeBased();
        Map<String, Object> item = ItemLayout.of(DEF, DEF.index("by_length")).fromVersion(version("k1", tid, 7, "héllo", "ann"));
        Map<String, Object> want = new LinkedHashMap<>();
        want.put("length", BigInteger.valueOf(7));
        want.put("key", "k1");
        want.put("tid", tid.toString());
        want.put("value", "héllo");
        assertThat(item).isEqualTo(want);
        assertThat(item.hashCode()).isEqualTo(want.hashCode());
        assertThat(List.copyOf(item.keySet())).containsExactly("length", "key", "tid", "value");
        assertThat(item.get("value")).isEqualTo("héllo");
        assertThat(item.get("author")).isNull();
        assertThat(item.containsKey("tid")).isTrue();
        assertThat(item.containsKey("author")).isFalse();
    }
}
