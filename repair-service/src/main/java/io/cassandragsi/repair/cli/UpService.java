package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.repair.config.GsiConfig;
import java.io.PrintWriter;

/**
 * Something {@code gsi up} runs next to the local cluster once the schema is applied (the repair
 * service, its HTTP API, ...). Register a {@link Starter} in {@link UpCommand#SERVICES}.
 */
public interface UpService extends AutoCloseable {

    /** What a started service needs. The session is shared; services must not close it. */
    record Context(LocalCluster cluster, CqlSession session, GsiConfig config, PrintWriter out) {}

    /** Starts a service, or throws (then {@code up} stops what it started and fails). */
    @FunctionalInterface
    interface Starter {
        UpService start(Context context) throws Exception;
    }

    /** One line for the console, e.g. {@code repair service HTTP API on http://127.0.0.1:8080}. */
    String describe();

    /** Stops the service; called once, in reverse start order, before the nodes stop. */
    @Override
    void close();
}
