package io.cassandragsi.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import io.cassandragsi.schema.AttrType;
import io.cassandragsi.schema.ClusteringOrder;
import io.cassandragsi.schema.Column;
import io.cassandragsi.schema.Order;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.cassandra.db.marshal.AbstractType;
import org.apache.cassandra.db.marshal.BooleanType;
import org.apache.cassandra.db.marshal.BytesType;
import org.apache.cassandra.db.marshal.DecimalType;
import org.apache.cassandra.db.marshal.DoubleType;
import org.apache.cassandra.db.marshal.FloatType;
import org.apache.cassandra.db.marshal.Int32Type;
import org.apache.cassandra.db.marshal.IntegerType;
import org.apache.cassandra.db.marshal.LongType;
import org.apache.cassandra.db.marshal.TimeUUIDType;
import org.apache.cassandra.db.marshal.TimestampType;
import org.apache.cassandra.db.marshal.UTF8Type;
import org.apache.cassandra.db.marshal.UUIDType;
import org.junit.jupiter.api.Test;

/**
 * {@link ClusteringOrder} (the order index-table pages resume in, docs/design.md section 8.5)
 * against the comparators of Cassandra 5.0's own types, on random serialized values of every
 * attribute type, close values and empty ones among them, and on keys of two columns in every
 * pair of orders. Prints its seed; {@code -Dgsi.seed=N} replays.
 */
class ClusteringOrderTest {
    private static final Map<AttrType, AbstractType<?>> CASSANDRA = Map.ofEntries(Map.entry(AttrType.STRING, UTF8Type.instance),
            Map.entry(AttrType.JSON, UTF8Type.instance), Map.entry(AttrType.BLOB, BytesType.instance), Map.entry(AttrType.BOOLEAN, BooleanType.instance),
            Map.entry(AttrType.INT, Int32Type.instance), Map.entry(AttrType.LONG, LongType.instance), Map.entry(AttrType.VARINT, IntegerType.instance),
            Map.entry(AttrType.DECIMAL, DecimalType.instance), Map.entry(AttrType.FLOAT, FloatType.instance),
            Map.entry(AttrType.DOUBLE, DoubleType.instance), Map.entry(AttrType.UUID, UUIDType.instance),
            Map.entry(AttrType.TIMEUUID, TimeUUIDType.instance), Map.entry(AttrType.TIMESTAMP, TimestampType.instance));

    private final long seed = Long.getLong("gsi.seed", System.nanoTime());
    private final Random random = new Random(seed);

    @Test
    void should_order_every_type_as_cassandra_does() {
        System.out.println("ClusteringOrderTest seed " + seed);
        for (AttrType type : AttrType.values()) {
            AbstractType<?> theirs = CASSANDRA.get(type);
            for (int i = 0; i < 5_000; i++) {
                ByteBuffer a = value(type);
                ByteBuffer b = random.nextInt(4) == 0 ? near(type, a) : value(type);
                assertThat(Integer.signum(ClusteringOrder.compare(type, a, b))).as("seed %d: %s %s vs %s", seed, type, hex(a), hex(b))
                        .isEqualTo(Integer.signum(theirs.compare(a, b)));
            }
        }
    }

    @Test
    void should_order_keys_column_by_column_each_in_its_own_order() {
        System.out.println("ClusteringOrderTest seed " + seed);
        for (Order first : Order.values()) {
            for (Order second : Order.values()) {
                List<Column> columns = List.of(new Column("a", AttrType.INT, first), new Column("b", AttrType.STRING, second));
                ClusteringOrder order = ClusteringOrder.of(columns);
                for (int i = 0; i < 2_000; i++) {
                    List<ByteBuffer> x = List.of(Int32Type.instance.decompose(random.nextInt(3) - 1), UTF8Type.instance.decompose("k" + random.nextInt(3)));
                    List<ByteBuffer> y = List.of(Int32Type.instance.decompose(random.nextInt(3) - 1), UTF8Type.instance.decompose("k" + random.nextInt(3)));
                    int a = Int32Type.instance.compare(x.get(0), y.get(0));
                    int expected = a != 0 ? (first == Order.DESC ? -a : a)
                            : (second == Order.DESC ? -1 : 1) * UTF8Type.instance.compare(x.get(1), y.get(1));
                    assertThat(Integer.signum(order.compare(x, y))).as("seed %d: %s %s", seed, first, second).isEqualTo(Integer.signum(expected));
                }
                assertThat(order.compare(List.of(Int32Type.instance.decompose(1)), List.of(Int32Type.instance.decompose(1), UTF8Type.instance.decompose(""))))
                        .as("a prefix first").isNegative();
            }
        }
    }

