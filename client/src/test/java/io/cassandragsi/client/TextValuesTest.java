package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Date;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TextValuesTest {
    @Test
    void should_write_java_values_as_the_http_path_takes_them() {
        assertThat(TextValues.of("Main_Page", "v")).isEqualTo("Main_Page");
        assertThat(TextValues.of(7, "v")).isEqualTo("7");
        assertThat(TextValues.of(7L, "v")).isEqualTo("7");
        assertThat(TextValues.of(new BigInteger("123456789012345678901234567890"), "v")).isEqualTo("123456789012345678901234567890");
        assertThat(TextValues.of(new BigDecimal("1.50"), "v")).isEqualTo("1.50");
        assertThat(TextValues.of(2.5d, "v")).isEqualTo("2.5");
        assertThat(TextValues.of(true, "v")).isEqualTo("true");
        UUID u = UUID.fromString("5d6f3a80-8e1b-11ef-8000-000000000001");
        assertThat(TextValues.of(u, "v")).isEqualTo("5d6f3a80-8e1b-11ef-8000-000000000001");
        assertThat(TextValues.of(Instant.parse("2026-11-24T10:00:00.123Z"), "v")).isEqualTo("2026-11-24T10:00:00.123Z");
        assertThat(TextValues.of(Date.from(Instant.parse("2026-11-24T10:00:00Z")), "v")).isEqualTo("2026-11-24T10:00:00Z");
        assertThat(TextValues.of(new byte[] {0x0a, (byte) 0xff}, "v")).isEqualTo("0x0aff");
        ByteBuffer b = ByteBuffer.wrap(new byte[] {1, 2, 3});
        b.get();
        assertThat(TextValues.of(b, "v")).isEqualTo("0x0203");
        assertThat(b.remaining()).as("the buffer is not consumed").isEqualTo(2);
    }
}
