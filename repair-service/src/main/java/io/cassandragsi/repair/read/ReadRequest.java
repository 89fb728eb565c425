package io.cassandragsi.repair.read;

import io.cassandragsi.index.Tids;
import io.cassandragsi.repair.store.IndexTable;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Index;
import io.cassandragsi.schema.TableDef;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * A read's input, parsed and validated against its index before anything is read: the path
 * values by type, the bounds on the first free range attribute, the limit and the query time
 * (docs/design.md section 8.1). Anything malformed is a {@link ReadException} 400 naming it. Pure:
 * tested without a node.
 */
final class ReadRequest {
    /** A bound on the first range attribute the path leaves free: its CQL operator and value. */
    record Bound(String op, ByteBuffer value) {}

    final IndexReader.Query query;
    final TableDef def;
    final Index index;
    /** The path values, parsed: hash values, then the fixed range values. */
    final List<ByteBuffer> fixed;
    final Bound lower;
    final Bound upper;
    final int limit;
    /** The query time asked for ({@code as_of}), or null: now. */
    final UUID asOf;

    private ReadRequest(IndexReader.Query query, TableDef def, Index index, List<ByteBuffer> fixed, Bound lower, Bound upper, int limit,
            UUID asOf) {
        this.query = query;
        this.def = def;
        this.index = index;
        this.fixed = fixed;
        this.lower = lower;
        this.upper = upper;
        this.limit = limit;
        this.asOf = asOf;
    }

    static ReadRequest parse(IndexReader.Query query, TableDef def, Index index) {
        List<Column> pathColumns = new ArrayList<>(index.hash());
        pathColumns.addAll(index.range());
        List<String> values = query.values();
        if (values.size() < index.hash().size() || values.size() > pathColumns.size()) {
            throw ReadException.badRequest("bad_path", "index '" + index.name() + "' takes " + index.hash().size() + " hash value(s) ("
                    + names(index.hash()) + ")" + (index.range().isEmpty() ? "" : " then up to " + index.range().size()
                            + " range value(s) (" + names(index.range()) + ")") + ", got " + values.size());
        }
        List<ByteBuffer> fixed = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            Column c = pathColumns.get(i);
            fixed.add(Values.parse(c.name(), c.type(), values.get(i)));
        }
        Column free = values.size() < pathColumns.size() ? pathColumns.get(values.size()) : null;
        Bound lower = bound(query.gt(), ">", query.ge(), ">=", "gt", "ge", free);
        Bound upper = bound(query.lt(), "<", query.le(), "<=", "lt", "le", free);
        int limit = query.limit() == null ? IndexReader.DEFAULT_LIMIT : query.limit();
        if (limit < 1 || limit > IndexReader.MAX_LIMIT) {
            throw ReadException.badRequest("bad_limit", "limit must be between 1 and " + IndexReader.MAX_LIMIT + ", not " + limit);
        }
        UUID asOf = query.asOf() == null ? null : queryTime(query.asOf());
        if (asOf != null && query.consistent() && !def.versioned()) {
            throw ReadException.badRequest("bad_as_of", def.qualifiedName() + " is unversioned: the base keeps no history, so a consistent"
                    + " read is as of now only; leave out as_of, or read without consistent=true (answered from the index's _tid/_deleted)");
        }
        return new ReadRequest(query, def, index, List.copyOf(fixed), lower, upper, limit, asOf);
    }

    /** The shape of the index select this read needs. */
    IndexTable.Shape shape() {
        return new IndexTable.Shape(fixed.size() - index.hash().size(), lower == null ? null : lower.op(), upper == null ? null : upper.op());
    }

    /** What a page token of this read at query time {@code at} is bound to (path, bounds, consistent, query time). */
    String canonical(UUID at) {
        return String.join("\u0000", def.keyspace(), def.table(), index.name(), String.join("\u0001", query.values()),
                String.valueOf(query.gt()), String.valueOf(query.ge()), String.valueOf(query.lt()), String.valueOf(query.le()),
                String.valueOf(query.consistent()), at.toString());
    }

    private static String names(List<Column> columns) {
        return columns.stream().map(Column::name).collect(Collectors.joining(", "));
    }

    private static Bound bound(String strict, String strictOp, String inclusive, String inclusiveOp, String strictName,
            String inclusiveName, Column free) {
        if (strict != null && inclusive != null) {
            throw ReadException.badRequest("bad_bound", "give either '" + strictName + "' or '" + inclusiveName + "', not both");
        }
        String text = strict != null ? strict : inclusive;
        if (text == null) {
            return null;
        }
        if (free == null) {
            throw ReadException.badRequest("bad_bound", "'" + (strict != null ? strictName : inclusiveName)
                    + "' needs a range attribute not fixed by the path, and this path fixes them all (or the index has none)");
        }
        return new Bound(strict != null ? strictOp : inclusiveOp, Values.parse(free.name(), free.type(), text));
    }

    /** The query time: now, an ISO-8601 instant (or epoch millis), or a timeuuid. */
    static UUID queryTime(String asOf) {
        if (asOf == null) {
            return Tids.maxAtTicks(Tids.ticks(Instant.now()));
        }
        if (asOf.length() == 36 && asOf.charAt(8) == '-') {
            UUID u;
            try {
                u = UUID.fromString(asOf);
            } catch (IllegalArgumentException e) {
                throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is neither an ISO-8601 instant nor a timeuuid");
            }
            if (u.version() != 1) {
                throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is a UUID but not a timeuuid (version 1)");
            }
            return u;
        }
        try {
            return Tids.maxAtTicks(Tids.ticks(Values.instant(asOf)));
        } catch (RuntimeException e) {
            throw ReadException.badRequest("bad_as_of", "as_of '" + asOf + "' is neither an ISO-8601 instant (2026-11-21T10:00:00Z) nor a timeuuid");
        }
    }
}
