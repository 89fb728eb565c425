package io.cassandragsi.repair.read;

import java.nio.ByteBuffer;

/**
 * One row of an index or bucket select, its columns in the select's order ({@code
 * store.IndexColumns}, then a bucket select's {@code _first}, {@code _seal} and label): what the
 * read path decides from, whichever store it came from.
 */
record IndexRow(ByteBuffer[] columns) {
    ByteBuffer get(int column) {
        return columns[column];
    }
}
