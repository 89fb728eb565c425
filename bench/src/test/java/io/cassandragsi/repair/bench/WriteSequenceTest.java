package io.cassandragsi.repair.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WriteSequenceTest {
    @Test
    void should_generate_the_same_writes_for_the_same_seed() {
        WriteSequence a = new WriteSequence(7, 20_000, 1_000, 200);
        WriteSequence b = new WriteSequence(7, 20_000, 1_000, 200);
        for (long i = 0; i < 1_000; i++) {
            assertThat(a.at(i)).isEqualTo(b.at(i));
        }
        // the order of the calls does not matter: write i depends on i alone
        assertThat(a.at(500)).isEqualTo(b.at(500));
    }

    @Test
    void should_generate_other_writes_for_another_seed() {
        WriteSequence a = new WriteSequence(7, 20_000, 1_000, 200);
        WriteSequence b = new WriteSequence(8, 20_000, 1_000, 200);
        int same = 0;
        for (long i = 0; i < 100; i++) {
            same += a.at(i).key().equals(b.at(i).key()) ? 1 : 0;
        }
        assertThat(same).isLessThan(5);
    }

    @Test
    void should_draw_keys_and_indexed_values_from_the_configured_ranges() {
        WriteSequence s = new WriteSequence(1, 20_000, 1_000, 200);
        Set<String> keys = new HashSet<>();
        Set<String> a = new HashSet<>();
        Set<String> c = new HashSet<>();
        for (long i = 0; i < 100_000; i++) {
            WriteSequence.Write w = s.at(i);
            keys.add(w.key());
            a.add(w.a());
            c.add(w.c());
            assertThat(w.value().getBytes(StandardCharsets.UTF_8)).hasSize(200);
        }
        // 100,000 uniform draws from 20,000 keys hit about 99.3 % of them
        assertThat(keys).hasSizeBetween(19_700, 20_000);
        assertThat(a).hasSize(1_000);
        assertThat(c).hasSize(1_000);
    }

    @Test
    void should_draw_the_indexed_columns_independently() {
        WriteSequence s = new WriteSequence(3, 20_000, 1_000, 10);
        int equal = 0;
        for (long i = 0; i < 10_000; i++) {
            WriteSequence.Write w = s.at(i);
            equal += w.a().equals(w.b()) ? 1 : 0;
        }
        assertThat(equal).isLessThan(40); // about 10 expected
    }

    @Test
    void should_give_the_key_number_of_each_write_when_asked() {
        WriteSequence s = new WriteSequence(3, 20_000, 1_000, 200);
        for (long i = 0; i < 1_000; i++) {
            assertThat(s.at(i).key()).isEqualTo(String.format("key-%06d", s.keyIndex(i)));
        }
    }

    @Test
    void should_count_as_overwrites_the_writes_to_keys_written_before_across_sequences() {
        // one key: the first write creates the row, every later one overwrites it, in any sequence
        WriteSequence.KeysWritten one = new WriteSequence.KeysWritten();
        assertThat(one.record(new WriteSequence(1, 1, 10, 10), 5)).isEqualTo(4);
        assertThat(one.record(new WriteSequence(2, 1, 10, 10), 3)).isEqualTo(3);
        assertThat(new WriteSequence.KeysWritten().record(new WriteSequence(1, 1, 10, 10), 0)).isZero();

        // ten keys: 25 writes overwrite at least 15 times; the next sequence's writes hit the same key numbers
        WriteSequence.KeysWritten ten = new WriteSequence.KeysWritten();
        WriteSequence first = new WriteSequence(1, 10, 1_000, 10);
        WriteSequence second = new WriteSequence(2, 10, 1_000, 10);
        Set<Integer> seen = new HashSet<>();
        long expectedFirst = 0;
        for (long i = 0; i < 25; i++) {
            expectedFirst += seen.add(first.keyIndex(i)) ? 0 : 1;
        }
        long expectedSecond = 0;
        for (long i = 0; i < 100; i++) {
            expectedSecond += seen.add(second.keyIndex(i)) ? 0 : 1;
        }
        assertThat(ten.record(first, 25)).isEqualTo(expectedFirst).isGreaterThanOrEqualTo(15);
        assertThat(ten.record(second, 100)).isEqualTo(expectedSecond).isGreaterThanOrEqualTo(90);
    }
}
