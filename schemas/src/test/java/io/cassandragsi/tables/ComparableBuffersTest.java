package io.cassandragsi.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.Definitions;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Buffers that reach Cassandra's internals from our own code must have an array (or be direct):
 * Cassandra's Unsafe comparisons and copies read a buffer without an array as direct memory, so a
 * read-only heap buffer crashes the node (docs/design.md section 7.8).
 */
class ComparableBuffersTest {

    @Test
    void should_give_elements_of_a_serialized_collection_with_their_array() {
        ByteBuffer set = CollectionBytes.of(List.of(utf8("a"), utf8("bc")));
        List<ByteBuffer> elements = CollectionBytes.elements(set.asReadOnlyBuffer().duplicate().position(0));
        assertThat(CollectionBytes.elements(set)).allSatisfy(e -> assertThat(e.hasArray()).isTrue()).containsExactly(utf8("a"), utf8("bc"));
        assertThat(elements).containsExactly(utf8("a"), utf8("bc")); // a read-only input still decodes
    }

    @Test
    void should_give_the_constant_partition_of_an_index_without_a_hash_attribute_with_its_array() {
        var def = Definitions.parse("""
                {"keyspace": "ks", "table": "t", "attributes": {"id": "string", "n": "int"},
                 "index": [{"type": "hash", "attribute": "id"}],
                 "secondaryIndexes": {"by_n": [{"type": "range", "attribute": "n"}]}}""", "t.json");
        IndexPlan plan = TablePlan.of(def).indexes().get(0);
        assertThat(plan.constantPartition().hasArray()).isTrue();
        assertThat(plan.constantPartition()).isEqualTo(utf8("by_n"));
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
