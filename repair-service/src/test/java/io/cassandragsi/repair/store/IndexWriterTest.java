package io.cassandragsi.repair.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.datastax.oss.driver.api.core.cql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class IndexWriterTest {
    /** A node that answers each statement later, on another thread, counting what is outstanding. */
    private static final class SlowNode {
        final AtomicInteger outstanding = new AtomicInteger();
        final AtomicInteger most = new AtomicInteger();
        final AtomicInteger sent = new AtomicInteger();

        CompletionStage<Object> execute(Statement<?> st) {
            sent.incrementAndGet();
            most.accumulateAndGet(outstanding.incrementAndGet(), Math::max);
            String cql = ((SimpleStatement) st).getQuery();
            CompletableFuture<Object> f = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS).execute(() -> {
                outstanding.decrementAndGet();
                if (cql.startsWith("bad")) {
                    f.completeExceptionally(new IllegalStateException("write timeout: " + cql));
                } else {
                    f.complete(null);
                }
            });
            return f;
        }
    }

    private static SimpleStatement st(String cql) {
        return SimpleStatement.newInstance(cql);
    }

    @Test
    void should_never_have_more_than_the_limit_in_flight_when_several_callers_send_at_once() throws Exception {
        SlowNode node = new SlowNode();
        IndexWriter writer = new IndexWriter(node::execute, 3);
        IndexWriter job = writer.capped(2);
        ExecutorService callers = Executors.newFixedThreadPool(4);
        try {
            List<Future<Map<Integer, Throwable>>> rounds = new ArrayList<>();
            for (int c = 0; c < 4; c++) {
                IndexWriter w = c % 2 == 0 ? writer : job;
                rounds.add(callers.submit(() -> {
                    IndexWriter.Round<Integer> round = w.round(1);
                    for (int i = 0; i < 50; i++) {
                        round.send(st("good " + i), i);
                    }
                    return round.await();
                }));
            }
            for (Future<Map<Integer, Throwable>> r : rounds) {
                assertThat(r.get(10, TimeUnit.SECONDS)).isEmpty();
            }
        } finally {
            callers.shutdownNow();
        }
        assertThat(node.sent.get()).isEqualTo(200);
        assertThat(node.most.get()).isEqualTo(3);
        assertThat(node.outstanding.get()).isZero();
    }

    @Test
    void should_keep_a_capped_writer_within_its_own_limit_when_the_writer_allows_more() throws Exception {
        SlowNode node = new SlowNode();
        IndexWriter.Round<Integer> round = new IndexWriter(node::execute, 100).capped(2).round(1);
        for (int i = 0; i < 30; i++) {
            round.send(st("good " + i), i);
        }
        assertThat(round.await()).isEmpty();
        assertThat(node.most.get()).isEqualTo(2);
    }

    @Test
    void should_report_only_the_groups_whose_statements_failed_when_some_fail() throws Exception {
        SlowNode node = new SlowNode();
        IndexWriter.Round<String> round = new IndexWriter(node::execute, 2).round(1);
        round.send(st("good a1"), "a");
        round.send(st("bad b1"), "b");
        round.send(st("good b2"), "b");
        round.send(st("good c1"), "c");
        round.send(st("bad c2"), "c");
        round.send(st("bad c3"), "c");
        Map<String, Throwable> failed = round.await();
        assertThat(failed).containsOnlyKeys("b", "c");
        assertThat(failed.get("b")).hasMessage("write timeout: bad b1");
        assertThat(failed.get("c")).hasMessageStartingWith("write timeout: bad c");
        assertThat(node.sent.get()).isEqualTo(6); // attempts 1: each sent once
    }

    @Test
    void should_send_a_failed_statement_again_up_to_its_attempts_when_asked() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        IndexWriter writer = new IndexWriter(st -> calls.incrementAndGet() < 3
                ? CompletableFuture.failedFuture(new IllegalStateException("timeout"))
                : CompletableFuture.completedFuture(null), 1);
        IndexWriter.Round<String> round = writer.round(4);
        round.send(st("good"), "g");
        assertThat(round.await()).isEmpty();
        assertThat(calls.get()).isEqualTo(3);
        assertThat(writer.retries()).isEqualTo(2);
    }
}
