package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A read through buckets that met a seal in progress (docs/design.md section 8.2): a first page is
 * read again, at most twice more, then 503; a later page is 400 bad_next; other failures pass as
 * they are.
 */
class ResealedRetryTest {
    private final LongAdder again = new LongAdder();
    private final AtomicInteger attempts = new AtomicInteger();

    /** Attempts that complete with the given outcomes in turn: a String is a page, a Throwable a failure. */
    private Supplier<CompletableFuture<String>> outcomes(Object... in) {
        Deque<Object> left = new ArrayDeque<>(java.util.List.of(in));
        return () -> {
            attempts.incrementAndGet();
            Object o = left.removeFirst();
            // as the driver's futures fail: wrapped when a stage threw
            return o instanceof Throwable t ? CompletableFuture.failedFuture(new CompletionException(t)) : CompletableFuture.completedFuture((String) o);
        };
    }

    private static ReadException failure(CompletableFuture<?> f) {
        Throwable t = f.handle((v, e) -> e).join();
        return (ReadException) (t instanceof CompletionException c ? c.getCause() : t);
    }

    @Test
    void should_read_a_first_page_again_when_a_bucket_was_being_sealed() {
        CompletableFuture<String> page = Resealed.retryResealed(outcomes(new Resealed("2025-03-04"), "page"), true, again);
        assertThat(page.join()).isEqualTo("page");
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(again.sum()).isEqualTo(1);
    }

    @Test
    void should_give_up_with_503_after_two_more_reads_that_met_a_seal() {
        Resealed r = new Resealed("2025-03-04");
        CompletableFuture<String> page = Resealed.retryResealed(outcomes(r, r, r, "never"), true, again);
        ReadException e = failure(page);
        assertThat(e.kind()).isEqualTo(ReadException.Kind.UNAVAILABLE);
        assertThat(e.getMessage()).contains("2025-03-04");
        assertThat(attempts.get()).isEqualTo(3);
        assertThat(again.sum()).isEqualTo(2);
    }

    @Test
    void should_refuse_a_later_page_with_bad_next() {
        CompletableFuture<String> page = Resealed.retryResealed(outcomes(new Resealed("2025-03"), "never"), false, again);
        ReadException e = failure(page);
        assertThat(e.error()).isEqualTo("bad_next");
        assertThat(e.getMessage()).contains("2025-03").contains("first page");
        assertThat(attempts.get()).isEqualTo(1);
    }

    @Test
    void should_pass_other_failures_and_pages_as_they_are() {
        ReadException notFound = ReadException.notFound("no index 'x'");
        assertThat(failure(Resealed.retryResealed(outcomes(notFound, "never"), true, again))).isSameAs(notFound);
        assertThat(Resealed.retryResealed(outcomes("page"), true, again).join()).isEqualTo("page");
        assertThat(attempts.get()).isEqualTo(2);
        assertThat(again.sum()).isZero();
    }
}
