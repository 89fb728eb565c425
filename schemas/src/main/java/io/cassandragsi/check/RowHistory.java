package io.cassandragsi.check;

import io.cassandragsi.maintain.CurrentRow;
import io.cassandragsi.maintain.Version;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * One base row as the jobs read it (docs/design.md section 9): what its kind of table keeps of
 * its history. A row is named by its row key (the primary key less the tid).
 */
public sealed interface RowHistory permits RowHistory.Versions, RowHistory.Current {
    List<ByteBuffer> rowKey();

    /** The base rows read: a versioned row's versions, one for an unversioned row. */
    int size();

    /** A versioned row: every stored version, kept ascending (none: the row is gone). */
    record Versions(List<ByteBuffer> rowKey, List<Version> versions) implements RowHistory {
        public Versions {
            List<Version> sorted = new ArrayList<>(versions);
            sorted.sort(Version.ASCENDING);
            versions = List.copyOf(sorted);
        }

        @Override
        public int size() {
            return versions.size();
        }
    }

    /** An unversioned row: its cells now, with their write times and TTLs (every cell dead: the row is gone). */
    record Current(CurrentRow row) implements RowHistory {
        @Override
        public List<ByteBuffer> rowKey() {
            return row.rowKey();
        }

        @Override
        public int size() {
            return 1;
        }
    }
}
