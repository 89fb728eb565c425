package io.cassandragsi.repair.read;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * One item of a read: an immutable map from attribute name to value, in item order. The names
 * are shared by every item of an index ({@link ItemLayout}); an item holds only its values, so a
 * page of a hundred items is a hundred small arrays, not a hundred hash tables.
 */
@JsonSerialize(using = Item.Json.class)
public final class Item extends AbstractMap<String, Object> {
    private final String[] names;
    private final SerializedString[] jsonNames;
    private final Object[] values;

    Item(String[] names, SerializedString[] jsonNames, Object[] values) {
        this.names = names;
        this.jsonNames = jsonNames;
        this.values = values;
    }

    /** Jackson writes items with {@link #writeJson}, whichever mapper it is. */
    static final class Json extends StdSerializer<Item> {
        Json() {
            super(Item.class);
        }

        @Override
        public void serialize(Item item, JsonGenerator g, SerializerProvider provider) throws IOException {
            item.writeJson(g);
        }
    }

    /**
     * Writes the item as a JSON object, with the names encoded once per index and the values
     * written by their type (what Jackson's map serializer finds out per entry).
     */
    void writeJson(JsonGenerator g) throws IOException {
        g.writeStartObject();
        for (int i = 0; i < names.length; i++) {
            g.writeFieldName(jsonNames[i]);
            Object v = values[i];
            if (v instanceof String s) {
                g.writeString(s);
            } else if (v == null) {
                g.writeNull();
            } else if (v instanceof Integer n) {
                g.writeNumber(n);
            } else if (v instanceof Long n) {
                g.writeNumber(n);
            } else if (v instanceof BigInteger n) {
                g.writeNumber(n);
            } else if (v instanceof BigDecimal n) {
                g.writeNumber(n);
            } else if (v instanceof Boolean b) {
                g.writeBoolean(b);
            } else {
                g.writeObject(v);
            }
        }
        g.writeEndObject();
    }

    @Override
    public int size() {
        return names.length;
    }

    @Override
    public Object get(Object key) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(key)) {
                return values[i];
            }
        }
        return null;
    }

    @Override
    public boolean containsKey(Object key) {
        for (String name : names) {
            if (name.equals(key)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Set<Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public int size() {
                return names.length;
            }

            @Override
            public Iterator<Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int i;

                    @Override
                    public boolean hasNext() {
                        return i < names.length;
                    }

                    @Override
                    public Entry<String, Object> next() {
                        if (i >= names.length) {
                            throw new NoSuchElementException();
                        }
                        Entry<String, Object> e = new SimpleImmutableEntry<>(names[i], values[i]);
                        i++;
                        return e;
                    }
                };
            }
        };
    }
}
