package io.cassandragsi.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import io.cassandragsi.index.Tids;
import io.cassandragsi.oracle.IndexOracle;
import io.cassandragsi.schema.TableDef;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes to a revisions-shaped table while {@code as_of=safe} reads run, and judges every answer
 * against the oracle of the writes acknowledged before its {@code as_of} (docs/design.md section
 * 7.10): the writes' start and acknowledgement times are kept, a write that failed (a node killed)
 * counts as never acknowledged, and a row that a write not acknowledged by an answer's {@code as_of}
 * may change then is left out of that answer's judgement, and counted. Zero tolerance for the
 * others. Shares no code with the project but the definition and timeuuid helpers.
 */
final class SafeProbe {
    static final int KEYS = 100;
    static final int LENGTHS = 3;

    /** One write as the client saw it: when it started, when it was acknowledged (null: it failed), and what it did. */
    record Op(String key, UUID tid, Integer length, boolean delete, long startMillis, Long ackMillis) {}

    /** One answer: its as_of, the length read, the rows it returned (key to tid), and when the read ended. */
    record Answer(Instant asOf, int length, Map<String, UUID> rows, long endMillis) {}

    /** One page of an {@code as_of=safe} read of {@code by_length}: its items (key to tid), next token and as_of; null while 503. */
    record Page(Map<String, UUID> items, String next, Instant asOf) {}

    /** Reads one page at {@code as_of=safe} of rows of length {@code length}, 10 at a time; null while the safe time is not known. */
    @FunctionalInterface
    interface Reader {
        Page read(int length, String next);
    }

    private SafeProbe() {}

