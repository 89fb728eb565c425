package io.cassandragsi.maintain;

import io.cassandragsi.index.TablePlan;
import java.util.List;

/**
 * Where maintenance writes go (docs/design.md section 6). Every write carries its own timestamp
 * and is idempotent, so a failed one is retried whole and the order of writes within one call
 * does not matter.
 */
public final class Writes {
    private Writes() {}

    /**
     * The writes a repair hands back to its caller, to be sent with those of other repairs (the
     * repair is done once they are acknowledged).
     */
    @FunctionalInterface
    public interface Sink {
        void write(List<TablePlan.IndexWrite> index, List<RowsWrite> rows);
    }

    /**
     * Rows-table writes that later writes depend on (a key recorded before its entry is written,
     * {@code _w} raised before a recompute's corrections): sent at once, acknowledged on return.
     */
    @FunctionalInterface
    public interface Now {
        void write(List<RowsWrite> rows);
    }
}
