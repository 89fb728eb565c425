package io.cassandragsi.schema;

/**
 * Whether a table's index entries ride in the write's logged batch (docs/design.md section 2, the
 * definition's {@code "indexing"}): atomic (the default: the trigger adds the entries and the marker
 * to the batch) or eventual (the trigger adds nothing, so the write takes Cassandra's plain path; the
 * in-node maintainer writes the entries after it, within a published lag). Eventual implies node
 * maintenance.
 */
public enum Indexing {
    ATOMIC("atomic"),
    EVENTUAL("eventual");

    private final String jsonName;

    Indexing(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    /** The value of a definition's {@code "indexing"}, or null when it names none. */
    public static Indexing fromJson(String name) {
        for (Indexing i : values()) {
            if (i.jsonName.equals(name)) {
                return i;
            }
        }
        return null;
    }
}
