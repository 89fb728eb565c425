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
 * the type and the (abbreviated) value.
 *
 * <p>Parsing is bounded before it starts: a value longer than its type allows ({@link
 * #MAX_NUMBER_CHARS}, {@link #MAX_TIME_CHARS}, {@link #MAX_TEXT_BYTES}) is refused without being
 * looked at, and the number syntax is checked by one linear scan, so that no input makes a parse
 * take more than microseconds (these run on the HTTP server's I/O threads).
 */
public final class Values {
    private static final ProtocolVersion V = ProtocolVersion.DEFAULT;

    /** Longest number accepted, in characters (sign, digits, point and exponent included). */
    public static final int MAX_NUMBER_CHARS = 256;
    /** Most exponent digits in a number: {@code 1e9999} at most, so that no decimal's scale explodes. */
    public static final int MAX_EXPONENT_DIGITS = 4;
    /** Longest instant, uuid or timeuuid accepted, in characters. */
    public static final int MAX_TIME_CHARS = 64;
    /** Largest string, json or blob value, in bytes once encoded: Cassandra's limit for a key component. */
    public static final int MAX_TEXT_BYTES = 65_535;
    /** How much of a refused value an error message repeats. */
    static final int QUOTED_CHARS = 64;

    private static final java.util.Set<AttrType> NUMERIC =
            java.util.EnumSet.of(AttrType.INT, AttrType.LONG, AttrType.VARINT, AttrType.DECIMAL, AttrType.FLOAT, AttrType.DOUBLE);

    private Values() {}

    /** Parses text for an attribute of {@code type}; throws a 400 {@link ReadException} naming it. */
    public static ByteBuffer parse(String attribute, AttrType type, String text) {
        int max = maxChars(type);
        if (text.length() > max) {
            throw ReadException.badRequest("value_too_long", "the value " + quote(text) + " for attribute '" + attribute + "' has "
                    + text.length() + " characters; a " + type.jsonName() + " takes at most " + max);
        }
        try {
            if (NUMERIC.contains(type)) {
                checkNumber(text);
            }
            return switch (type) {
                case STRING, JSON -> maxBytes(TypeCodecs.TEXT.encode(text, V));
                case BLOB -> maxBytes(ByteBuffer.wrap(text.startsWith("0x") ? HexFormat.of().parseHex(text.substring(2)) : Base64.getUrlDecoder().decode(text)));
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
            throw ReadException.badRequest("bad_value", quote(text) + " is not a valid " + type.jsonName()
                    + " for attribute '" + attribute + "'" + (e.getMessage() == null ? "" : ": " + abbreviate(e.getMessage())));
        }
    }

    /** The most characters a value of {@code type} may have (text types: bytes bound chars from above). */
    static int maxChars(AttrType type) {
        return switch (type) {
            case INT, LONG, VARINT, DECIMAL, FLOAT, DOUBLE -> MAX_NUMBER_CHARS;
            case UUID, TIMEUUID, TIMESTAMP, BOOLEAN -> MAX_TIME_CHARS;
            // hex takes two characters per byte, base64 four per three
            case BLOB -> 2 + 2 * MAX_TEXT_BYTES;
            case STRING, JSON -> MAX_TEXT_BYTES;
        };
    }

    /**
     * Checks {@code [-+]?(digits[.digits?]|.digits)([eE][-+]?digits)?} in ASCII, in one pass: the
     * regular expression this replaces backtracked catastrophically on long digit strings.
     */
    static void checkNumber(String text) {
        int n = text.length();
        int start = afterSign(text, 0);
        int intEnd = afterDigits(text, start);
        int fractionEnd = intEnd < n && text.charAt(intEnd) == '.' ? afterDigits(text, intEnd + 1) : intEnd;
        int mantissaDigits = fractionEnd - start - (fractionEnd > intEnd ? 1 : 0);
        if (mantissaDigits == 0) {
            throw new IllegalArgumentException("expected a number in ASCII digits");
        }
        int end = fractionEnd;
        if (end < n && (text.charAt(end) == 'e' || text.charAt(end) == 'E')) {
            int expStart = afterSign(text, end + 1);
            end = afterDigits(text, expStart);
            if (end == expStart) {
                throw new IllegalArgumentException("expected digits after the exponent");
            }
            if (end - expStart > MAX_EXPONENT_DIGITS) {
                throw new IllegalArgumentException("the exponent has more than " + MAX_EXPONENT_DIGITS + " digits");
            }
        }
        if (end != n) {
            throw new IllegalArgumentException("expected a number in ASCII digits");
        }
    }

    private static int afterSign(String text, int i) {
        return i < text.length() && (text.charAt(i) == '-' || text.charAt(i) == '+') ? i + 1 : i;
    }

    private static int afterDigits(String text, int i) {
        int j = i;
        while (j < text.length() && text.charAt(j) >= '0' && text.charAt(j) <= '9') {
            j++;
        }
        return j;
    }

    /** A value quoted for an error message, cut to {@value #QUOTED_CHARS} characters. */
    public static String quote(String text) {
        return "'" + abbreviate(text) + "'";
    }

    private static String abbreviate(String text) {
        return text.length() <= QUOTED_CHARS ? text : text.substring(0, QUOTED_CHARS) + "...(" + text.length() + " characters)";
    }

    private static ByteBuffer maxBytes(ByteBuffer b) {
        if (b.remaining() > MAX_TEXT_BYTES) {
            throw new IllegalArgumentException(b.remaining() + " bytes; at most " + MAX_TEXT_BYTES);
        }
        return b;
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

    /**
     * An ISO-8601 instant (2026-11-21T10:00:00Z, with or without fractions) or epoch milliseconds;
     * at most {@value #MAX_TIME_CHARS} characters.
     */
    public static Instant instant(String text) {
        if (text.length() > MAX_TIME_CHARS) {
            throw new IllegalArgumentException("longer than " + MAX_TIME_CHARS + " characters");
        }
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
