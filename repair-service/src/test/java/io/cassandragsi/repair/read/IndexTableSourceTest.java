package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where a page resumed from a token starts: pure, no node. */
class IndexTableSourceTest {
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
