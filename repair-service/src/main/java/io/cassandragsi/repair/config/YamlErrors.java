package io.cassandragsi.repair.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Turns what the YAML parser and the binding to the file's shape throw into a {@link
 * ConfigException} that names the key and the line: not valid YAML, an unknown key (with the keys
 * known there), or a value of the wrong kind.
 */
final class YamlErrors {
    private YamlErrors() {}

    static ConfigException translate(JsonProcessingException e, String source) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException m) {
                Mark mark = m.getProblemMark();
                String where = mark == null ? "" : " (line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ")";
                return new ConfigException(source, null, "not valid YAML: " + m.getProblem() + where);
            }
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return new ConfigException(source, path(u), "unknown key; known keys here: "
                    + known(u.getKnownPropertyIds()));
        }
        if (e instanceof MismatchedInputException m) {
            return new ConfigException(source, path(m), "expected " + describe(m.getTargetType()) + at(m));
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            return new ConfigException(source, path(m), firstLine(m.getOriginalMessage()) + at(m));
        }
        return new ConfigException(source, null, "not valid YAML: " + firstLine(e.getOriginalMessage()) + at(e));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    /** Where the offending token starts (for unknown keys: the line of the key). */
    private static String at(JsonProcessingException e) {
        JsonLocation location = e.getLocation();
        if (e.getProcessor() instanceof JsonParser p && p.currentTokenLocation() != null) {
            location = p.currentTokenLocation();
        }
        if (location == null || location.getLineNr() < 0) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    private static String known(Collection<Object> ids) {
        return ids == null ? "?" : new TreeSet<>(ids.stream().map(String::valueOf).collect(Collectors.toList())).toString()
                .replaceAll("[\\[\\]]", "");
    }

    private static String describe(Class<?> type) {
        if (type == null) {
            return "a different kind of value";
        }
        if (type == Integer.class || type == int.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a single value (text)";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a section (key: value lines)";
    }
}
