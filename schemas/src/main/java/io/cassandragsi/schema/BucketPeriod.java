package io.cassandragsi.schema;

import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

/**
 * The period of a time-bucketed index (docs/design.md sections 2 and 3.7, the definition's {@code
 * {"type": "bucket", "period": ...}}): how a moment maps to its bucket's label, in UTC ({@code
 * 2012-12-31}, {@code 2012-12}, {@code 2012}), and where a bucket starts and ends. Labels of one
 * period sort as their buckets do. Pure.
 */
public enum BucketPeriod {
    DAY("day"),
    MONTH("month"),
    YEAR("year");

    private final String jsonName;

    BucketPeriod(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }

    /** The period a definition names, or null when it names none. */
    public static BucketPeriod fromJson(String name) {
        for (BucketPeriod p : values()) {
            if (p.jsonName.equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** The contract name of a bucket table: {@code idx_<table>_<index>_<period>}. */
    public String tableName(String table, String index) {
        return "idx_" + table + "_" + index + "_" + jsonName;
    }

    /** The label of the bucket that holds {@code moment}. */
    public String label(Instant moment) {
        LocalDate d = moment.atZone(ZoneOffset.UTC).toLocalDate();
        return switch (this) {
            case DAY -> d.toString();
            case MONTH -> YearMonth.from(d).toString();
            case YEAR -> String.format("%04d", d.getYear());
        };
    }

    /** The first moment of the bucket {@code label}; an {@link IllegalArgumentException} for a label of another period. */
    public Instant start(String label) {
        try {
            LocalDate first = switch (this) {
                case DAY -> LocalDate.parse(label);
                case MONTH -> YearMonth.parse(label).atDay(1);
                case YEAR -> {
                    if (!label.matches("\\d{4}")) {
                        throw new IllegalArgumentException("not a year bucket label: '" + label + "'");
                    }
                    yield LocalDate.of(Integer.parseInt(label), 1, 1);
                }
            };
            if (!label(first.atStartOfDay(ZoneOffset.UTC).toInstant()).equals(label)) {
                throw new IllegalArgumentException("not a " + jsonName + " bucket label: '" + label + "'");
            }
            return first.atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a " + jsonName + " bucket label: '" + label + "'", e);
        }
    }

    /** The label of the bucket after {@code label}. */
    public String next(String label) {
        return label(end(label));
    }

    /** The first moment after the bucket {@code label} (exclusive end). */
    public Instant end(String label) {
        LocalDate first = start(label).atZone(ZoneOffset.UTC).toLocalDate();
        LocalDate after = switch (this) {
            case DAY -> first.plusDays(1);
            case MONTH -> first.plusMonths(1);
            case YEAR -> first.plusYears(1);
        };
        return after.atStartOfDay(ZoneOffset.UTC).toInstant();
    }
}
