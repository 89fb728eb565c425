package io.cassandragsi.client;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One item of a read: the index key, the base primary key (with the tid on a versioned table) and
 * the projections, by attribute name, as the HTTP API's items (docs/http-api.md, Reads). Values are
 * held as the JSON answer has them (strings, numbers, booleans; uuids, timeuuids, timestamps and
 * blobs as text); the typed getters convert, and fail naming the attribute and the value.
 */
public final class IndexItem {
    private final Map<String, Object> values;

    IndexItem(Map<String, Object> values) {
        this.values = values;
    }

    /** The attribute names, in item order. */
    public Set<String> names() {
        return values.keySet();
    }

    /** The item as an unmodifiable map, in item order, with the values of the JSON answer. */
    public Map<String, Object> asMap() {
        return values;
    }

    /** The value of {@code name} as the JSON answer has it; null when the item has it null. */
    public Object get(String name) {
        if (!values.containsKey(name)) {
            throw new IllegalArgumentException("the item has no attribute '" + name + "' (it has: " + String.join(", ", values.keySet()) + ")");
        }
        return values.get(name);
    }

    public String getString(String name) {
        Object v = get(name);
        return v == null ? null : v.toString();
    }

    public Boolean getBoolean(String name) {
        return as(name, Boolean.class);
    }

    public Integer getInt(String name) {
        Number n = as(name, Number.class);
        return n == null ? null : n.intValue();
    }

    public Long getLong(String name) {
        Number n = as(name, Number.class);
        return n == null ? null : n.longValue();
    }

    public Double getDouble(String name) {
        Number n = as(name, Number.class);
        return n == null ? null : n.doubleValue();
    }

    /** A varint (or any integral number) as a {@link BigInteger}. */
    public BigInteger getBigInteger(String name) {
        Number n = as(name, Number.class);
        return n == null ? null : n instanceof BigInteger b ? b : new BigInteger(n.toString());
    }

    public BigDecimal getBigDecimal(String name) {
        Number n = as(name, Number.class);
        return n == null ? null : n instanceof BigDecimal d ? d : new BigDecimal(n.toString());
    }

    /** A uuid or timeuuid (a tid among them). */
    public UUID getUuid(String name) {
        String s = as(name, String.class);
        try {
            return s == null ? null : UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("attribute '" + name + "' is not a uuid: " + s, e);
        }
    }

    /** A timestamp. */
    public Instant getInstant(String name) {
        String s = as(name, String.class);
        try {
            return s == null ? null : Instant.parse(s);
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("attribute '" + name + "' is not a timestamp: " + s, e);
        }
    }

    /** A blob. */
    public byte[] getBytes(String name) {
        String s = as(name, String.class);
        if (s == null) {
            return null;
        }
        if (!s.startsWith("0x")) {
            throw new IllegalArgumentException("attribute '" + name + "' is not a blob: " + s);
        }
        return HexFormat.of().parseHex(s, 2, s.length());
    }

    private <T> T as(String name, Class<T> type) {
        Object v = get(name);
        if (v == null || type.isInstance(v)) {
            return type.cast(v);
        }
        throw new IllegalArgumentException("attribute '" + name + "' holds a " + v.getClass().getSimpleName() + " (" + v + "), not a "
                + type.getSimpleName());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IndexItem i && i.values.equals(values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