    /** A random serialized value of {@code type}: empty now and then, else of every shape the type takes. */
    private ByteBuffer value(AttrType type) {
        if (random.nextInt(50) == 0 && type != AttrType.BOOLEAN) {
            return ByteBuffer.allocate(0);
        }
        return switch (type) {
            case STRING, JSON -> ByteBuffer.wrap(text().getBytes(StandardCharsets.UTF_8));
            case BLOB -> bytes(random.nextInt(6));
            case BOOLEAN -> ByteBuffer.wrap(new byte[] {(byte) random.nextInt(3)});
            case INT -> ByteBuffer.allocate(4).putInt(0, small() ? random.nextInt(5) - 2 : random.nextInt());
            case LONG, TIMESTAMP -> ByteBuffer.allocate(8).putLong(0, small() ? random.nextInt(5) - 2 : random.nextLong());
            case VARINT -> ByteBuffer.wrap(new BigInteger(1 + random.nextInt(80), random).subtract(BigInteger.ONE.shiftLeft(random.nextInt(80))).toByteArray());
            case DECIMAL -> DecimalType.instance.decompose(new BigDecimal(BigInteger.valueOf(random.nextInt(2001) - 1000), random.nextInt(7) - 3));
            case FLOAT -> ByteBuffer.allocate(4).putFloat(0, small() ? random.nextInt(5) - 2.5f : Float.intBitsToFloat(random.nextInt()));
            case DOUBLE -> ByteBuffer.allocate(8).putDouble(0, small() ? random.nextInt(5) - 2.5 : Double.longBitsToDouble(random.nextLong()));
            case UUID -> uuid(random.nextInt(3) == 0 ? 1 : 1 + random.nextInt(8));
            case TIMEUUID -> uuid(1);
        };
    }

    /** A value that differs from {@code a} in one place only, where one exists: the ties the order must break. */
    private ByteBuffer near(AttrType type, ByteBuffer a) {
        if (!a.hasRemaining() || type == AttrType.DECIMAL || type == AttrType.VARINT || type == AttrType.BOOLEAN) {
            return value(type);
        }
        byte[] copy = new byte[a.remaining()];
        a.duplicate().get(copy);
        int at = (type == AttrType.UUID || type == AttrType.TIMEUUID) ? 8 + random.nextInt(8) : random.nextInt(copy.length);
        copy[at] = (byte) random.nextInt(256);
        return ByteBuffer.wrap(copy);
    }

    private boolean small() {
        return random.nextBoolean();
    }

    private String text() {
        StringBuilder s = new StringBuilder();
        for (int n = random.nextInt(5); n > 0; n--) {
            int kind = random.nextInt(4);
            s.appendCodePoint(kind == 0 ? 'a' + random.nextInt(3) : kind == 1 ? 0xe9 : kind == 2 ? 0x4e2d + random.nextInt(2) : 0x1f600);
        }
        return s.toString();
    }

    private ByteBuffer bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return ByteBuffer.wrap(b);
    }

    private ByteBuffer uuid(int version) {
        ByteBuffer b = bytes(16);
        long msb = b.getLong(0) & ~0xF000L | (long) version << 12;
        return b.putLong(0, msb);
    }

    private static String hex(ByteBuffer b) {
        StringBuilder s = new StringBuilder();
        for (int i = b.position(); i < b.limit(); i++) {
            s.append(String.format("%02x", b.get(i)));
        }
        return s.toString();
    }
}
