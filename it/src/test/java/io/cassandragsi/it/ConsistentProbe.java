package io.cassandragsi.it;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.oracle.Timeuuids;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.store.Catalog;
import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Consistent reads of revisions-shaped tables ({@code by_length}) while a fault runs, and their
 * judgement once the faults are healed: no item may be a false positive. Each read is as of
 * {@value #BEHIND_SECONDS} s ago: every write whose tid lies before that moment began before it
 * (a history's old tids are at most 3 s old) and ended, acknowledged or failed, within the
 * driver's 20-s timeout, so the base read at ALL afterwards holds the versions the read had to see.
 * Rows with a failed write are left out (whether and when it landed is unknown) and counted.
 */
final class ConsistentProbe implements AutoCloseable {
    static final int BEHIND_SECONDS = 30;
    private final CqlSession session;
    private final List<HistoryRun> runs;
    private final IndexReader reader;
    private final Thread thread;
    private volatile boolean stop;
    private final List<Seen> seen = java.util.Collections.synchronizedList(new ArrayList<>());
    final AtomicLong reads = new AtomicLong();
    final AtomicLong failedReads = new AtomicLong();

    /** One item read: the run, the length asked, the query time in ticks, the item's row key and tid. */
    private record Seen(HistoryRun run, int length, long q, String key, UUID tid) {}

    ConsistentProbe(CqlSession session, List<HistoryRun> runs) {
        this.session = session;
        this.runs = runs;
        this.reader = new IndexReader(session, new Catalog(session), null, ConsistencyLevel.LOCAL_QUORUM, null, 8);
        this.thread = new Thread(this::loop, "consistent-probe");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        int i = 0;
        while (!stop) {
            HistoryRun run = runs.get(i % runs.size());
            int length = (i / runs.size()) % 4;
            i++;
            Instant q = Instant.now().minusSeconds(BEHIND_SECONDS);
            try {
                IndexReader.Page page = reader.read(IndexReader.Query.of(run.def.keyspace(), "revisions", "by_length", Integer.toString(length))
                        .withConsistent(true).withAsOf(q.toString()).withLimit(1000));
                long ticks = page.asOf().getEpochSecond() * 10_000_000 + page.asOf().getNano() / 100;
                for (Map<String, Object> item : page.items()) {
                    seen.add(new Seen(run, length, ticks, (String) item.get("key"), UUID.fromString(String.valueOf(item.get("tid")))));
                }
                reads.incrementAndGet();
            } catch (RuntimeException e) {
                failedReads.incrementAndGet(); // a read may fail during a fault; it must never be wrong
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops reading; the judgement may follow. */
    void finish() throws InterruptedException {
        stop = true;
        thread.join(60_000);
        reader.close();
    }

    /** Stops reading, when a test ends early. */
    @Override
    public void close() {
        if (stop) {
            return;
        }
        try {
            finish();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The judgement: items read, items left out (rows with failed writes), and each false positive described. */
    record Verdict(int items, int leftOut, List<String> falsePositives) {}

    /** Judges every item ({@link #judge}), prints the figures, and fails on a false positive or when no read was answered. */
    void assertNoFalsePositives(String when, long seed) {
        Verdict v = judge();
        System.out.printf("%s, seed %d: %d consistent reads (%d failed during the fault), %d items judged, %d left out (rows with failed writes), "
                + "%d false positives%n", when, seed, reads.get(), failedReads.get(), v.items() - v.leftOut(), v.leftOut(), v.falsePositives().size());
        org.assertj.core.api.Assertions.assertThat(v.falsePositives()).as("%s: seed %d: consistent reads during the fault", when, seed).isEmpty();
        org.assertj.core.api.Assertions.assertThat(reads.get()).as("consistent reads answered during %s", when).isPositive();
    }

    /** Judges every item read against the base at ALL; call after the faults healed. */
    Verdict judge() {
        Map<HistoryRun, Map<String, TreeMap<UUID, BigInteger>>> bases = new HashMap<>();
        for (HistoryRun run : runs) {
            Map<String, TreeMap<UUID, BigInteger>> rows = new HashMap<>();
            for (Row r : session.execute(SimpleStatement.newInstance("SELECT key, tid, length FROM " + run.def.keyspace() + ".revisions")
                    .setConsistencyLevel(ConsistencyLevel.ALL).setPageSize(5000))) {
                rows.computeIfAbsent(r.getString(0), k -> new TreeMap<>(Timeuuids::compare)).put(r.getUuid(1), r.getBigInteger(2));
            }
            bases.put(run, rows);
        }
        int items = 0;
        int leftOut = 0;
        List<String> wrong = new ArrayList<>();
        synchronized (seen) {
            for (Seen s : seen) {
                items++;
                if (s.run().failedKeys.contains(s.key())) {
                    leftOut++;
                    continue;
                }
                TreeMap<UUID, BigInteger> versions = bases.get(s.run()).getOrDefault(s.key(), new TreeMap<>(Timeuuids::compare));
                Map.Entry<UUID, BigInteger> current = versions.floorEntry(Timeuuids.at(s.q(), 0x3F7F7F7F7F7F7F7FL)); // the last tid of tick q in TimeUUIDType order
                boolean right = current != null && current.getKey().equals(s.tid()) && current.getValue() != null
                        && current.getValue().intValueExact() == s.length();
                if (!right) {
                    wrong.add(String.format("%s by_length=%d as of tick %d: row %s tid %s, but the base's version then is %s", s.run().def.keyspace(),
                            s.length(), s.q(), s.key(), s.tid(), current));
                }
            }
        }
        return new Verdict(items, leftOut, wrong);
    }
}
