package io.cassandragsi.repair.read;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ItemTest {
    private static final String[] NAMES = {"s", "quote\"d", "i", "l", "big", "dec", "d", "f", "b", "missing"};
    private static final Object[] VALUES = {"héllo \"wörld\"\n\u0001 😀", "x", 7, 1L << 40, new BigInteger("123456789012345678901234567890"),
        new BigDecimal("1.50"), 2.5d, 0.25f, true, null};

    private static Item item() {
        return new Item(NAMES, Arrays.stream(NAMES).map(SerializedString::new).toArray(SerializedString[]::new), VALUES.clone());
    }

    @Test
    void should_write_the_same_json_as_jacksons_map_serializer() throws Exception {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            map.put(NAMES[i], VALUES[i]);
        }
        ObjectMapper json = new ObjectMapper();
        StringWriter out = new StringWriter();
        try (JsonGenerator g = json.getFactory().createGenerator(out)) {
            item().writeJson(g);
        }
        assertThat(out.toString()).isEqualTo(json.writeValueAsString(map));
        // any mapper, also inside a page body, writes items this way (not with its map serializer)
        assertThat(json.getSerializerProviderInstance().findValueSerializer(Item.class)).isInstanceOf(Item.Json.class);
        assertThat(json.writeValueAsString(Map.of("items", java.util.List.of(item())))).isEqualTo(json.writeValueAsString(Map.of("items", java.util.List.of(map))));
    }

    @Test
    void should_be_an_ordinary_map_for_jvm_callers() {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < NAMES.length; i++) {
            map.put(NAMES[i], VALUES[i]);
        }
        assertThat(item()).isEqualTo(map).containsKey("missing").doesNotContainKey("other");
        assertThat(item().keySet()).containsExactly(NAMES);
    }
}
