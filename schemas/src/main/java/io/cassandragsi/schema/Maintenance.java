package io.cassandragsi.schema;

/**
 * Who runs the sibling diffs of a table (docs/design.md section 2, the definition's {@code
 * "maintenance"}): the repair service (the default, the shape the project is specified with), or
 * the coordinator node that ran the trigger, which hands everything but plain diffs to the service.
 */
public enum Maintenance {
    SERVICE("service"),
    NODE("node");

    private final String jsonName;

    Maintenance(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    /** The value of a definition's {@code "maintenance"}, or null when it names none. */
    public static Maintenance fromJson(String name) {
        for (Maintenance m : values()) {
            if (m.jsonName.equals(name)) {
                return m;
            }
        }
        return null;
    }
}
