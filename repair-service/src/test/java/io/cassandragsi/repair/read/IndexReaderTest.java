package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class IndexReaderTest {

    @Test
    void should_fetch_as_many_rows_as_items_are_missing_on_a_first_page() {
        assertThat(IndexReader.fetchSize(0, 1, 0)).isEqualTo(1);
        assertThat(IndexReader.fetchSize(0, 10, 0)).isEqualTo(10);
        assertThat(IndexReader.fetchSize(0, IndexReader.MAX_LIMIT, 0)).isEqualTo(IndexReader.MAX_LIMIT);
    }

    @Test
    void should_fetch_the_rows_a_token_skips_on_top_of_the_missing_items() {
        assertThat(IndexReader.fetchSize(7, 10, 0)).isEqualTo(17);
        assertThat(IndexReader.fetchSize(990, 10, 0)).isEqualTo(IndexReader.MAX_LIMIT);
    }

    @Test
    void should_never_fetch_more_rows_than_cassandra_counts_tombstones_of_without_warning() {
        // every entry row carries a _deleted cell tombstone; Cassandra warns above 1,000 per read
        assertThat(IndexReader.MAX_LIMIT).isLessThanOrEqualTo(1000);
        assertThat(IndexReader.fetchSize(999, IndexReader.MAX_LIMIT, 0)).isEqualTo(IndexReader.MAX_LIMIT);
        assertThat(IndexReader.fetchSize(500, 3, 800)).isEqualTo(IndexReader.MAX_LIMIT);
        for (int skip = 0; skip < IndexReader.MAX_LIMIT; skip++) {
            int size = IndexReader.fetchSize(skip, 1, 0);
            assertThat(size).as("skip %d", skip).isGreaterThan(skip).isLessThanOrEqualTo(IndexReader.MAX_LIMIT);
        }
    }

    @Test
    void should_fetch_at_least_twice_as_many_rows_as_last_time_when_entries_no_longer_match() {
        assertThat(IndexReader.fetchSize(0, 3, 10)).isEqualTo(20);
        assertThat(IndexReader.fetchSize(0, 3, 20)).isEqualTo(40);
        assertThat(IndexReader.fetchSize(0, 90, 20)).isEqualTo(90);
        assertThat(IndexReader.fetchSize(0, 3, 800)).isEqualTo(IndexReader.MAX_LIMIT);
        assertThat(IndexReader.fetchSize(0, 3, 0)).as("the last fetch matched throughout").isEqualTo(3);
    }

    @Test
    void should_check_base_rows_in_as_few_queries_as_allowed_of_even_size() {
        int max = io.cassandragsi.repair.store.BaseTable.ROWS_PER_QUERY;
        assertThat(IndexReader.querySize(1)).isEqualTo(1);
        assertThat(IndexReader.querySize(max)).isEqualTo(max);
        assertThat(IndexReader.querySize(max + 1)).isEqualTo(max / 2 + 1);
        assertThat(IndexReader.querySize(2 * max)).isEqualTo(max);
        for (int rows = 1; rows <= 20 * max; rows++) {
            int size = IndexReader.querySize(rows);
            int queries = (rows + size - 1) / size;
            assertThat(size).as("rows %d", rows).isBetween(1, max);
            assertThat(queries).as("rows %d", rows).isEqualTo((rows + max - 1) / max);
        }
    }
}
