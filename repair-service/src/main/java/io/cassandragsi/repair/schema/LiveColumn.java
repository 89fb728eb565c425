package io.cassandragsi.repair.schema;

import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Order;

/** A column of a live table: its internal (case-sensitive) name, CQL type and clustering order. */
public record LiveColumn(String name, String cqlType, Order order) {

    public static LiveColumn of(String name, String cqlType) {
        return new LiveColumn(name, cqlType, Order.ASC);
    }

    /** The live column a definition column becomes. */
    public static LiveColumn of(Column column) {
        return new LiveColumn(column.name(), column.type().cql(), column.order());
    }

    /** {@code name type} for messages. */
    public String describe() {
        return name + " " + cqlType;
    }

    /** {@code name type ORDER} for messages about clustering columns. */
    public String describeClustering() {
        return name + " " + cqlType + " " + order.cql();
    }
}
