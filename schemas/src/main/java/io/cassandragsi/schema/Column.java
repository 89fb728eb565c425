package io.cassandragsi.schema;

/**
 * One column of a generated table: its name as in the definition (case-sensitive, always quoted
 * in CQL), its type and, for clustering columns, its order.
 */
public record Column(String name, AttrType type, Order order) {

    public static Column of(String name, AttrType type) {
        return new Column(name, type, Order.ASC);
    }

    /** The column name as a CQL identifier: always double-quoted, so case and leading '_' survive. */
    public String cqlName() {
        return Cql.quote(name);
    }
}
