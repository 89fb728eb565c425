package io.cassandragsi.repair.http;

import io.cassandragsi.repair.read.Values;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Strict percent-decoding of raw path segments and query strings: invalid escapes and invalid
 * UTF-8 are 400s naming the offending part, never a 500 or a silently altered value. Pure.
 */
public final class PathCodec {
    private PathCodec() {}

    /**
     * Splits a raw path on '/', keeping empty segments (the read path has a '//'), then decodes each;
     * at most {@value RequestLimits#MAX_SEGMENTS} segments.
     */
    public static List<String> segments(String rawPath) {
        String[] parts = rawPath.split("/", RequestLimits.MAX_SEGMENTS + 2);
        if (parts.length > RequestLimits.MAX_SEGMENTS + 1) {
            throw HttpError.badRequest("too_many_segments", "the path has more than " + RequestLimits.MAX_SEGMENTS + " segments");
        }
        List<String> out = new ArrayList<>(parts.length);
        for (int i = 1; i < parts.length; i++) {
            out.add(decode(parts[i], false, "path segment " + i));
        }
        return out;
    }

    /**
     * Query parameters; a repeated parameter is an error (which one would win is not obvious); at
     * most {@value RequestLimits#MAX_PARAMETERS} parameters.
     */
    public static Map<String, String> query(String rawQuery) {
        Map<String, String> out = new LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        String[] pairs = rawQuery.split("&", RequestLimits.MAX_PARAMETERS + 1);
        if (pairs.length > RequestLimits.MAX_PARAMETERS) {
            throw HttpError.badRequest("too_many_parameters", "the query string has more than " + RequestLimits.MAX_PARAMETERS
                    + " parameters");
        }
        for (String pair : pairs) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), true, "query parameter name");
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), true, "query parameter " + Values.quote(name));
            if (out.put(name, value) != null) {
                throw HttpError.badRequest("bad_parameter", "query parameter " + Values.quote(name) + " is given more than once");
            }
        }
        return out;
    }

    static String decode(String raw, boolean plusIsSpace, String what) {
        if (raw.indexOf('%') < 0 && !(plusIsSpace && raw.indexOf('+') >= 0)) {
            return raw;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length() || Character.digit(raw.charAt(i + 1), 16) < 0 || Character.digit(raw.charAt(i + 2), 16) < 0) {
                    throw HttpError.badRequest("bad_encoding", what + " has an invalid percent escape");
                }
                bytes.write(Character.digit(raw.charAt(i + 1), 16) * 16 + Character.digit(raw.charAt(i + 2), 16));
                i += 2;
            } else if (c == '+' && plusIsSpace) {
                bytes.write(' ');
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            throw HttpError.badRequest("bad_encoding", what + " is not valid UTF-8 once percent-decoded");
        }
    }
}
