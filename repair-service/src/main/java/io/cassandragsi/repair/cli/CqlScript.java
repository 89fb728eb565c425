package io.cassandragsi.repair.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits CQL text into statements at the semicolons that end them, as cqlsh does: not inside a
 * string ({@code '...'}, {@code ''} escaping a quote), a quoted identifier ({@code "..."}), a
 * dollar-quoted string ({@code $$...$$}) or a comment ({@code -- }, {@code //} to the end of the
 * line, {@code /* ... *}{@code /}). Comments are dropped; blank statements are left out. Pure.
 */
final class CqlScript {
    private CqlScript() {}

    static List<String> split(String text) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i);
            if (c == '\'' || c == '"') {
                int end = closing(text, i, c);
                current.append(text, i, end);
                i = end;
            } else if (c == '$' && i + 1 < n && text.charAt(i + 1) == '$') {
                int close = text.indexOf("$$", i + 2);
                if (close < 0) {
                    throw new IllegalArgumentException("a $$ string that starts at character " + (i + 1) + " is not closed");
                }
                current.append(text, i, close + 2);
                i = close + 2;
            } else if ((c == '-' || c == '/') && i + 1 < n && text.charAt(i + 1) == c) {
                int eol = text.indexOf('\n', i);
                i = eol < 0 ? n : eol;
            } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
                int close = text.indexOf("*/", i + 2);
                if (close < 0) {
                    throw new IllegalArgumentException("a /* comment that starts at character " + (i + 1) + " is not closed");
                }
                current.append(' ');
                i = close + 2;
            } else if (c == ';') {
                add(out, current);
                i++;
            } else {
                current.append(c);
                i++;
            }
        }
        add(out, current);
        return out;
    }

    /** The index after the quote that closes the one at {@code start} (a doubled quote stands for itself). */
    private static int closing(String text, int start, char quote) {
        int i = start + 1;
        while (i < text.length()) {
            if (text.charAt(i) == quote) {
                if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
                    i += 2;
                    continue;
                }
                return i + 1;
            }
            i++;
        }
        throw new IllegalArgumentException((quote == '\'' ? "a string" : "a quoted identifier") + " that starts at character "
                + (start + 1) + " is not closed");
    }

    private static void add(List<String> out, StringBuilder current) {
        String s = current.toString().strip();
        if (!s.isEmpty()) {
            out.add(s);
        }
        current.setLength(0);
    }
}
