package io.cassandragsi.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IndexItemTest {
    private static IndexItem item() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("length", BigInteger.valueOf(1024));
        m.put("key", "Main_Page");
        m.put("tid", "5d6f3a80-8e1b-11ef-8000-000000000001");
        m.put("at", "2026-11-24T10:00:00Z");
        m.put("body", "0x0aff");
        m.put("ok", true);
        m.put("value", null);
        return new IndexItem(java.util.Collections.unmodifiableMap(m));
    }

    @Test
    void should_convert_values_as_the_json_answer_holds_them() {
        IndexItem i = item();
        assertThat(i.names()).containsExactly("length", "key", "tid", "at", "body", "ok", "value");
        assertThat(i.getBigInteger("length")).isEqualTo(BigInteger.valueOf(1024));
        assertThat(i.getLong("length")).isEqualTo(1024L);
        assertThat(i.getInt("length")).isEqualTo(1024);
        assertThat(i.getString("key")).isEqualTo("Main_Page");
        assertThat(i.getUuid("tid")).isEqualTo(UUID.fromString("5d6f3a80-8e1b-11ef-8000-000000000001"));
        assertThat(i.getInstant("at")).isEqualTo(Instant.parse("2026-11-24T10:00:00Z"));
        assertThat(i.getBytes("body")).containsExactly(0x0a, 0xff);
        assertThat(i.getBoolean("ok")).isTrue();
        assertThat(i.getString("value")).isNull();
        assertThat(i.getLong("value")).isNull();
    }

    @Test
    void should_name_the_attribute_when_it_is_unknown_or_of_another_type() {
        IndexItem i = item();
        assertThatThrownBy(() -> i.get("lenght")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no attribute 'lenght'")
                .hasMessageContaining("length, key, tid");
        assertThatThrownBy(() -> i.getLong("key")).hasMessageContaining("attribute 'key' holds a String (Main_Page), not a Number");
        assertThatThrownBy(() -> i.getUuid("key")).hasMessageContaining("attribute 'key' is not a uuid");
        assertThatThrownBy(() -> i.getBytes("key")).hasMessageContaining("attribute 'key' is not a blob");
    }

    @Test
    void should_say_whether_a_page_has_a_next() {
        assertThat(new IndexPage(List.of(item()), null, Instant.EPOCH).hasNext()).isFalse();
        assertThat(new IndexPage(List.of(), "t", Instant.EPOCH).nextToken()).contains("t");
    }
}
