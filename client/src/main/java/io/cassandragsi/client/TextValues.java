package io.cassandragsi.client;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Java values as the text the HTTP API takes in its path and bounds (docs/http-api.md, Reads), so
 * that one parser, the reader's, checks them against the attribute's type.
 */
final class TextValues {
    private TextValues() {}

    /**
     * The text of {@code value}: strings as they are; numbers, booleans and uuids by {@code
     * toString}; instants as ISO-8601; blobs ({@code byte[]}, {@code ByteBuffer}) as {@code 0x} hex.
     * {@code what} names the value in the error (such as "value 2" or "bound ge").
     */
    static String of(Object value, String what) {
        if (value == null) {
            throw new GsiBadRequestException("bad_value", what + " is null: give a value of the attribute's type", null);
        }
        if (value instanceof String s) {
            return s;
        }
        if (value instanceof BigDecimal d) {
            return d.toString();
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte || value instanceof BigInteger
                || value instanceof Float || value instanceof Double || value instanceof Boolean || value instanceof UUID) {
            return value.toString();
        }
        if (value instanceof Instant i) {
            return i.toString();
        }
        if (value instanceof Date d) {
            return d.toInstant().toString();
        }
        if (value instanceof byte[] b) {
            return "0x" + HexFormat.of().formatHex(b);
        }
        if (value instanceof ByteBuffer b) {
            ByteBuffer copy = b.duplicate();
            byte[] bytes = new byte[copy.remaining()];
            copy.get(bytes);
            return "0x" + HexFormat.of().formatHex(bytes);
        }
        throw new GsiBadRequestException("bad_value", what + " is a " + value.getClass().getName() + "; give a String, a number, a Boolean,"
                + " a UUID, an Instant, a Date, a byte[] or a ByteBuffer", null);
    }
}
