package io.cassandragsi.repair.cli;

import io.cassandragsi.repair.config.ConfigLoader;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.GsiConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** Options of every command that talks to a cluster: the config file and contact-point overrides. */
public final class ConnectionOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "YAML config file (cassandra, consistency, queue, http sections); default: built-in defaults"
                    + " (127.0.0.1:9042, datacenter1, no credentials).")
    Path config;

    @Option(names = "--contact-point", paramLabel = "HOST:PORT",
            description = "Contact point; repeat for several. Overrides cassandra.contact_points of the config.")
    List<String> contactPoints;

    /** A driver session for {@code config}; a cluster that cannot be reached is a one-line command failure. */
    public static com.datastax.oss.driver.api.core.CqlSession open(GsiConfig config) {
        try {
            return io.cassandragsi.repair.config.CqlSessions.open(config);
        } catch (io.cassandragsi.repair.config.CassandraUnavailableException e) {
            throw new CommandFailedException(e.getMessage(), e);
        }
    }

    /** The config file (or the defaults) with the command-line overrides applied. */
    public GsiConfig load() {
        GsiConfig cfg = config == null ? GsiConfig.defaults() : ConfigLoader.load(config);
        if (contactPoints != null && !contactPoints.isEmpty()) {
            List<ContactPoint> points = new ArrayList<>();
            for (String cp : contactPoints) {
                try {
                    points.add(ContactPoint.parse(cp));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--contact-point: " + e.getMessage());
                }
            }
            cfg = cfg.withContactPoints(points);
        }
        return cfg;
    }
}
