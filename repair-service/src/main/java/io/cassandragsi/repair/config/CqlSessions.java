package io.cassandragsi.repair.config;

import com.datastax.oss.driver.api.core.AllNodesFailedException;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.config.ProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.internal.core.config.typesafe.DefaultDriverConfigLoader;
import com.datastax.oss.driver.internal.core.config.typesafe.DefaultProgrammaticDriverConfigLoaderBuilder;
import com.datastax.oss.driver.internal.core.ssl.DefaultSslEngineFactory;
import com.datastax.oss.driver.internal.core.auth.PlainTextAuthProvider;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Builds driver sessions from a {@link GsiConfig}: the typed values go into a programmatic config
 * loader, layered over the driver configuration file when {@code cassandra.driver_config} names one,
 * over the project's {@link #CAPACITY}, over the driver's reference configuration. The typed values
 * win.
 */
public final class CqlSessions {
    private CqlSessions() {}

    /**
     * What the project changes in the driver's reference configuration (docs/configuration.md): a
     * session-wide limit of requests in flight, the rest queued, and connections enough for it. The
     * repair service sends bursts (a shard's repairs and their reads side by side, a sweep's backlog
     * after a maintainer retires); with the driver's one connection of 1,024 requests per node, a
     * burst on a small cluster fails at once with {@code NodeUnavailableException} ("no connection
     * was available"), the failures of every other request of the process included.
     */
    public static final String CAPACITY = """
            datastax-java-driver.advanced {
              connection.pool.local.size = 3
              throttler {
                class = ConcurrencyLimitingRequestThrottler
                max-concurrent-requests = 2048
                max-queue-size = 100000
              }
            }
            """;

    /** {@link #CAPACITY} over the driver's reference configuration (sessions the tests open, like the service's). */
    public static ProgrammaticDriverConfigLoaderBuilder withCapacity() {
        return over(null);
    }

    /** A programmatic loader over {@code file} (or none), over {@link #CAPACITY}, over the driver's reference. */
    private static ProgrammaticDriverConfigLoaderBuilder over(java.io.File file) {
        Supplier<Config> fallback = () -> {
            ConfigFactory.invalidateCaches();
            Config base = ConfigFactory.parseString(CAPACITY).withFallback(ConfigFactory.defaultReference());
            return file == null ? base : ConfigFactory.parseFile(file).withFallback(base);
        };
        return new DefaultProgrammaticDriverConfigLoaderBuilder(fallback, DefaultDriverConfigLoader.DEFAULT_ROOT_PATH);
    }

    /** Opens a session, or fails with one line that says where it tried to connect and why not. */
    public static CqlSession open(GsiConfig config) {
        try {
            return CqlSession.builder().withConfigLoader(configLoader(config)).build();
        } catch (AllNodesFailedException e) {
            throw new CassandraUnavailableException("cannot connect to Cassandra at " + describe(config) + ": " + firstCause(e), e);
        } catch (RuntimeException e) {
            throw new CassandraUnavailableException("cannot connect to Cassandra at " + describe(config) + ": " + e.getMessage(), e);
        }
    }

    /** Where {@link #open} connects, for messages: its contact points, local datacenter and whether TLS is on. */
    public static String describe(GsiConfig config) {
        CassandraConfig c = config.cassandra();
        return c.contactPoints().stream().map(ContactPoint::toString).collect(Collectors.joining(", "))
                + " (local datacenter " + c.localDatacenter() + (c.tls().enabled() ? ", TLS" : "") + ")";
    }

    /** The driver configuration for {@code config}; visible for tests. */
    public static DriverConfigLoader configLoader(GsiConfig config) {
        CassandraConfig c = config.cassandra();
        ProgrammaticDriverConfigLoaderBuilder b = over(c.driverConfig() == null ? null : c.driverConfig().toFile());
        b.withStringList(DefaultDriverOption.CONTACT_POINTS,
                c.contactPoints().stream().map(ContactPoint::toString).collect(Collectors.toList()));
        b.withString(DefaultDriverOption.LOAD_BALANCING_LOCAL_DATACENTER, c.localDatacenter());
        if (c.username() != null) {
            b.withString(DefaultDriverOption.AUTH_PROVIDER_CLASS, PlainTextAuthProvider.class.getName());
            b.withString(DefaultDriverOption.AUTH_PROVIDER_USER_NAME, c.username());
            b.withString(DefaultDriverOption.AUTH_PROVIDER_PASSWORD, c.password());
        }
        TlsConfig tls = c.tls();
        if (tls.enabled()) {
            b.withString(DefaultDriverOption.SSL_ENGINE_FACTORY_CLASS, DefaultSslEngineFactory.class.getName());
            b.withBoolean(DefaultDriverOption.SSL_HOSTNAME_VALIDATION, tls.hostnameValidation());
            b.withString(DefaultDriverOption.SSL_TRUSTSTORE_PATH, tls.truststorePath().toString());
            if (tls.truststorePassword() != null) {
                b.withString(DefaultDriverOption.SSL_TRUSTSTORE_PASSWORD, tls.truststorePassword());
            }
            if (tls.keystorePath() != null) {
                b.withString(DefaultDriverOption.SSL_KEYSTORE_PATH, tls.keystorePath().toString());
                b.withString(DefaultDriverOption.SSL_KEYSTORE_PASSWORD, tls.keystorePassword());
            }
        }
        ConsistencyConfig cl = config.consistency();
        b.withString(DefaultDriverOption.REQUEST_CONSISTENCY, cl.read().name());
        b.withString(DefaultDriverOption.REQUEST_SERIAL_CONSISTENCY, cl.serial().name());
        return b.build();
    }

    private static String firstCause(AllNodesFailedException e) {
        List<Throwable> errors = e.getAllErrors().values().stream().flatMap(List::stream).collect(Collectors.toList());
        if (errors.isEmpty()) {
            return e.getMessage();
        }
        Throwable t = errors.get(0);
        String m = t.getMessage();
        if (m == null) {
            return t.getClass().getSimpleName();
        }
        // "[s0|control|connecting...] Protocol initialization ..." -> "Protocol initialization ..."
        return m.replaceFirst("^\\[[^\\]]*\\]\\s*", "");
    }
}
