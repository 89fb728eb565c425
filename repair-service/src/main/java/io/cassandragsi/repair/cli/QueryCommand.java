package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.read.ReadException;
import io.cassandragsi.repair.store.Catalog;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code gsi query}: the read API from the terminal, in-process (no service needed), as a table. */
@Command(name = "query", mixinStandardHelpOptions = true,
        description = "Read an index: KEYSPACE.TABLE INDEX then the index's hash values and optional range values.")
public final class QueryCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "KEYSPACE.TABLE")
    String table;

    @Parameters(index = "1", paramLabel = "INDEX")
    String index;

    @Parameters(index = "2..*", paramLabel = "VALUE", description = "Hash values, then range values (trailing ones may be left out).")
    List<String> values = new ArrayList<>();

    @Option(names = "--consistent", description = "Cross-check every candidate with the base table.")
    boolean consistent;

    @Option(names = "--as-of", paramLabel = "T", description = "Query time: ISO-8601 instant or timeuuid (default: now), or 'safe': the"
            + " safe time of the running repair service (asked at --url).")
    String asOf;

    @Option(names = "--fresh", description = "Read your writes: wait until the running repair service's safe time (asked at --url) has"
            + " passed this moment, then answer as of it: every write acknowledged before the command is in the answer.")
    boolean fresh;

    @Option(names = "--max-wait", paramLabel = "MS", description = "With --fresh: wait at most this many milliseconds (default and"
            + " ceiling: http.fresh_timeout, 2000), then fail naming what holds the safe time back.")
    Long maxWait;

    @Option(names = "--url", paramLabel = "URL", description = "With --as-of safe or --fresh: the service's HTTP API (default: http.bind and"
            + " http.port of the config, http://127.0.0.1:8080 without one).")
    String url;

    @Option(names = "--from", paramLabel = "T", description = "A window read: rows that matched at some moment from T on (ts_ge).")
    String from;

    @Option(names = "--until", paramLabel = "T", description = "A window read: rows that matched at some moment before T (ts_lt).")
    String until;

    @Option(names = "--gt", paramLabel = "V")
    String gt;
    @Option(names = "--ge", paramLabel = "V")
    String ge;
    @Option(names = "--lt", paramLabel = "V")
    String lt;
    @Option(names = "--le", paramLabel = "V")
    String le;

    @Option(names = "--limit", paramLabel = "N", description = "Items per page (default 100, at most 1000).")
    Integer limit;

    @Option(names = "--all", description = "Follow 'next' and print every page.")
    boolean all;

    @Mixin
    ConnectionOptions connection;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        TableName target = TableName.parse(table);
        GsiConfig config = connection.load();
        PrintWriter out = spec.commandLine().getOut();
        CqlSession session = ConnectionOptions.open(config);
        ServiceStatus service = new ServiceStatus(config, url);
        // a fresh read looks at the safe time every 10 ms: ask the service's /admin/status at most every 100 ms (its shards' poll)
        java.util.Map<String, java.time.Instant> asked = new java.util.HashMap<>();
        long[] askedAt = {0};
        IndexReader.SafeTimes safeTimes = def -> {
            String mode = def.maintenance().jsonName();
            if (System.nanoTime() - askedAt[0] > 100_000_000L || !asked.containsKey(mode)) {
                asked.put(mode, safeTime(service, def));
                askedAt[0] = System.nanoTime();
            }
            return asked.get(mode);
        };
        try (session; IndexReader reader = new IndexReader(session, new Catalog(session, config.projectKeyspace()), null, config.consistency().read(), null,
                IndexReader.CHECK_CONCURRENCY, safeTimes, config.http().freshTimeout())) {
            IndexReader.Query q = new IndexReader.Query(target.keyspace(), target.table(), index, values, gt, ge, lt, le,
                    limit, null, consistent, asOf, from, until, fresh, maxWait == null ? null : java.time.Duration.ofMillis(maxWait));
            List<Map<String, Object>> items = new ArrayList<>();
            String next;
            java.time.Instant answeredAsOf;
            do {
                IndexReader.Page page = reader.read(q);
                answeredAsOf = page.asOf();
                items.addAll(page.items());
                next = page.next();
                q = q.withNext(next);
            } while (all && next != null);
            print(out, items);
            out.println(items.size() + " item(s)" + (answeredAsOf != null ? ", as of " + answeredAsOf : "") + (next != null ? "; more: add --all" : ""));
            return GsiCommand.OK;
        } catch (ReadException e) {
            throw new CommandFailedException(e.error() + ": " + e.detail());
        }
    }

    /** The safe time the running service reports for a table of that one's mode (docs/design.md section 7.10). */
    private static java.time.Instant safeTime(ServiceStatus service, io.cassandragsi.schema.TableDef def) {
        String mode = def.maintenance().jsonName();
        Map<String, Object> status;
        try {
            status = service.read();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommandFailedException("interrupted while asking " + service.base + " for the safe time");
        }
        Object at = status.get("safe_time") instanceof Map<?, ?> safe && safe.get(mode) instanceof Map<?, ?> m ? m.get("at") : null;
        if (at == null) {
            throw ReadException.safeTimeUnknown("the service at " + service.base + " does not know the safe time of tables in " + mode
                    + " mode yet (./gsi status says what holds it)");
        }
        return java.time.Instant.parse(String.valueOf(at));
    }

    static void print(PrintWriter out, List<Map<String, Object>> items) {
        Set<String> columns = new LinkedHashSet<>();
        items.forEach(i -> columns.addAll(i.keySet()));
        List<String> cols = new ArrayList<>(columns);
        int[] width = new int[cols.size()];
        for (int c = 0; c < cols.size(); c++) {
            width[c] = cols.get(c).length();
            for (Map<String, Object> i : items) {
                width[c] = Math.max(width[c], String.valueOf(i.get(cols.get(c))).length());
            }
        }
        StringBuilder header = new StringBuilder();
        for (int c = 0; c < cols.size(); c++) {
            header.append(c == 0 ? "" : " | ").append(pad(cols.get(c), width[c]));
        }
        out.println(header);
        out.println("-".repeat(header.length()));
        for (Map<String, Object> i : items) {
            StringBuilder row = new StringBuilder();
            for (int c = 0; c < cols.size(); c++) {
                row.append(c == 0 ? "" : " | ").append(pad(String.valueOf(i.get(cols.get(c))), width[c]));
            }
            out.println(row);
        }
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(Math.max(0, w - s.length()));
    }
}
