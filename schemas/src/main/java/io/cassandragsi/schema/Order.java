package io.cassandragsi.schema;

/** Clustering order of a range attribute. */
public enum Order {
    ASC,
    DESC;

    public String cql() {
        return name();
    }
}
