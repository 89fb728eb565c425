package io.cassandragsi.schema;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The attribute types of the definition format (docs/design.md section 2) and their CQL types. */
public enum AttrType {
    STRING("text"),
    BLOB("blob"),
    BOOLEAN("boolean"),
    INT("int"),
    LONG("bigint"),
    VARINT("varint"),
    DECIMAL("decimal"),
    FLOAT("float"),
    DOUBLE("double"),
    UUID("uuid"),
    TIMEUUID("timeuuid"),
    TIMESTAMP("timestamp"),
    /** JSON documents, stored as text. Not scalar: cannot be part of a key. */
    JSON("text");

    private final String cql;

    AttrType(String cql) {
        this.cql = cql;
    }

    public String cql() {
        return cql;
    }

    /** The name used in definition files. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isScalar() {
        return this != JSON;
    }

    /** Returns the type for a definition-file name, or null when there is none. */
    public static AttrType fromJsonName(String name) {
        for (AttrType t : values()) {
            if (t.jsonName().equals(name)) {
                return t;
            }
        }
        return null;
    }

    public static String supportedNames() {
        return Arrays.stream(values()).map(AttrType::jsonName).collect(Collectors.joining(", "));
    }
}
