package io.cassandragsi.check;

import io.cassandragsi.index.TablePlan;
import io.cassandragsi.maintain.RowsWrite;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rebuild or a fix writes for one row (docs/design.md section 9), each write at its own
 * timestamp: {@code first} the rows-table writes that must be acknowledged before the index writes
 * (a key recorded before its entry is written, so that a later repair finds it; {@code _w} raised
 * before a recompute's corrections), then {@code index} and {@code after} together.
 */
public record Rewrite(List<RowsWrite> first, List<TablePlan.IndexWrite> index, List<RowsWrite> after) {
    public static final Rewrite NONE = new Rewrite(List.of(), List.of(), List.of());

    public Rewrite {
        first = List.copyOf(first);
        index = List.copyOf(index);
        after = List.copyOf(after);
    }

    /** This and {@code other} together. */
    public Rewrite plus(Rewrite other) {
        if (other.isEmpty()) {
            return this;
        }
        if (isEmpty()) {
            return other;
        }
        return new Rewrite(concat(first, other.first), concat(index, other.index), concat(after, other.after));
    }

    public boolean isEmpty() {
        return first.isEmpty() && index.isEmpty() && after.isEmpty();
    }

    private static <T> List<T> concat(List<T> a, List<T> b) {
        List<T> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
