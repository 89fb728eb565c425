package io.cassandragsi.it;

import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.service.GsiServer;
import java.net.URI;

/**
 * The repair service with its HTTP API on a free loopback port, in this JVM, against the suite's
 * node: for tests that reach it only by its URL, as a client library does for the safe time.
 */
final class InProcessService implements AutoCloseable {
    private final GsiServer server;
    /** Where its HTTP API answers. */
    final URI url;

    private InProcessService(GsiServer server) {
        this.server = server;
        this.url = URI.create("http://127.0.0.1:" + server.httpPort());
    }

    /** Starts the service with the default config (project keyspace {@code gsi}), its API on a free port. */
    static InProcessService start() {
        GsiConfig d = GsiConfig.defaults();
        return new InProcessService(new GsiServer(SharedCluster.session(),
                new GsiConfig(d.cassandra(), d.consistency(), d.queue(), new HttpConfig("127.0.0.1", 0, null, false))));
    }

    @Override
    public void close() {
        server.close();
    }
}
