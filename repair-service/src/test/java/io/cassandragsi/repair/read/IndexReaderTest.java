package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IndexReaderTest {

    @Test
    void should_fetch_one_row_more_than_the_limit_and_an_eighth_when_paging_the_index() {
        assertThat(IndexReader.pageSize(1)).isEqualTo(2);
        assertThat(IndexReader.pageSize(10)).isEqualTo(12);
        assertThat(IndexReader.pageSize(100)).isEqualTo(113);
        assertThat(IndexReader.pageSize(IndexReader.MAX_LIMIT)).isEqualTo(IndexReader.MAX_LIMIT);
    }
}
