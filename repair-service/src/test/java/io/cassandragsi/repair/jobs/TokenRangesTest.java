package io.cassandragsi.repair.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TokenRangesTest {

    @Test
    void should_cover_the_whole_ring_when_split_once() {
        assertThat(TokenRanges.split(1)).containsExactly(new TokenRange(Long.MIN_VALUE, Long.MAX_VALUE));
        assertThat(TokenRanges.FULL_RING.contains(Long.MAX_VALUE)).isTrue();
        assertThat(TokenRanges.FULL_RING.contains(Long.MIN_VALUE)).as("Murmur3 gives no key the minimum token").isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 7, 8, 32, 1000, 65536})
    void should_be_contiguous_and_almost_equal_when_split_into_n(int n) {
        List<TokenRange> ranges = TokenRanges.split(n);
        assertThat(ranges).hasSize(n);
        assertThat(ranges.get(0).start()).isEqualTo(Long.MIN_VALUE);
        assertThat(ranges.get(n - 1).end()).isEqualTo(Long.MAX_VALUE);
        BigInteger min = null;
        BigInteger max = null;
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                assertThat(ranges.get(i).start()).isEqualTo(ranges.get(i - 1).end());
            }
            BigInteger width = BigInteger.valueOf(ranges.get(i).end()).subtract(BigInteger.valueOf(ranges.get(i).start()));
            min = min == null || width.compareTo(min) < 0 ? width : min;
            max = max == null || width.compareTo(max) > 0 ? width : max;
        }
        assertThat(max.subtract(min)).isLessThanOrEqualTo(BigInteger.ONE);
    }

    @Test
    void should_put_every_token_in_exactly_one_range_when_split() {
        List<TokenRange> ranges = TokenRanges.split(13);
        Random rnd = new Random(42);
        long[] probes = new long[1000];
        for (int i = 0; i < probes.length; i++) {
            probes[i] = rnd.nextLong();
        }
        probes[0] = Long.MAX_VALUE;
        probes[1] = Long.MIN_VALUE + 1;
        probes[2] = ranges.get(5).end();
        probes[3] = ranges.get(5).end() + 1;
        for (long t : probes) {
            if (t == Long.MIN_VALUE) {
                continue;
            }
            assertThat(ranges.stream().filter(r -> r.contains(t)).count()).as("token %d", t).isEqualTo(1);
        }
    }

    @Test
    void should_refuse_when_split_count_is_out_of_bounds() {
        assertThatThrownBy(() -> TokenRanges.split(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TokenRanges.split(TokenRanges.MAX_SPLITS + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenRange(5, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
