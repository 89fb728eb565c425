package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a page resumed from a token starts: pure, no node. */
class IndexTableSourceTest {
    private static final io.cassandragsi.schema.ClusteringOrder DESC_THEN_ASC = io.cassandragsi.schema.ClusteringOrder.of(
            List.of(new io.cassandragsi.schema.Column("n", io.cassandragsi.schema.AttrType.INT, io.cassandragsi.schema.Order.DESC),
                    io.cassandragsi.schema.Column.of("k", io.cassandragsi.schema.AttrType.STRING)));

    private static List<ByteBuffer> key(int n, String k) {
        return List.of(ByteBuffer.allocate(4).putInt(0, n), ByteBuffer.wrap(k.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void should_start_behind_the_key_of_the_last_row_consumed_however_many_rows_were_written_before_it() {
        // the previous page consumed (5,a) (5,c) (3,b); (5,b), (4,a), (4,z) and (3,a) were written since, and (3,c) is new behind
        List<List<ByteBuffer>> rows = List.of(key(5, "a"), key(5, "b"), key(5, "c"), key(4, "a"), key(4, "z"), key(3, "a"), key(3, "b"), key(3, "c"));
        assertThat(IndexTableSource.behind(rows, key(3, "b"), DESC_THEN_ASC)).isEqualTo(7);
        assertThat(IndexTableSource.behind(rows.subList(0, 5), key(3, "b"), DESC_THEN_ASC)).as("all before it: fetch on").isEqualTo(5);
        assertThat(IndexTableSource.behind(rows, key(4, "m"), DESC_THEN_ASC)).as("the row expired: behind where it was").isEqualTo(4);
        assertThat(IndexTableSource.behind(rows, key(9, "a"), DESC_THEN_ASC)).isZero();
    }

    private static byte[] id(String key) {
        return PageToken.rowId(List.of(ByteBuffer.wrap("1".getBytes(StandardCharsets.UTF_8)), ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8))));
    }

    private static List<byte[]> rows(String... keys) {
        return java.util.Arrays.stream(keys).map(IndexTableSourceTest::id).toList();
    }

    @Test
    void should_start_behind_the_last_row_consumed_when_rows_were_inserted_before_it() {
        // the previous page consumed k1, k3, k5 (3 rows); k2 and k4 were written since
        assertThat(IndexTableSource.resume(rows("k1", "k2", "k3", "k4", "k5", "k6"), 3, id("k5"))).isEqualTo(5);
    }

    @Test
    void should_start_behind_the_count_when_the_last_row_is_gone() {
        assertThat(IndexTableSource.resume(rows("k1", "k3", "k6", "k7"), 3, id("k5"))).isEqualTo(3);
        assertThat(IndexTableSource.resume(rows("k1"), 3, id("k5"))).isEqualTo(1);
    }

    @Test
    void should_start_behind_the_count_when_the_token_names_no_row() {
        assertThat(IndexTableSource.resume(rows("k1", "k2", "k3"), 2, null)).isEqualTo(2);
    }

    @Test
    void should_tell_rows_apart_by_every_key_column() {
        byte[] a = PageToken.rowId(List.of(ByteBuffer.wrap(new byte[] {1, 2}), ByteBuffer.wrap(new byte[] {3})));
        byte[] b = PageToken.rowId(List.of(ByteBuffer.wrap(new byte[] {1}), ByteBuffer.wrap(new byte[] {2, 3})));
        assertThat(a).isNotEqualTo(b).hasSize(PageToken.ROW_ID_BYTES);
    }
}
