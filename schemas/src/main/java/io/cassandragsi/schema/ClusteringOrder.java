package io.cassandragsi.schema;

import io.cassandragsi.index.Tids;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which Cassandra 5.0 keeps the rows of a partition, on serialized clustering values
 * (CQL's native protocol format), column by column with each column's {@link Order}: the order a
 * page of the index table comes in, so that a later page can start behind the last row the page
 * before consumed even when rows were written before it since (docs/design.md section 8.5).
 *
 * <p>Per type, as the types of {@code org.apache.cassandra.db.marshal} compare: text, json and blob
 * as unsigned bytes (a prefix first); int, bigint and timestamp as signed numbers; varint and
 * decimal by value; float and double as {@link Float#compare} and {@link Double#compare}; boolean
 * false before true; timeuuid by time, then the low 8 bytes as signed bytes ({@link Tids#compare}); uuid by version, then
 * the time of a version-1 uuid or the high 8 bytes unsigned, then the low 8 bytes unsigned. An
 * empty value comes before every other. {@code ClusteringOrderTest} in the trigger module judges
 * this class against Cassandra's own types.
 */
public final class ClusteringOrder implements Comparator<List<ByteBuffer>> {
    private final List<Column> columns;

    private ClusteringOrder(List<Column> columns) {
        this.columns = List.copyOf(columns);
    }

    /** The order of clustering keys made of {@code columns}' values, in that order. */
    public static ClusteringOrder of(List<Column> columns) {
        return new ClusteringOrder(columns);
    }

    /** Compares two clustering keys of the columns' values (a shorter key, a prefix, first). */
    @Override
    public int compare(List<ByteBuffer> a, List<ByteBuffer> b) {
        int n = Math.min(a.size(), b.size());
        for (int i = 0; i < n; i++) {
            Column c = columns.get(i);
            int cmp = compare(c.type(), a.get(i), b.get(i));
            if (cmp != 0) {
                return c.order() == Order.DESC ? -Integer.signum(cmp) : Integer.signum(cmp);
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    /** Two serialized values of {@code type} in Cassandra's order for the type (ascending). */
    public static int compare(AttrType type, ByteBuffer a, ByteBuffer b) {
        ByteBuffer x = a.duplicate();
        ByteBuffer y = b.duplicate();
        if (!x.hasRemaining() || !y.hasRemaining()) {
            return Boolean.compare(x.hasRemaining(), y.hasRemaining());
        }
        return switch (type) {
            case STRING, JSON, BLOB -> unsigned(x, y);
            case BOOLEAN -> Boolean.compare(x.get(x.position()) != 0, y.get(y.position()) != 0);
            case INT -> Integer.compare(x.getInt(x.position()), y.getInt(y.position()));
            case LONG, TIMESTAMP -> Long.compare(x.getLong(x.position()), y.getLong(y.position()));
            case VARINT -> integer(x).compareTo(integer(y));
            case DECIMAL -> decimal(x).compareTo(decimal(y));
            case FLOAT -> Float.compare(x.getFloat(x.position()), y.getFloat(y.position()));
            case DOUBLE -> Double.compare(x.getDouble(x.position()), y.getDouble(y.position()));
            case TIMEUUID -> Tids.compare(Tids.uuid(x), Tids.uuid(y));
            case UUID -> uuid(x, y);
        };
    }

    private static int unsigned(ByteBuffer x, ByteBuffer y) {
        int n = Math.min(x.remaining(), y.remaining());
        for (int i = 0; i < n; i++) {
            int c = Integer.compare(x.get(x.position() + i) & 0xff, y.get(y.position() + i) & 0xff);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(x.remaining(), y.remaining());
    }

    private static BigInteger integer(ByteBuffer b) {
        byte[] bytes = new byte[b.remaining()];
        b.get(b.position(), bytes);
        return new BigInteger(bytes);
    }

    private static BigDecimal decimal(ByteBuffer b) {
        int scale = b.getInt(b.position());
        byte[] bytes = new byte[b.remaining() - 4];
        b.get(b.position() + 4, bytes);
        return new BigDecimal(new BigInteger(bytes), scale);
    }

    /** A version-1 uuid's 60-bit time, from its most significant long. */
    private static long time(long msb) {
        return (msb & 0x0FFFL) << 48 | (msb >>> 16 & 0xFFFFL) << 32 | msb >>> 32;
    }

    private static int uuid(ByteBuffer x, ByteBuffer y) {
        long mx = x.getLong(x.position());
        long my = y.getLong(y.position());
        int vx = (int) (mx >>> 12 & 0xf);
        int vy = (int) (my >>> 12 & 0xf);
        if (vx != vy) {
            return Integer.compare(vx, vy);
        }
        int c = vx == 1 ? Long.compare(time(mx), time(my)) : Long.compareUnsigned(mx, my);
        return c != 0 ? c : Long.compareUnsigned(x.getLong(x.position() + 8), y.getLong(y.position() + 8));
    }
}
