package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class BoundedTest {

    /** Tasks that complete when the test says so, counting how many run at once. */
    private static final class Tasks {
        final List<CompletableFuture<Integer>> started = new ArrayList<>();
        final AtomicInteger running = new AtomicInteger();
        int maxRunning;

        List<Supplier<CompletableFuture<Integer>>> of(int n) {
            List<Supplier<CompletableFuture<Integer>>> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(() -> {
                    CompletableFuture<Integer> f = new CompletableFuture<>();
                    started.add(f);
                    maxRunning = Math.max(maxRunning, running.incrementAndGet());
                    return f.whenComplete((v, e) -> running.decrementAndGet());
                });
            }
            return out;
        }
    }

    @Test
    void should_keep_at_most_the_bound_in_flight_and_return_results_in_task_order() {
        Tasks t = new Tasks();
        CompletableFuture<List<Integer>> all = Bounded.run(t.of(10), 3);
        assertThat(t.started).hasSize(3);
        // complete out of order: the last started first
        for (int done = 0; done < 10; done++) {
            CompletableFuture<Integer> f = t.started.stream().filter(x -> !x.isDone()).reduce((a, b) -> b).orElseThrow();
            f.complete(t.started.indexOf(f) * 10);
            assertThat(t.maxRunning).isLessThanOrEqualTo(3);
        }
        assertThat(all.join()).containsExactly(0, 10, 20, 30, 40, 50, 60, 70, 80, 90);
        assertThat(t.maxRunning).isEqualTo(3);
    }

    @Test
    void should_run_tasks_that_complete_at_once_without_waiting() {
        List<Supplier<CompletableFuture<String>>> tasks = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            String v = "v" + i;
            tasks.add(() -> CompletableFuture.completedFuture(v));
        }
        List<String> out = Bounded.run(tasks, 2).join();
        assertThat(out).hasSize(5000).startsWith("v0", "v1").endsWith("v4999");
    }

    @Test
    void should_complete_with_an_empty_list_when_there_are_no_tasks() {
        assertThat(Bounded.<Integer>run(List.of(), 4).join()).isEmpty();
    }

    @Test
    void should_fail_and_start_nothing_more_when_a_task_fails() {
        Tasks t = new Tasks();
        CompletableFuture<List<Integer>> all = Bounded.run(t.of(10), 2);
        t.started.get(0).completeExceptionally(new IllegalStateException("boom"));
        assertThatThrownBy(all::join).isInstanceOf(CompletionException.class).hasRootCauseMessage("boom");
        assertThat(t.started).hasSize(2);
    }
}
