package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import io.cassandragsi.schema.AttrType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Bounded, linear-time parsing of path values: hostile input is refused fast, normal input still parses. */
class ValuesTest {
    private static final ProtocolVersion V = ProtocolVersion.DEFAULT;

    /** 200, or the status of the refusal. */
    private static int status(ThrowingCallable parse) {
        ReadException e = catchThrowableOfType(parse, ReadException.class);
        return e == null ? 200 : io.cassandragsi.repair.http.ErrorMapper.status(e);
    }

    private static long millis(ThrowingCallable r) {
        long t0 = System.nanoTime();
        status(r);
        return (System.nanoTime() - t0) / 1_000_000;
    }

    @ParameterizedTest
    @EnumSource(value = AttrType.class, names = {"INT", "LONG", "VARINT", "DECIMAL", "FLOAT", "DOUBLE"})
    void should_refuse_a_100000_digit_number_in_well_under_a_second_when_any_numeric_type(AttrType type) {
        String digits = "9".repeat(100_000);
        for (String hostile : new String[] {digits, digits + "x", "1" + ".".repeat(1) + digits, "-" + digits + "e"}) {
            long ms = millis(() -> Values.parse("n", type, hostile));
            assertThat(ms).as("%s of %d characters", type, hostile.length()).isLessThan(100);
            assertThatThrownBy(() -> Values.parse("n", type, hostile)).isInstanceOf(ReadException.class)
                    .hasMessageContaining("at most " + Values.MAX_NUMBER_CHARS)
                    .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(300));
        }
    }

    @Test
    void should_check_number_syntax_in_linear_time_when_the_digits_fit_but_do_not_match() {
        // the old pattern backtracked on long runs of digits followed by a mismatch
        String almost = "1".repeat(Values.MAX_NUMBER_CHARS - 1) + "x";
        assertThat(millis(() -> Values.parse("n", AttrType.DECIMAL, almost))).isLessThan(50);
        assertThat(status(() -> Values.parse("n", AttrType.DECIMAL, almost))).isEqualTo(400);
        long t0 = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            Values.checkNumber("1".repeat(200) + "." + "2".repeat(50));
        }
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(500);
    }

    @ParameterizedTest
    @ValueSource(strings = {"1e99999", "1E+100000", "1.5e-123456789", "1e", "1e+", ".", "-", "+.e1", "1..2", "0x10", "\u0663", "1 ", " 1", "١٢"})
    void should_refuse_malformed_or_unbounded_numbers_when_decimal(String text) {
        assertThat(status(() -> Values.parse("n", AttrType.DECIMAL, text))).as(text).isEqualTo(400);
    }

    @Test
    void should_refuse_varints_and_decimals_over_the_limit_when_only_one_character_too_long() {
        String max = "7".repeat(Values.MAX_NUMBER_CHARS);
        assertThat(status(() -> Values.parse("n", AttrType.VARINT, max))).isEqualTo(200);
        assertThat(status(() -> Values.parse("n", AttrType.VARINT, max + "7"))).isEqualTo(400);
        assertThat(status(() -> Values.parse("n", AttrType.DECIMAL, max))).isEqualTo(200);
        assertThat(status(() -> Values.parse("n", AttrType.DECIMAL, max + "7"))).isEqualTo(400);
    }

    @Test
    void should_parse_normal_values_when_within_bounds() {
        assertThat(TypeCodecs.VARINT.decode(Values.parse("n", AttrType.VARINT, "-12345678901234567890"), V))
                .isEqualTo(new BigInteger("-12345678901234567890"));
        assertThat(TypeCodecs.DECIMAL.decode(Values.parse("n", AttrType.DECIMAL, "3.25e-2"), V)).isEqualTo(new BigDecimal("3.25e-2"));
        assertThat(TypeCodecs.DECIMAL.decode(Values.parse("n", AttrType.DECIMAL, ".5"), V)).isEqualTo(new BigDecimal(".5"));
        assertThat(TypeCodecs.DECIMAL.decode(Values.parse("n", AttrType.DECIMAL, "+7."), V)).isEqualTo(new BigDecimal("7"));
        assertThat(TypeCodecs.INT.decode(Values.parse("n", AttrType.INT, "-42"), V)).isEqualTo(-42);
        assertThat(TypeCodecs.BIGINT.decode(Values.parse("n", AttrType.LONG, "9223372036854775807"), V)).isEqualTo(Long.MAX_VALUE);
        assertThat(TypeCodecs.DOUBLE.decode(Values.parse("n", AttrType.DOUBLE, "1.5E300"), V)).isEqualTo(1.5e300);
        assertThat(TypeCodecs.FLOAT.decode(Values.parse("n", AttrType.FLOAT, "0.25"), V)).isEqualTo(0.25f);
        assertThat(TypeCodecs.TIMESTAMP.decode(Values.parse("t", AttrType.TIMESTAMP, "2026-11-21T10:00:00.123Z"), V))
                .isEqualTo(Instant.parse("2026-11-21T10:00:00.123Z"));
        assertThat(TypeCodecs.TEXT.decode(Values.parse("s", AttrType.STRING, "é x"), V)).isEqualTo("é x");
        assertThat(Values.parse("b", AttrType.BLOB, "0x00ff").remaining()).isEqualTo(2);
    }

    @Test
    void should_refuse_timestamps_uuids_and_texts_when_longer_than_their_bounds() {
        String longTime = "2026-11-21T10:00:00." + "1".repeat(100_000) + "Z";
        assertThat(millis(() -> Values.parse("t", AttrType.TIMESTAMP, longTime))).isLessThan(50);
        assertThat(status(() -> Values.parse("t", AttrType.TIMESTAMP, longTime))).isEqualTo(400);
        assertThatThrownBy(() -> Values.instant("1".repeat(10_000))).isInstanceOf(IllegalArgumentException.class);
        assertThat(status(() -> Values.parse("u", AttrType.UUID, "0".repeat(100_000)))).isEqualTo(400);
        assertThat(status(() -> Values.parse("s", AttrType.STRING, "a".repeat(Values.MAX_TEXT_BYTES + 1)))).isEqualTo(400);
        assertThat(status(() -> Values.parse("s", AttrType.STRING, "é".repeat(Values.MAX_TEXT_BYTES / 2 + 1)))).as("bytes, not chars").isEqualTo(400);
        assertThat(status(() -> Values.parse("b", AttrType.BLOB, "0x" + "ab".repeat(Values.MAX_TEXT_BYTES + 1)))).isEqualTo(400);
    }

    @Test
    void should_quote_only_the_start_of_a_long_value_when_it_is_refused() {
        assertThatThrownBy(() -> Values.parse("s", AttrType.UUID, "z".repeat(60)))
                .hasMessageContaining("'" + "z".repeat(60) + "'");
        assertThat(Values.quote("q".repeat(10_000))).hasSizeLessThan(100).contains("10000 characters");
    }
}
