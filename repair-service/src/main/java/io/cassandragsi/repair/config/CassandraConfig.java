package io.cassandragsi.repair.config;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code cassandra}: how to reach the cluster. Everything not typed here (timeouts, pooling, load
 * balancing details, ...) goes into the driver's own configuration file named by {@code
 * driver_config}; the typed values here take precedence over that file.
 */
public record CassandraConfig(
        List<ContactPoint> contactPoints,
        String localDatacenter,
        String username,
        String password,
        TlsConfig tls,
        Path driverConfig) {

    public static final String DEFAULT_DATACENTER = "datacenter1";

    public CassandraConfig {
        contactPoints = List.copyOf(contactPoints);
    }

    public static CassandraConfig defaults() {
        return new CassandraConfig(
                List.of(new ContactPoint("127.0.0.1", ContactPoint.DEFAULT_PORT)), DEFAULT_DATACENTER, null, null,
                TlsConfig.disabled(), null);
    }

    public CassandraConfig withContactPoints(List<ContactPoint> points) {
        return new CassandraConfig(points, localDatacenter, username, password, tls, driverConfig);
    }

    /** Never prints the password. */
    @Override
    public String toString() {
        return "CassandraConfig[contactPoints=" + contactPoints + ", localDatacenter=" + localDatacenter
                + ", username=" + username + ", tls=" + tls + ", driverConfig=" + driverConfig + "]";
    }
}
