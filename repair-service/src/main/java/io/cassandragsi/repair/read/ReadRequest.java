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
    /** The {@code as_of} value that asks for the safe time (docs/design.md section 7.10). */
    static final String SAFE = "safe";
    /** The earliest timeuuid: the start of a window without {@code ts_ge}. */
    static final UUID EARLIEST = Tids.minAtTicks(-io.cassandragsi.index.WriteTimestamps.UUID_EPOCH_OFFSET);

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
    /** The query time asked for ({@code as_of}), or null: now (or a window read). */
    final UUID asOf;
    /** A window read's start ({@code ts_ge}): the tid whose current version is the first to count; null: not a window read. */
    final UUID from;
    /** A window read's end ({@code ts_lt}) as the last tid inside the window, or null: now (or not a window read). */
    final UUID upTo;

    private ReadRequest(IndexReader.Query query, TableDef def, Index index, List<ByteBuffer> fixed, Bound lower, Bound upper, int limit,
            UUID asOf, UUID from, UUID upTo) {
        this.query = query;
        this.def = def;
        this.index = index;
        this.fixed = fixed;
        this.lower = lower;
        this.upper = upper;
        this.limit = limit;
        this.asOf = asOf;
        this.from = from;
        this.upTo = upTo;
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
        fresh(query);
        boolean safe = SAFE.equals(query.asOf());
        UUID asOf = query.asOf() == null || safe ? null : queryTime(query.asOf());
        ReadKind.of(def).refuse(query, def);
        UUID from = null;
        UUID upTo = null;
        if (query.window()) {
            if (query.asOf() != null) {
                throw ReadException.badRequest("bad_window", "give either as_of (one moment) or ts_ge/ts_lt (a window), not both");
            }
            // ts_ge: the version current then counts; ts_lt: exclusive, the last tid of the tick before
            from = query.tsGe() == null ? EARLIEST : parseTime("ts_ge", query.tsGe(), false);
            upTo = query.tsLt() == null ? null : parseTime("ts_lt", query.tsLt(), true);
            if (upTo != null && Tids.compare(from, upTo) > 0) {
                throw ReadException.badRequest("bad_window", "ts_ge " + Values.quote(query.tsGe()) + " must be before ts_lt "
                        + Values.quote(query.tsLt()));
            }
        }
        return new ReadRequest(query, def, index, List.copyOf(fixed), lower, upper, limit, asOf, from, upTo);
    }

    /**
     * A fresh read (docs/design.md section 8.7) is as of the moment it arrives and answered from the
     * index: with {@code as_of}, a window or {@code consistent=true} it is a 400 naming both; {@code
     * max_wait} belongs to a fresh read only, and is not negative.
     */
    private static void fresh(IndexReader.Query query) {
        if (!query.freshRead()) {
            if (query.maxWait() != null) {
                throw ReadException.badRequest("bad_fresh", "max_wait bounds the wait of a fresh read: give it with fresh=true, or leave it out");
            }
            return;
        }
        if (query.asOf() != null) {
            throw ReadException.badRequest("bad_fresh", "give either fresh=true (as of the moment the read arrives) or as_of, not both");
        }
        if (query.window()) {
            throw ReadException.badRequest("bad_fresh", "give either fresh=true (one moment: the read's arrival) or ts_ge/ts_lt (a window), not both");
        }
        if (query.consistent()) {
            throw ReadException.badRequest("bad_fresh", "give either fresh=true (answered from the index once the safe time has passed the"
                    + " read's arrival) or consistent=true (every candidate checked against the base), not both");
        }
        if (query.maxWait() != null && query.maxWait().isNegative()) {
            throw ReadException.badRequest("bad_fresh", "max_wait must not be negative, not " + query.maxWait().toMillis() + " ms");
        }
    }

    /** Whether this is a fresh read ({@code fresh=true}). */
    boolean fresh() {
        return query.freshRead();
    }

    /** How long a fresh read waits at most: its {@code max_wait}, never beyond {@code limit} (the reader's {@code fresh_timeout}). */
    java.time.Duration maxWait(java.time.Duration limit) {
        return query.maxWait() == null || query.maxWait().compareTo(limit) > 0 ? limit : query.maxWait();
    }

    /** Whether the query time is the safe time ({@code as_of=safe}): fixed by the first page, like a read as of now. */
    boolean safe() {
        return SAFE.equals(query.asOf());
    }

    /** Whether this is a window read ({@code ts_ge}, {@code ts_lt}). */
    boolean window() {
        return from != null;
    }

    /** The query time fixed by the request: {@code as_of}, or a window's {@code ts_lt}; null: the moment of the first page. */
    UUID fixedTime() {
        return window() ? upTo : asOf;
    }

    /** The query time of a read whose first page is now: this moment, or a window's end just before it (exclusive, as ts_lt). */
    UUID now() {
        return window() ? Tids.maxAtTicks(Tids.ticks(Instant.now()) - 1) : queryTime(null);
    }

    /** The shape of the index select this read needs. */
    IndexTable.Shape shape() {
        return new IndexTable.Shape(fixed.size() - index.hash().size(), lower == null ? null : lower.op(), upper == null ? null : upper.op());
    }

    /** What a page token of this read at query time {@code at} is bound to (path, bounds, consistent, query time, window). */
    String canonical(UUID at) {
        String moment = String.join("\u0000", def.keyspace(), def.table(), index.name(), String.join("\u0001", query.values()),
                String.valueOf(query.gt()), String.valueOf(query.ge()), String.valueOf(query.lt()), String.valueOf(query.le()),
                String.valueOf(query.consistent()), at.toString());
        String when = safe() ? moment + "\u0000safe" : fresh() ? moment + "\u0000fresh" : moment;
        return window() ? when + "\u0000window\u0000" + query.tsGe() + "\u0000" + query.tsLt() : when;
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
        return parseTime("as_of", asOf, false);
    }

    /**
     * A moment named by parameter {@code name}: an ISO-8601 instant (or epoch millis) as the last
     * tid of its 100-ns tick, or a timeuuid as itself; {@code before}: the last tid of the tick before.
     */
    private static UUID parseTime(String name, String text, boolean before) {
        String code = name.equals("as_of") ? "bad_as_of" : "bad_window";
        if (text.length() == 36 && text.charAt(8) == '-') {
            UUID u;
            try {
                u = UUID.fromString(text);
            } catch (IllegalArgumentException e) {
                throw ReadException.badRequest(code, name + " '" + text + "' is neither an ISO-8601 instant nor a timeuuid");
            }
            if (u.version() != 1) {
                throw ReadException.badRequest(code, name + " '" + text + "' is a UUID but not a timeuuid (version 1)");
            }
            return before ? Tids.maxAtTicks(io.cassandragsi.index.WriteTimestamps.of(u) - 1) : u;
        }
        long ticks;
        try {
            ticks = Tids.ticks(Values.instant(text));
        } catch (RuntimeException e) {
            throw ReadException.badRequest(code, name + " '" + text + "' is neither an ISO-8601 instant (2026-11-21T10:00:00Z) nor a timeuuid");
        }
        return Tids.maxAtTicks(before ? ticks - 1 : ticks);
    }
}
