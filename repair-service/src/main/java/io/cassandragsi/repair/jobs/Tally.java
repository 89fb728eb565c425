package io.cassandragsi.repair.jobs;

import io.cassandragsi.check.Expected;
import io.cassandragsi.check.Finding;
import io.cassandragsi.check.Observed;
import io.cassandragsi.index.IndexPlan;
import io.cassandragsi.repair.read.Values;
import io.cassandragsi.schema.Column;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counts and a few examples of one index's findings, on a versioned and an unversioned table
 * alike (docs/design.md section 9.2); thread-safe.
 */
final class Tally {
    private final IndexPlan index;
    private final int maxExamples;
    final LongAdder expected = new LongAdder();
    final LongAdder missing = new LongAdder();
    final LongAdder stale = new LongAdder();
    final LongAdder wrongTid = new LongAdder();
    final LongAdder wrongDeleted = new LongAdder();
    final LongAdder wrongProjection = new LongAdder();
    final LongAdder orphans = new LongAdder();
    final LongAdder approximate = new LongAdder();
    final LongAdder transients = new LongAdder();
    /** Differences on rows written since the horizon, left to the maintainers (anti-entropy). */
    final LongAdder leftToMaintainers = new LongAdder();
    final LongAdder fixed = new LongAdder();
    final LongAdder unfixable = new LongAdder();
    final LongAdder tooLarge = new LongAdder();
    private final Map<Finding, Integer> shown = new EnumMap<>(Finding.class);
    private int shownUnfixable;
    private final List<String> examples = new ArrayList<>();

    Tally(IndexPlan index, int maxExamples) {
        this.index = index;
        this.maxExamples = maxExamples;
    }

    /** Counts one entry's confirmed findings (drift and approximate alike). */
    void record(List<ByteBuffer> key, Set<Finding> findings, Expected e, Observed a) {
        boolean isStale = false;
        for (Finding f : findings) {
            switch (f) {
                case MISSING -> missing.increment();
                case ORPHAN -> orphans.increment();
                case APPROXIMATE_DELETED -> approximate.increment();
                case WRONG_TID -> wrongTid.increment();
                case WRONG_DELETED -> wrongDeleted.increment();
                case WRONG_PROJECTION -> wrongProjection.increment();
                default -> throw new IllegalStateException(f.name());
            }
            isStale |= f.stale();
        }
        if (isStale) {
            stale.increment();
        }
        synchronized (this) {
            for (Finding f : findings) {
                int n = shown.getOrDefault(f, 0);
                if (n < maxExamples) {
                    shown.put(f, n + 1);
                    examples.add(describe(f.name().toLowerCase(Locale.ROOT), key, e, a));
                    break; // one line per entry
                }
            }
        }
    }

    void unfixable(List<ByteBuffer> key, Set<Finding> findings, Expected e, Observed a) {
        unfixable.increment();
        synchronized (this) {
            if (shownUnfixable < maxExamples) {
                shownUnfixable++;
                examples.add(describe("unfixable " + findings.toString().toLowerCase(Locale.ROOT), key, e, a));
            }
        }
    }

    String describe(String kind, List<ByteBuffer> key, Expected e, Observed a) {
        StringBuilder sb = new StringBuilder(kind).append(' ').append(renderKey(key)).append(": expected ");
        if (e == null) {
            sb.append("no entry");
        } else if (index.perVersion()) {
            sb.append("an entry for version ").append(e.tid());
        } else {
            sb.append("_tid=").append(e.tid()).append(" _deleted=").append(e.deleted());
        }
        sb.append(", found ");
        if (a == null) {
            sb.append("nothing");
        } else if (index.perVersion()) {
            sb.append("an entry");
        } else {
            sb.append("_tid=").append(a.tid()).append(" _deleted=").append(a.deleted());
        }
        if (e != null && a != null && !e.proj().equals(a.proj())) {
            sb.append(" (projections differ)");
        }
        return sb.toString();
    }

    String renderKey(List<ByteBuffer> key) {
        List<Column> cols = index.index().keyColumns();
        StringBuilder sb = new StringBuilder(index.index().name()).append('[');
        for (int i = 0; i < key.size(); i++) {
            if (i > 0) {
                sb.append(", ");
            }
            Column c = cols.get(i);
            Object v;
            try {
                v = Values.render(c.type(), key.get(i));
            } catch (RuntimeException ex) {
                v = "?";
            }
            sb.append(c.name()).append('=').append(v);
        }
        return sb.append(']').toString();
    }

    synchronized CheckResult.IndexReport report() {
        return new CheckResult.IndexReport(index.index().name(), expected.sum(), missing.sum(), stale.sum(), wrongTid.sum(),
                wrongDeleted.sum(), wrongProjection.sum(), orphans.sum(), approximate.sum(), transients.sum(), fixed.sum(),
                unfixable.sum(), tooLarge.sum(), List.copyOf(examples));
    }
}
