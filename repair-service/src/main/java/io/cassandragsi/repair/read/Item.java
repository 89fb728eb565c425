package io.cassandragsi.repair.read;

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
final class Item extends AbstractMap<String, Object> {
    private final String[] names;
    private final Object[] values;

    Item(String[] names, Object[] values) {
        this.names = names;
        this.values = values;
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
