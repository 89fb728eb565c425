package io.cassandragsi.repair.store;

import io.cassandragsi.maintain.Version;
import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.index.TablePlan;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class BaseTableTest {
    private static final TableDef DEF = Definitions.parse("""
            {"keyspace": "ks", "table": "docs",
             "attributes": {"tenant": "string", "key": "string", "tid": "timeuuid", "body": "blob", "author": "string",
                            "title": "string", "length": "varint"},
             "index": [{"type": "hash", "attribute": "tenant"}, {"type": "range", "attribute": "key"},
                       {"type": "range", "order": "desc", "attribute": "tid"}],
             "secondaryIndexes": {
               "by_author": [{"type": "hash", "attribute": "author"}, {"type": "range", "attribute": "length"},
                             {"type": "proj", "attribute": "title"}],
               "by_tid": [{"type": "hash", "attribute": "tid"}]}}
            """, "docs.json");

    @Test
    void should_check_an_index_with_the_base_key_its_key_and_projections_only() {
        assertThat(BaseTable.checkAttributes(DEF, DEF.index("by_author")))
                .containsExactly("tenant", "key", "tid", "author", "title", "length");
        assertThat(BaseTable.checkAttributes(DEF, DEF.index("by_tid"))).containsExactly("tenant", "key", "tid");
    }

    @Test
    void should_derive_the_checked_index_entry_from_a_version_read_with_those_attributes_only() {
        // the attributes by_author needs, in the order a check selects them; body is not read
        ByteBuffer[] selected = {utf8("t1"), utf8("k1"), io.cassandragsi.index.Tids.bytes(com.datastax.oss.driver.api.core.uuid.Uuids.timeBased()),
            utf8("ann"), utf8("Title"), ByteBuffer.wrap(new byte[] {42})};
        int[] positions = {0, 1, 2, 4, 5, 6};
        ByteBuffer[] values = new ByteBuffer[DEF.attributes().size()];
        BitSet known = new BitSet();
        for (int i = 0; i < positions.length; i++) {
            values[positions[i]] = selected[i];
            known.set(positions[i]);
        }
        Version partial = new Version(values, 2, known);
        ByteBuffer[] all = values.clone();
        all[3] = ByteBuffer.wrap(new byte[1 << 16]);
        Version complete = new Version(all, 2);
        TablePlan plan = TablePlan.of(DEF);
        IndexPlan byAuthor = plan.indexes().stream().filter(p -> p.index().name().equals("by_author")).findFirst().orElseThrow();
        assertThat(plan.entryKey(byAuthor, partial)).isNotNull().isEqualTo(plan.entryKey(byAuthor, complete));
        assertThat(partial.has(3)).as("body was not read").isFalse();
        assertThat(complete.has(3)).isTrue();
    }

    private static ByteBuffer utf8(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
