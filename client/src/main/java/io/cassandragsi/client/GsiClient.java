package io.cassandragsi.client;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import io.cassandragsi.repair.read.IndexReader;
import io.cassandragsi.repair.store.Catalog;
import io.cassandragsi.repair.store.QueueStore;
import io.cassandragsi.schema.DefinitionException;
import io.cassandragsi.schema.Definitions;
import io.cassandragsi.schema.TableDef;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Index reads in a JVM: the entry point of this library (docs/http-api.md, Java API). Built from
 * a {@link CqlSession}, it reads the indexes the way the repair service's HTTP API does, in-process:
 * every read kind of the API (eventual, consistent, as of a moment, a window, at the safe time,
 * fresh) with paging, through {@link #query}.
 *
 * <pre>{@code
 * try (GsiClient gsi = GsiClient.builder(session).build()) {
 *     IndexPage page = gsi.query("wiki", "revisions", "by_length", 1024).limit(10).read();
 *     page.items().forEach(item -> System.out.println(item.getString("key")));
 * }
 * }</pre>
 *
 * <p>The definitions come from Cassandra: as the trigger does, the client reads them from the index
 * tables' comments (docs/design.md section 3.6) and follows schema changes, so the reader and the
 * writers never disagree about what an index holds. Definitions given to {@link
 * Builder#definitions} are a check, not a source: {@link Builder#build} fails when Cassandra does
 * not serve them as given.
 *
 * <p>Thread-safe; one client serves any number of threads. {@link #close} stops its threads and
 * never closes the session, which belongs to the caller.
 */
public final class GsiClient implements AutoCloseable {
    /** The level of index and base reads unless {@link Builder#consistency} says otherwise (the service's {@code consistency.read}). */
    public static final ConsistencyLevel DEFAULT_CONSISTENCY = DefaultConsistencyLevel.LOCAL_QUORUM;
    /** Base-check queries one consistent read has in flight at most, unless {@link Builder#checkConcurrency} says otherwise. */
    public static final int DEFAULT_CHECK_CONCURRENCY = IndexReader.CHECK_CONCURRENCY;
    /** How long a fresh read waits for the safe time at most, unless {@link Builder#freshTimeout} says otherwise. */
    public static final Duration DEFAULT_FRESH_TIMEOUT = IndexReader.FRESH_TIMEOUT;
    /** The project keyspace ({@code queue.keyspace} of the service) unless {@link Builder#projectKeyspace} says otherwise. */
    public static final String DEFAULT_PROJECT_KEYSPACE = "gsi";

    private final IndexReader reader;
    private volatile boolean closed;

    private GsiClient(IndexReader reader) {
        this.reader = reader;
    }

    /** A builder of a client that reads through {@code session}, which stays the caller's to close. */
    public static Builder builder(CqlSession session) {
        return new Builder(session);
    }

    /**
     * A read of {@code index} of {@code keyspace.table}: {@code values} are the index's hash
     * attributes, then its range attributes (trailing ones may be left out), as Java values or as
     * the text the HTTP path takes. Unknown names fail when read ({@link GsiNotFoundException}).
     */
    public IndexQuery query(String keyspace, String table, String index, Object... values) {
        name(keyspace, "keyspace");
        name(table, "table");
        name(index, "index");
        List<String> text = new ArrayList<>(values.length);
        for (int i = 0; i < values.length; i++) {
            text.add(TextValues.of(values[i], "value " + (i + 1) + " of " + keyspace + "." + table + "/" + index));
        }
        return new IndexQuery(this, new IndexReader.Query(keyspace, table, index, List.copyOf(text), null, null, null, null, null, null, false,
                null));
    }

    private static void name(String name, String what) {
        if (name == null || name.isEmpty()) {
            throw new GsiBadRequestException("bad_path", "the " + what + " name is " + (name == null ? "null" : "empty"), null);
        }
    }

    IndexReader reader() {
        if (closed) {
            throw new IllegalStateException("this GsiClient is closed");
        }
        return reader;
    }

    /** Stops the client's threads (read repair, fresh waits); reads in flight fail. The session stays open. */
    @Override
    public void close() {
        closed = true;
        reader.close();
    }

    /** Settings of a {@link GsiClient}; every setter checks its value at once and names what is wrong. */
    public static final class Builder {
        private final CqlSession session;
        private final List<TableDef> definitions = new ArrayList<>();
        private ConsistencyLevel consistency = DEFAULT_CONSISTENCY;
        private int checkConcurrency = DEFAULT_CHECK_CONCURRENCY;
        private Duration freshTimeout = DEFAULT_FRESH_TIMEOUT;
        private String projectKeyspace = DEFAULT_PROJECT_KEYSPACE;
        private boolean readRepair = true;
        private byte[] tokenKey;
        private URI service;
        private String serviceToken;

        private Builder(CqlSession session) {
            this.session = Objects.requireNonNull(session, "session: give the CqlSession to read through");
        }

        /**
         * Definition files (the JSON of docs/design.md section 2) that Cassandra must serve as
         * written: each is parsed now (a bad file is a {@link GsiDefinitionException} naming it), and
         * {@link #build} checks that its table is indexed and that its key, attribute types and
         * indexes are the ones Cassandra's schema holds.
         */
        public Builder definitions(Path... files) {
            for (Path f : files) {
                Objects.requireNonNull(f, "definitions: a null path");
                try {
                    definitions.add(Definitions.read(f));
                } catch (DefinitionException e) {
                    throw new GsiDefinitionException(e.getMessage(), e);
                }
            }
            return this;
        }

        /** {@link #definitions(Path...)} with definitions already parsed ({@code io.cassandragsi.schema.Definitions}). */
        public Builder definitions(TableDef... defs) {
            for (TableDef d : defs) {
                definitions.add(Objects.requireNonNull(d, "definitions: a null definition"));
            }
            return this;
        }

        /** The consistency level of index and base reads (default LOCAL_QUORUM). */
        public Builder consistency(ConsistencyLevel level) {
            this.consistency = Objects.requireNonNull(level, "consistency: give a level such as LOCAL_QUORUM");
            if (level.isSerial()) {
                throw new IllegalArgumentException("consistency: " + level.name() + " is a serial level, for conditional writes; reads take"
                        + " ONE, LOCAL_QUORUM, QUORUM, ...");
            }
            return this;
        }

        /** How many base-check queries one consistent read has in flight at most, 1 to 1024 (default 32). */
        public Builder checkConcurrency(int n) {
            if (n < 1 || n > 1024) {
                throw new IllegalArgumentException("checkConcurrency must be from 1 to 1024, not " + n);
            }
            this.checkConcurrency = n;
            return this;
        }

        /** How long a fresh read waits for the safe time at most (the service's {@code http.fresh_timeout}; default 2 s). */
        public Builder freshTimeout(Duration timeout) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("freshTimeout must be a positive duration, not " + timeout);
            }
            this.freshTimeout = timeout;
            return this;
        }

        /** The project keyspace (the service's {@code queue.keyspace}, default {@code gsi}): bucket seals and the work queue. */
        public Builder projectKeyspace(String keyspace) {
            if (keyspace == null || !keyspace.matches("[A-Za-z0-9_]{1,48}")) {
                throw new IllegalArgumentException("projectKeyspace must be a keyspace name (1 to 48 letters, digits or _), not " + keyspace);
            }
            this.projectKeyspace = keyspace;
            return this;
        }

        /**
         * Whether a consistent read that finds an entry the base denies queues its repair in the
         * work queue, as the service's reads do (default true; best effort, off the read's path).
         * Needs write access to the project keyspace's queue table.
         */
        public Builder readRepair(boolean on) {
            this.readRepair = on;
            return this;
        }

        /**
         * Signs page tokens with a key derived from {@code secret}, so that a token issued by one
         * client works on every client given the same secret (by default a random key per client:
         * a token works only on the client that issued it).
         */
        public Builder pageTokenSecret(String secret) {
            if (secret == null || secret.isEmpty()) {
                throw new IllegalArgumentException("pageTokenSecret must not be " + (secret == null ? "null" : "empty"));
            }
            try {
                this.tokenKey = MessageDigest.getInstance("SHA-256")
                        .digest(("cassandra-gsi page token key\u0000" + secret).getBytes(StandardCharsets.UTF_8));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
            return this;
        }

        /**
         * The running repair service ({@code http://host:port} of its HTTP API) whose safe time
         * reads at {@link IndexQuery#asOfSafe} and {@link IndexQuery#fresh} use; without one they
         * fail with {@link GsiBadRequestException} saying so.
         */
        public Builder service(URI url) {
            return service(url, null);
        }

        /** {@link #service(URI)} with the service's {@code http.token}. */
        public Builder service(URI url, String bearerToken) {
            Objects.requireNonNull(url, "service: give the service's URL, such as http://127.0.0.1:8080");
            String scheme = url.getScheme();
            if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme) || url.getHost() == null) {
                throw new IllegalArgumentException("service must be an http or https URL with a host, such as http://127.0.0.1:8080, not " + url);
            }
            if (url.getQuery() != null || url.getFragment() != null) {
                throw new IllegalArgumentException("service must be the service's base URL, without a query or fragment, not " + url);
            }
            this.service = url;
            this.serviceToken = bearerToken;
            return this;
        }

        /**
         * The client. With {@link #definitions}, loads what Cassandra serves now and fails with a
         * {@link GsiDefinitionException} listing every difference; with read repair, prepares the
         * queue's statements (the queue table must exist: {@code gsi schema apply} makes it).
         */
        public GsiClient build() {
            Catalog catalog = new Catalog(session, projectKeyspace);
            check(catalog);
            QueueStore queue = null;
            if (readRepair) {
                try {
                    queue = new QueueStore(session, projectKeyspace);
                } catch (RuntimeException e) {
                    throw new IllegalStateException("read repair writes to the work queue in keyspace " + projectKeyspace + ", which cannot be"
                            + " used: " + e.getMessage() + " (run gsi schema apply, name the keyspace with projectKeyspace, or readRepair(false))",
                            e);
                }
            }
            IndexReader.SafeTimes safeTimes = service == null ? null : new ServiceSafeTimes(service, serviceToken);
            return new GsiClient(new IndexReader(session, catalog, queue, consistency, tokenKey, checkConcurrency, safeTimes, freshTimeout));
        }

        private void check(Catalog catalog) {
            if (definitions.isEmpty()) {
                return;
            }
            List<String> problems = new ArrayList<>();
            Map<String, String> known = catalog.problems();
            for (TableDef expected : definitions) {
                Catalog.Indexed served = catalog.table(expected.keyspace(), expected.table());
                if (served == null) {
                    String prefix = expected.keyspace() + ".";
                    String why = known.entrySet().stream()
                            .filter(p -> p.getKey().equals(expected.qualifiedName()) || p.getKey().startsWith(expected.qualifiedName() + "/")
                                    || p.getKey().startsWith(prefix + "idx_" + expected.table() + "_"))
                            .map(p -> p.getKey() + ": " + p.getValue()).collect(Collectors.joining("; "));
                    problems.add(expected.qualifiedName() + ": not an indexed table in Cassandra (no index table's comment defines it: run gsi"
                            + " schema apply)" + (why.isEmpty() ? "" : "; definition problems: " + why));
                    continue;
                }
                problems.addAll(DefinitionCheck.differences(expected, served.definition));
            }
            if (!problems.isEmpty()) {
                throw new GsiDefinitionException(
                        "Cassandra does not serve the definitions as given: " + String.join("; ", problems), null);
            }
        }
    }
}
