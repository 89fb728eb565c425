package io.cassandragsi.repair.queue;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.cql.BatchStatement;
import com.datastax.oss.driver.api.core.cql.BatchType;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CoalescedWritesTest {

    @Test
    void should_put_at_most_ten_partitions_in_a_batch_when_statements_are_small() {
        int[] bytes = IntStream.range(0, 25).map(i -> 40).toArray();
        List<List<Integer>> batches = CoalescedWrites.batches(bytes);
        assertThat(batches).extracting(List::size).containsExactly(10, 10, 5);
        assertThat(batches.stream().flatMap(List::stream)).containsExactlyElementsOf(IntStream.range(0, 25).boxed().toList());
    }

    @Test
    void should_keep_a_batch_under_the_byte_cap_when_statements_are_larger() {
        // Cassandra warns above 5 KiB of mutations in a batch and fails above 50 KiB
        int[] bytes = IntStream.range(0, 6).map(i -> 700).toArray();
        for (List<Integer> batch : CoalescedWrites.batches(bytes)) {
            assertThat(batch.stream().mapToInt(i -> bytes[i]).sum()).isLessThanOrEqualTo(CoalescedWrites.BYTES_PER_BATCH);
        }
        assertThat(CoalescedWrites.batches(bytes)).extracting(List::size).containsExactly(2, 2, 2);
    }

    @Test
    void should_send_a_statement_alone_when_it_is_over_the_cap_or_of_unknown_size() {
        int[] bytes = {40, CoalescedWrites.BYTES_PER_BATCH + 1, 40, Integer.MAX_VALUE, 40};
        assertThat(CoalescedWrites.batches(bytes)).containsExactly(List.of(1), List.of(3), List.of(0, 2, 4));
    }

    @Test
    void should_count_an_unknown_size_when_a_batch_holds_a_statement_that_is_not_bound() {
        SimpleStatement simple = SimpleStatement.newInstance("UPDATE ks.t SET v = 1 WHERE k = 1");
        assertThat(CoalescedWrites.bytes(simple)).isEqualTo(Integer.MAX_VALUE);
        BatchStatement batch = BatchStatement.newInstance(BatchType.UNLOGGED, simple, simple);
        assertThat(CoalescedWrites.bytes(batch)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void should_fail_only_the_groups_a_failed_batch_carried() {
        List<String> sent = new ArrayList<>();
        CoalescedWrites writes = new CoalescedWrites(new io.cassandragsi.repair.store.IndexWriter(st -> {
            String cql = st instanceof SimpleStatement s ? s.getQuery() : "batch";
            sent.add(cql);
            return cql.contains("bad")
                    ? java.util.concurrent.CompletableFuture.failedFuture(new IllegalStateException("write timeout"))
                    : java.util.concurrent.CompletableFuture.completedFuture(null);
        }, 4));
        writes.sink(0).write(List.of(SimpleStatement.newInstance("good 0")));
        writes.sink(1).write(List.of(SimpleStatement.newInstance("bad 1"), SimpleStatement.newInstance("good 1")));
        writes.sink(2).write(List.of(SimpleStatement.newInstance("good 2")));
        var failed = writes.send();
        assertThat(failed).containsOnlyKeys(1);
        assertThat(failed.get(1)).hasMessageContaining("write timeout");
        assertThat(sent).containsExactlyInAnyOrder("good 0", "bad 1", "good 1", "good 2");
        assertThat(writes.send()).isEmpty(); // nothing is sent twice
    }
}
