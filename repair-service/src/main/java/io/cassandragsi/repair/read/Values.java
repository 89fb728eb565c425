package io.cassandragsi.repair.read;

import com.datastax.oss.driver.api.core.ProtocolVersion;
import com.datastax.oss.driver.api.core.type.codec.TypeCodecs;
import io.cassandragsi.schema.AttrType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Converts between the definition's types, the serialized form Cassandra stores, text (URL path
 * values and query parameters) and JSON-friendly Java values. Parsing errors name the attribute,
 * the type and the value.
 */
public final class Values {
    private static final ProtocolVersion V = ProtocolVersion.DEFAULT;

    private static final java.util.Set<AttrType> NUMERIC =
            java.util.EnumSet.of(AttrType.INT, AttrType.LONG, AttrType.VARINT, AttrType.DECIMAL, AttrType.FLOAT, AttrType.DOUBLE);
    private static final java.util.regex.Pattern ASCII_NUMBER =
            java.util.regex.Pattern.compile("[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?");

    private Values() {}

    /** Parses text for an attribute of {@code type}; throws a 400 {@link ReadException} naming it. */
    public static ByteBuffer parse(String attribute, AttrType type, String text) {
        try {
            if (NUMERIC.contains(type) && !ASCII_NUMBER.matcher(text).matches()) {
                throw new IllegalArgumentException("expected a number in ASCII digits");
            }
            return switch (type) {
                case STRING, JSON -> TypeCodecs.TEXT.encode(text, V);
                case BLOB -> ByteBuffer.wrap(text.startsWith("0x") ? HexFormat.of().parseHex(text.substring(2)) : Base64.getUrlDecoder().decode(text));
                case BOOLEAN -> {
                    if (!text.equals("true") && !text.equals("false")) {
                        throw new IllegalArgumentException("expected true or false");
                    }
                    yield TypeCodecs.BOOLEAN.encode(Boolean.parseBoolean(text), V);
                }
                case INT -> TypeCodecs.INT.encode(Integer.parseInt(text), V);
                case LONG -> TypeCodecs.BIGINT.encode(Long.parseLong(text), V);
                case VARINT -> TypeCodecs.VARINT.encode(new BigInteger(text), V);
                case DECIMAL -> TypeCodecs.DECIMAL.encode(new BigDecimal(text), V);
                case FLOAT -> TypeCodecs.FLOAT.encode(finite(Float.parseFloat(text)), V);
                case DOUBLE -> TypeCodecs.DOUBLE.encode(finite(Double.parseDouble(text)), V);
                case UUID -> TypeCodecs.UUID.encode(UUID.fromString(canonicalUuid(text)), V);
                case TIMEUUID -> {
                    UUID u = UUID.fromString(canonicalUuid(text));
                    if (u.version() != 1) {
                        throw new IllegalArgumentException("not a time-based (version 1) UUID");
                    }
                    yield TypeCodecs.TIMEUUID.encode(u, V);
                }
                case TIMESTAMP -> TypeCodecs.TIMESTAMP.encode(instant(text), V);
            };
        } catch (IllegalArgumentException | DateTimeParseException | ArithmeticException e) {
            throw ReadException.badRequest("bad_value", "'" + text + "' is not a valid " + type.jsonName()
                    + " for attribute '" + attribute + "'" + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
    }

    private static float finite(float f) {
        if (!Float.isFinite(f)) {
            throw new IllegalArgumentException("not a finite number");
        }
        return f;
    }

    private static double finite(double d) {
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException("not a finite number");
        }
        return d;
    }

    private static String canonicalUuid(String text) {
        if (!text.matches("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")) {
            throw new IllegalArgumentException("expected 8-4-4-4-12 hexadecimal digits");
        }
        return text;
    }

    /** An ISO-8601 instant (2026-11-21T10:00:00Z, with or without fractions) or epoch milliseconds. */
    public static Instant instant(String text) {
        if (text.matches("-?\\d{1,18}")) {
            return Instant.ofEpochMilli(Long.parseLong(text));
        }
        return Instant.parse(text);
    }

    /** A JSON-friendly value: strings, numbers, booleans; uuids and instants as strings, blobs as 0x hex. */
    public static Object render(AttrType type, ByteBuffer value) {
        if (value == null) {
            return null;
        }
        ByteBuffer v = value.duplicate();
        return switch (type) {
            case STRING, JSON -> TypeCodecs.TEXT.decode(v, V);
            case BLOB -> "0x" + HexFormat.of().formatHex(bytes(v));
            case BOOLEAN -> TypeCodecs.BOOLEAN.decode(v, V);
            case INT -> TypeCodecs.INT.decode(v, V);
            case LONG -> TypeCodecs.BIGINT.decode(v, V);
            case VARINT -> TypeCodecs.VARINT.decode(v, V);
            case DECIMAL -> TypeCodecs.DECIMAL.decode(v, V);
            case FLOAT -> TypeCodecs.FLOAT.decode(v, V);
            case DOUBLE -> TypeCodecs.DOUBLE.decode(v, V);
            case UUID -> String.valueOf(TypeCodecs.UUID.decode(v, V));
            case TIMEUUID -> String.valueOf(TypeCodecs.TIMEUUID.decode(v, V));
            case TIMESTAMP -> String.valueOf(TypeCodecs.TIMESTAMP.decode(v, V));
        };
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