    /**
     * Writes {@code count} operations at {@code cl}: new versions (now, or one in 40 up to 2 s old),
     * retries of the same version and deletes of a version (one in 20 each), about 100 a second. A
     * failed write is kept with no acknowledgement when {@code tolerant}, else thrown.
     */
    static void write(CqlSession session, TableDef def, Random rnd, int count, AtomicLong clock, List<Op> ops, ConsistencyLevel cl,
            boolean tolerant) {
        String t = def.keyspace() + ".revisions";
        PreparedStatement insert = session.prepare("INSERT INTO " + t + " (key, tid, length, value) VALUES (?, ?, ?, ?)");
        PreparedStatement delete = session.prepare("DELETE FROM " + t + " WHERE key = ? AND tid = ?");
        List<Op> mine = new ArrayList<>();
        Set<UUID> deleted = new HashSet<>();
        for (int i = 0; i < count; i++) {
            int kind = rnd.nextInt(40);
            if (i > 0) {
                sleep(8); // about 100 writes/s per writer: a history of several seconds, many answers along it
            }
            Op op;
            if (kind <= 1 && !mine.isEmpty()) { // a retry: the same version again
                Op was = mine.get(rnd.nextInt(mine.size()));
                if (deleted.contains(was.tid()) || was.delete()) {
                    continue;
                }
                op = new Op(was.key(), was.tid(), was.length(), false, System.currentTimeMillis(), null);
            } else if (kind <= 3 && !mine.isEmpty()) { // a delete of one of its versions
                Op was = mine.get(rnd.nextInt(mine.size()));
                if (was.delete() || !deleted.add(was.tid())) {
                    continue;
                }
                op = new Op(was.key(), was.tid(), null, true, System.currentTimeMillis(), null);
            } else {
                long now = Tids.ticks(Instant.now());
                long tick = kind == 4 ? now - 1 - rnd.nextInt(20_000_000) : clock.updateAndGet(c -> Math.max(c + 1, now));
                UUID tid = Tids.fromTicks(tick, rnd.nextLong());
                op = new Op("k" + rnd.nextInt(KEYS), tid, rnd.nextInt(8) == 0 ? null : rnd.nextInt(LENGTHS), false, System.currentTimeMillis(), null);
            }
            Long ack;
            try {
                if (op.delete()) {
                    session.execute(delete.bind(op.key(), op.tid()).setConsistencyLevel(cl));
                } else {
                    session.execute(insert.bind(op.key(), op.tid(), op.length() == null ? null : BigInteger.valueOf(op.length()), "v" + i)
                            .setConsistencyLevel(cl));
                }
                ack = System.currentTimeMillis();
            } catch (RuntimeException e) {
                if (!tolerant) {
                    throw e;
                }
                ack = null; // it may or may not have landed, now or later
            }
            Op done = new Op(op.key(), op.tid(), op.length(), op.delete(), op.startMillis(), ack);
            ops.add(done);
            if (!op.delete() && ack != null) {
                mine.add(done);
            }
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** One read at as_of=safe of rows of length {@code length}, every page; null while the safe time is not known yet. */
    static Answer read(Reader reader, int length) {
        Map<String, UUID> found = new HashMap<>();
        Instant asOf = null;
        String next = null;
        do {
            Page page = reader.read(length, next);
            if (page == null) {
                return null;
            }
            if (asOf == null) {
                asOf = page.asOf();
            }
            assertThat(page.asOf()).as("every page answers as of the first page's safe time").isEqualTo(asOf);
            page.items().forEach((key, tid) -> assertThat(found.put(key, tid)).as("a row once").isNull());
            next = page.next();
        } while (next != null);
        return new Answer(asOf, length, found, System.currentTimeMillis());
    }

    /** What {@link #judge} found: answers, rows judged, rows left out, and the rows answered wrong. */
    record Verdict(int answers, long judged, long leftOut, long meanLagMillis, List<String> wrong) {}

    /**
     * Judges every answer against the oracle of the writes acknowledged before its as_of. A row that
     * a write not acknowledged by then may change as of then (in flight, failed, or an old version
     * written later) could be either way: it is left out of that answer's judgement, and counted.
     */
    static Verdict judge(TableDef def, List<Op> ops, List<Answer> answers) {
        long checked = 0;
        long skipped = 0;
        long lagSum = 0;
        List<String> wrong = new ArrayList<>();
        for (Answer a : answers) {
            long s = a.asOf().toEpochMilli();
            UUID q = Tids.maxAtTicks(Tids.ticks(a.asOf()));
            IndexOracle oracle = new IndexOracle(def);
            Set<String> uncertain = new HashSet<>();
            List<Op> deletes = new ArrayList<>();
            for (Op op : ops) {
                boolean acknowledged = op.ackMillis() != null && op.ackMillis() < s;
                if (acknowledged) {
                    if (op.delete()) {
                        deletes.add(op);
                    } else {
                        oracle.write(text(op.key()), Tids.bytes(op.tid()),
                                op.length() == null ? null : ByteBuffer.wrap(BigInteger.valueOf(op.length()).toByteArray()), text("v"));
                    }
                } else if (op.startMillis() <= a.endMillis() && Tids.compare(op.tid(), q) <= 0) {
                    uncertain.add(op.key());
                }
            }
            deletes.forEach(d -> oracle.delete(List.of(text(d.key())), d.tid()));
            Map<String, UUID> expected = new HashMap<>();
            oracle.matchesAt("by_length", q).forEach((entryKey, tid) -> {
                if (new BigInteger(bytes(entryKey.get(0))).intValue() == a.length()) {
                    expected.put(StandardCharsets.UTF_8.decode(entryKey.get(1).duplicate()).toString(), tid);
                }
            });
            Set<String> keys = new HashSet<>(expected.keySet());
            keys.addAll(a.rows().keySet());
            for (String key : keys) {
                if (uncertain.contains(key)) {
                    skipped++;
                    continue;
                }
                checked++;
                UUID want = expected.get(key);
                UUID got = a.rows().get(key);
                if (want == null || !want.equals(got)) {
                    wrong.add("as of " + a.asOf() + " length " + a.length() + " row " + key + ": expected " + want + ", answered " + got);
                }
            }
            lagSum += a.endMillis() - s;
        }
        return new Verdict(answers.size(), checked, skipped, answers.isEmpty() ? 0 : lagSum / answers.size(), wrong);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ByteBuffer text(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
    }
}
