package io.cassandragsi.client;

import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.Order;
import io.cassandragsi.schema.TableDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a reader relies on in a definition it was given, compared with the definition Cassandra's
 * schema serves (pure): the primary key, whether the table is versioned, the types of the
 * attributes it names, and each of its indexes' hash, range and projected attributes. The service
 * may serve more indexes or attributes than the given definition names; how the table is maintained
 * ({@code maintenance}, {@code indexing}) is the writers' business, not the reader's.
 */
final class DefinitionCheck {
    private DefinitionCheck() {}

    /** Each way {@code served} differs from what {@code expected} says, as a sentence naming the attribute or index; empty when none. */
    static List<String> differences(TableDef expected, TableDef served) {
        List<String> out = new ArrayList<>();
        String t = expected.qualifiedName();
        if (!names(expected.partitionKey()).equals(names(served.partitionKey())) || !names(expected.clustering()).equals(names(served.clustering()))) {
            out.add(t + ": primary key " + names(expected.partitionKey()) + " " + names(expected.clustering()) + " expected, Cassandra's definition has "
                    + names(served.partitionKey()) + " " + names(served.clustering()));
        }
        if (expected.versioned() != served.versioned()) {
            out.add(t + ": " + (expected.versioned() ? "versioned" : "unversioned") + " expected, Cassandra's definition is "
                    + (served.versioned() ? "versioned" : "unversioned"));
        }
        for (Map.Entry<String, io.cassandragsi.schema.AttrType> a : expected.attributes().entrySet()) {
            io.cassandragsi.schema.AttrType other = served.attributes().get(a.getKey());
            if (other == null) {
                out.add(t + ": attribute '" + a.getKey() + "' expected, Cassandra's definition has none");
            } else if (other != a.getValue()) {
                out.add(t + ": attribute '" + a.getKey() + "' of type " + a.getValue().jsonName() + " expected, Cassandra's definition has "
                        + other.jsonName());
            }
        }
        for (Index i : expected.indexes().values()) {
            Index s = served.index(i.name());
            if (s == null) {
                out.add(t + ": index '" + i.name() + "' expected, Cassandra serves " + (served.indexes().isEmpty() ? "none"
                        : String.join(", ", served.indexes().keySet())));
                continue;
            }
            compare(out, t, i.name(), "hash", i.hash(), s.hash());
            compare(out, t, i.name(), "range", i.range(), s.range());
            compare(out, t, i.name(), "proj", i.proj(), s.proj());
        }
        return out;
    }

    /** The attributes' names and orders (their types are compared once, with the table's attributes). */
    private static void compare(List<String> out, String table, String index, String part, List<Column> expected, List<Column> served) {
        if (!names(expected).equals(names(served))) {
            out.add(table + ": index '" + index + "' " + part + " attributes " + names(expected) + " expected, Cassandra's definition has "
                    + names(served));
        }
    }

    private static List<String> names(List<Column> columns) {
        return columns.stream().map(c -> c.order() == Order.DESC ? c.name() + " desc" : c.name()).toList();
    }
}
