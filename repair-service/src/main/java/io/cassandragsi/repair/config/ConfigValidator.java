package io.cassandragsi.repair.config;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.cassandragsi.repair.config.ConfigLoader.Raw;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the raw shape into typed sections, applying defaults and naming the key on errors; takes
 * secrets inline, from an environment variable or from a file.
 */
final class ConfigValidator {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
    private static final Pattern KEYSPACE = Pattern.compile("[a-z][a-z0-9_]{0,47}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private final String source;
    private final Path baseDir;
    private final Consumer<String> warnings;
    private final Function<String, String> env;
    /** The secrets written in the file itself (keys), for the warning about a world-readable file. */
    final List<String> inlineSecrets = new ArrayList<>();

    ConfigValidator(String source, Path baseDir, Consumer<String> warnings, Function<String, String> env) {
        this.source = source;
        this.baseDir = baseDir;
        this.warnings = warnings;
        this.env = env;
    }

    /**
     * A secret given inline ({@code key}), by environment variable ({@code key_env}) or by file
     * ({@code key_file}); null when none is set.
     */
    private String secret(String key, String inline, String envName, String file) {
        int given = (inline != null ? 1 : 0) + (envName != null ? 1 : 0) + (file != null ? 1 : 0);
        if (given > 1) {
            throw error(key, "is given more than once: set only one of " + key + ", " + key + "_env and " + key + "_file");
        }
        if (inline != null) {
            inlineSecrets.add(key);
            return inline;
        }
        if (envName != null) {
            String name = envName.trim();
            if (!ENV_NAME.matcher(name).matches()) {
                throw error(key + "_env", "'" + envName + "' is not an environment variable name (letters, digits"
                        + " and '_', not starting with a digit)");
            }
            String value = env.apply(name);
            if (value == null) {
                throw error(key + "_env", "environment variable " + name + " is not set");
            }
            if (value.isEmpty()) {
                throw error(key + "_env", "environment variable " + name + " is empty");
            }
            return value;
        }
        if (file != null) {
            Path p = existingFile(file, key + "_file");
            String value;
            try {
                value = Files.readString(p, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw error(key + "_file", "cannot read " + p + ": " + e.getMessage());
            }
            value = value.replaceFirst("(\\r?\\n)+$", "");
            if (value.isEmpty()) {
                throw error(key + "_file", p + " is empty");
            }
            if (value.indexOf('\n') >= 0) {
                throw error(key + "_file", p + " has more than one line; it must hold the secret alone");
            }
            if (ConfigLoader.worldReadable(p)) {
                warnings.accept(source + ": " + key + "_file " + p + " is readable by every user of this machine:"
                        + " chmod 600 it");
            }
            return value;
        }
        return null;
    }

    private ConfigException error(String key, String problem) {
        return new ConfigException(source, key, problem);
    }

    GsiConfig validate(Raw.Root raw) {
        return new GsiConfig(
                cassandra(raw.cassandra == null ? new Raw.Cassandra() : raw.cassandra),
                consistency(raw.consistency == null ? new Raw.Consistency() : raw.consistency),
                queue(raw.queue == null ? new Raw.Queue() : raw.queue),
                http(raw.http == null ? new Raw.Http() : raw.http),
                antiEntropy(raw.antiEntropy == null ? new Raw.AntiEntropy() : raw.antiEntropy));
    }

    private AntiEntropyConfig antiEntropy(Raw.AntiEntropy raw) {
        AntiEntropyConfig d = AntiEntropyConfig.defaults();
        int rate = raw.rowsPerSecond == null ? d.rowsPerSecond() : raw.rowsPerSecond;
        if (rate < 1) {
            throw error("anti_entropy.rows_per_second", rate + " is not a pace: give at least 1 (or enabled: false)");
        }
        int splits = raw.splits == null ? d.splits() : raw.splits;
        if (splits < 1 || splits > 4096) {
            throw error("anti_entropy.splits", splits + " is outside 1-4096");
        }
        return new AntiEntropyConfig(raw.enabled == null ? d.enabled() : raw.enabled, rate,
                raw.startAfter == null ? d.startAfter() : duration(raw.startAfter, "anti_entropy.start_after"),
                raw.passInterval == null ? d.passInterval() : duration(raw.passInterval, "anti_entropy.pass_interval"), splits,
                raw.settle == null ? d.settle() : duration(raw.settle, "anti_entropy.settle"));
    }

    private CassandraConfig cassandra(Raw.Cassandra raw) {
        CassandraConfig defaults = CassandraConfig.defaults();
        List<ContactPoint> points = defaults.contactPoints();
        if (raw.contactPoints != null) {
            if (raw.contactPoints.isEmpty()) {
                throw error("cassandra.contact_points", "needs at least one host:port");
            }
            points = new ArrayList<>();
            for (int i = 0; i < raw.contactPoints.size(); i++) {
                try {
                    points.add(ContactPoint.parse(raw.contactPoints.get(i)));
                } catch (IllegalArgumentException e) {
                    throw error("cassandra.contact_points[" + i + "]", e.getMessage());
                }
            }
        }
        String dc = text(raw.localDatacenter, "cassandra.local_datacenter", defaults.localDatacenter());
        String username = text(raw.username, "cassandra.username", null);
        String password = secret("cassandra.password", raw.password, raw.passwordEnv, raw.passwordFile);
        if (password != null && username == null) {
            throw error("cassandra.password", "is set but cassandra.username is not");
        }
        if (username != null && (password == null || password.isEmpty())) {
            throw error("cassandra.username", "is set but cassandra.password is not");
        }
        TlsConfig tls = tls(raw.tls);
        Path driverConfig = null;
        if (raw.driverConfig != null) {
            driverConfig = existingFile(raw.driverConfig, "cassandra.driver_config");
            try {
                ConfigFactory.parseFile(driverConfig.toFile(), ConfigParseOptions.defaults().setAllowMissing(false));
            } catch (com.typesafe.config.ConfigException e) {
                throw error("cassandra.driver_config", "the driver configuration file does not parse: " + e.getMessage());
            }
        }
        return new CassandraConfig(points, dc, username, password, tls, driverConfig);
    }

    private TlsConfig tls(Raw.Tls raw) {
        if (raw == null) {
            return TlsConfig.disabled();
        }
        boolean enabled = raw.enabled != null && raw.enabled;
        boolean hostnameValidation = raw.hostnameValidation == null || raw.hostnameValidation;
        if (!enabled) {
            if (raw.truststore != null || raw.keystore != null) {
                throw error("cassandra.tls.enabled", "is not true, but a truststore or keystore is configured;"
                        + " set enabled: true to use TLS, or remove the stores");
            }
            return new TlsConfig(false, null, null, null, null, hostnameValidation);
        }
        if (raw.truststore == null || raw.truststore.path == null) {
            throw error("cassandra.tls.truststore.path", "is required when TLS is enabled (the truststore holds the CA"
                    + " that signed the nodes' certificates; to use the JVM's default trust store instead, leave tls"
                    + " disabled here and configure advanced.ssl-engine-factory in driver_config)");
        }
        Path truststore = existingFile(raw.truststore.path, "cassandra.tls.truststore.path");
        Path keystore = null;
        String keystorePassword = null;
        if (raw.keystore != null) {
            if (raw.keystore.path == null) {
                throw error("cassandra.tls.keystore.path", "is required when a keystore section is given");
            }
            keystore = existingFile(raw.keystore.path, "cassandra.tls.keystore.path");
            keystorePassword = secret("cassandra.tls.keystore.password", raw.keystore.password, raw.keystore.passwordEnv,
                    raw.keystore.passwordFile);
            if (keystorePassword == null || keystorePassword.isEmpty()) {
                throw error("cassandra.tls.keystore.password", "is required with a keystore (it protects the client key)");
            }
        }
        String truststorePassword = secret("cassandra.tls.truststore.password", raw.truststore.password,
                raw.truststore.passwordEnv, raw.truststore.passwordFile);
        return new TlsConfig(true, truststore, truststorePassword, keystore, keystorePassword, hostnameValidation);
    }

    private ConsistencyConfig consistency(Raw.Consistency raw) {
        ConsistencyConfig d = ConsistencyConfig.defaults();
        DefaultConsistencyLevel read = level(raw.read, "consistency.read", d.read(), Use.READ);
        DefaultConsistencyLevel write = level(raw.write, "consistency.write", d.write(), Use.WRITE);
        DefaultConsistencyLevel serial = level(raw.serial, "consistency.serial", d.serial(), Use.SERIAL);
        return new ConsistencyConfig(read, write, serial);
    }

    private enum Use {
        READ, WRITE, SERIAL;

        boolean allows(DefaultConsistencyLevel level) {
            return switch (this) {
                case READ -> !level.isSerial() && level != DefaultConsistencyLevel.ANY;
                case WRITE -> !level.isSerial();
                case SERIAL -> level.isSerial();
            };
        }

        String allowed() {
            List<String> names = new ArrayList<>();
            for (DefaultConsistencyLevel l : DefaultConsistencyLevel.values()) {
                if (allows(l)) {
                    names.add(l.name());
                }
            }
            return String.join(", ", names);
        }
    }

    private DefaultConsistencyLevel level(String value, String key, DefaultConsistencyLevel def, Use use) {
        if (value == null) {
            return def;
        }
        DefaultConsistencyLevel level;
        try {
            level = DefaultConsistencyLevel.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw error(key, "'" + value + "' is not a consistency level (one of: " + use.allowed() + ")");
        }
        if (!use.allows(level)) {
            throw error(key, "'" + value + "' cannot be used for " + use.name().toLowerCase(Locale.ROOT)
                    + "s (one of: " + use.allowed() + ")");
        }
        return level;
    }

    private QueueConfig queue(Raw.Queue raw) {
        QueueConfig d = QueueConfig.defaults();
        String keyspace = text(raw.keyspace, "queue.keyspace", d.keyspace());
        if (!KEYSPACE.matcher(keyspace).matches()) {
            throw error("queue.keyspace", "'" + keyspace + "' is not a valid keyspace name (lower case letters,"
                    + " digits and '_', starting with a letter, at most 48 characters)");
        }
        int shards = raw.shards == null ? d.shards() : raw.shards;
        if (shards < 1 || shards > QueueConfig.MAX_SHARDS) {
            throw error("queue.shards", shards + " is outside 1-" + QueueConfig.MAX_SHARDS);
        }
        Duration poll = raw.pollInterval == null ? d.pollInterval() : duration(raw.pollInterval, "queue.poll_interval");
        Duration skew = raw.clockSkew == null ? d.clockSkew() : duration(raw.clockSkew, "queue.clock_skew");
        return new QueueConfig(keyspace, shards, poll, skew);
    }

    private HttpConfig http(Raw.Http raw) {
        HttpConfig d = HttpConfig.defaults();
        String bind = text(raw.bind, "http.bind", d.bind());
        int port = raw.port == null ? d.port() : raw.port;
        if (port < 0 || port > 65535) {
            throw error("http.port", port + " is outside 0-65535 (0 picks a free port)");
        }
        String token = secret("http.token", raw.token, raw.tokenEnv, raw.tokenFile);
        if (token != null && token.isBlank()) {
            throw error("http.token", "is empty; remove the key or set a secret");
        }
        boolean allowRemote = raw.allowUnauthenticatedRemote != null && raw.allowUnauthenticatedRemote;
        if (token == null && !allowRemote && !HttpConfig.isLoopback(bind)) {
            throw error("http.bind", "'" + bind + "' is not a loopback address and http.token is not set: anyone who"
                    + " reaches the port could read the indexes; set http.token, or allow_unauthenticated_remote: true");
        }
        List<String> hosts = new ArrayList<>();
        for (String h : raw.allowedHosts == null ? List.<String>of() : raw.allowedHosts) {
            if (h == null || !HttpConfig.ALLOWED_HOST.matcher(h.trim()).matches()) {
                throw error("http.allowed_hosts", "'" + h + "' is not a host name or address, optionally with :port"
                        + " (no scheme, no path, no wildcard)");
            }
            hosts.add(h.trim().toLowerCase(Locale.ROOT));
        }
        java.time.Duration fresh = raw.freshTimeout == null ? null : duration(raw.freshTimeout, "http.fresh_timeout");
        return new HttpConfig(bind, port, token, allowRemote, hosts, fresh, httpTls(raw.tls));
    }

    /** {@code http.tls}: the store must open with its password and hold one key, checked here (docs/configuration.md). */
    private HttpConfig.Tls httpTls(Raw.HttpTls raw) {
        if (raw == null) {
            return null;
        }
        if (raw.keystore == null || raw.keystore.path == null) {
            throw error("http.tls.keystore.path", "is required with http.tls (the store holding the API's key and certificate)");
        }
        Path keystore = existingFile(raw.keystore.path, "http.tls.keystore.path");
        String password = secret("http.tls.keystore.password", raw.keystore.password, raw.keystore.passwordEnv, raw.keystore.passwordFile);
        if (password == null || password.isEmpty()) {
            throw error("http.tls.keystore.password", "is required with a keystore (it protects the API's private key)");
        }
        HttpConfig.Tls tls = new HttpConfig.Tls(keystore, password);
        try {
            ServerTls.context(tls);
        } catch (IllegalArgumentException e) {
            throw error("http.tls.keystore", e.getMessage());
        }
        return tls;
    }

    private String text(String value, String key, String def) {
        if (value == null) {
            return def;
        }
        if (value.isBlank()) {
            throw error(key, "is empty");
        }
        return value.trim();
    }

    private Duration duration(String value, String key) {
        Matcher m = DURATION.matcher(value.trim());
        if (!m.matches()) {
            throw error(key, "'" + value + "' is not a duration like 100ms, 2s, 1m or 1h");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
        };
        if (d.isZero()) {
            throw error(key, "must be more than zero");
        }
        return d;
    }

    private Path existingFile(String value, String key) {
        if (value.isBlank()) {
            throw error(key, "is empty");
        }
        Path p = Path.of(value);
        if (!p.isAbsolute() && baseDir != null) {
            p = baseDir.resolve(p);
        }
        p = p.normalize();
        if (!Files.isRegularFile(p)) {
            throw error(key, "file not found: " + p);
        }
        if (!Files.isReadable(p)) {
            throw error(key, "file not readable: " + p);
        }
        return p;
    }
}
