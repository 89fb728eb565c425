package io.cassandragsi.repair.read;

import io.cassandragsi.maintain.Version;
import com.fasterxml.jackson.core.io.SerializedString;
import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.IndexColumns;
import io.cassandragsi.schema.AttrType;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Where everything a read needs sits, for one index, worked out once: the attributes of an item
 * (index hash and range attributes, the base primary key with the tid, the projections; each
 * once, in that order) with their types, where each is in a row of the index select and in a base
 * version, and where the entry key, the base row key, {@code _tid} and {@code _deleted} are in an
 * index row. The index row's columns come from {@link IndexColumns}, which decodes in the order of
 * {@code schema.IndexLayout}, the one owner of the index table's column order. Items from the index and items from the base thus have the same
 * attributes in the same order.
 */
final class ItemLayout {
    /** Item attributes, in item order, and their types. */
    final String[] names;
    private final SerializedString[] jsonNames;
    final AttrType[] types;
    /** Per item attribute: its column in an index row (the tid of an index that is not per version: {@code _tid}). */
    private final int[] rowColumn;
    /** Per item attribute: its position in a base version's values (definition order). */
    private final int[] versionAttribute;
    /** Index key columns: the first {@code keySize} columns of an index row. */
    final int keySize;
    /** Of those, the partition key's (the rest are the clustering key). */
    private final int partitionSize;
    /** Positions in the entry key of the base row key (partition key, clustering prefix). */
    private final int[] rowKeyInEntryKey;
    /** The {@code _tid} and {@code _deleted} columns of an index row; -1 for a per-version index. */
    final int tidColumn;
    final int deletedColumn;
    /** Per-version index: the tid's position in the entry key; else -1. */
    final int tidInEntryKey;

    private ItemLayout(TableDef def, Index index) {
        IndexColumns columns = IndexColumns.of(index);
        List<Column> proj = index.proj();
        List<String> attributes = new ArrayList<>(def.attributes().keySet());
        Column tid = def.tid();
        List<Column> order = new ArrayList<>(index.hash());
        order.addAll(index.range());
        order.addAll(def.primaryKey());
        order.addAll(proj);
        List<Column> item = new ArrayList<>();
        for (Column c : order) {
            if (item.stream().noneMatch(i -> i.name().equals(c.name()))) {
                item.add(c);
            }
        }
        this.keySize = columns.keySize();
        this.partitionSize = index.partitionColumns().size();
        this.tidColumn = columns.tidColumn();
        this.deletedColumn = columns.deletedColumn();
        this.names = new String[item.size()];
        this.jsonNames = new SerializedString[item.size()];
        this.types = new AttrType[item.size()];
        this.rowColumn = new int[item.size()];
        this.versionAttribute = new int[item.size()];
        for (int i = 0; i < item.size(); i++) {
            Column c = item.get(i);
            names[i] = c.name();
            jsonNames[i] = new SerializedString(c.name());
            types[i] = c.type();
            versionAttribute[i] = attributes.indexOf(c.name());
            int column = columns.column(c.name());
            if (column < 0) {
                column = tid != null && c.name().equals(tid.name()) ? tidColumn : -1;
            }
            if (column < 0) {
                throw new IllegalStateException("attribute '" + c.name() + "' of index " + index.name() + " is in no column of its table");
            }
            rowColumn[i] = column;
        }
        this.rowKeyInEntryKey = columns.rowKeyInEntryKey(def);
        this.tidInEntryKey = index.perVersion() ? columns.keyColumn(tid.name()) : -1;
    }

    static ItemLayout of(TableDef def, Index index) {
        return new ItemLayout(def, index);
    }

    /** The item of an index row, decoded from its columns. */
    Item fromRow(IndexRow row) {
        Object[] values = new Object[names.length];
        for (int i = 0; i < names.length; i++) {
            values[i] = Values.render(types[i], row.get(rowColumn[i]));
        }
        return new Item(names, jsonNames, values);
    }

    /** The item of a base version. */
    Item fromVersion(Version version) {
        Object[] values = new Object[names.length];
        ByteBuffer[] stored = version.values();
        for (int i = 0; i < names.length; i++) {
            values[i] = Values.render(types[i], stored[versionAttribute[i]]);
        }
        return new Item(names, jsonNames, values);
    }

    /** The entry key of an index row: its key columns. */
    List<ByteBuffer> entryKey(IndexRow row) {
        return java.util.Arrays.asList(row.columns()).subList(0, keySize);
    }

    /** The clustering key of an index row: its entry key past the partition key (the order a page comes in, {@code ClusteringOrder}). */
    List<ByteBuffer> clustering(IndexRow row) {
        return entryKey(row).subList(partitionSize, keySize);
    }

    /** The {@code _tid} of an index row (not of a per-version index), or null. */
    UUID tid(IndexRow row) {
        ByteBuffer b = row.get(tidColumn);
        return b == null ? null : Tids.uuid(b);
    }

    /** The {@code _deleted} of an index row (not of a per-version index), or null. */
    UUID deleted(IndexRow row) {
        ByteBuffer b = row.get(deletedColumn);
        return b == null ? null : Tids.uuid(b);
    }

    /** The tid in the key of a per-version index's row. */
    UUID tidInKey(IndexRow row) {
        return Tids.uuid(row.get(tidInEntryKey));
    }

    /** The base row key (partition key, clustering prefix) within an entry key. */
    List<ByteBuffer> rowKey(List<ByteBuffer> entryKey) {
        List<ByteBuffer> key = new ArrayList<>(rowKeyInEntryKey.length);
        for (int p : rowKeyInEntryKey) {
            key.add(entryKey.get(p));
        }
        return key;
    }
}
