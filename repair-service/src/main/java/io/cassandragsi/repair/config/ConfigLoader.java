package io.cassandragsi.repair.config;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads the YAML configuration file into a validated {@link GsiConfig}.
 *
 * <p>The file has four sections, all optional; every key is optional and has a default, and no
 * default holds a credential:
 *
 * <pre>
 * cassandra:
 *   contact_points: [127.0.0.1:9042]
 *   local_datacenter: datacenter1
 *   username: ...            # with password: plain-text authentication
 *   password: ...            # or password_env: NAME, or password_file: path
 *   tls:
 *     enabled: false
 *     truststore: { path: ..., password: ... }
 *     keystore: { path: ..., password: ... }   # client certificates, optional
 *     hostname_validation: true
 *   driver_config: ...       # a driver application.conf for everything else
 * consistency: { read: LOCAL_QUORUM, write: LOCAL_QUORUM, serial: LOCAL_SERIAL }
 * queue: { keyspace: gsi, shards: 8, poll_interval: 100ms }
 * http: { bind: 127.0.0.1, port: 8080, token: ..., allow_unauthenticated_remote: false,
 *         allowed_hosts: [gsi.example.com, "gsi.internal:8080"] }   # Host names besides the bound address
 * </pre>
 *
 * Unknown keys are errors (a typo must not silently fall back to a default); every error names the
 * file and the key. Relative paths are resolved against the file's directory.
 *
 * <p>Secrets ({@code cassandra.password}, the stores' {@code password}, {@code http.token}) may be
 * written inline, or taken from an environment variable ({@code password_env: NAME}, {@code
 * token_env: NAME}) or from a file ({@code password_file: path}, {@code token_file: path}; its
 * content without the trailing line break). At most one of the three per secret. The loader warns
 * when a file it reads a secret from, or a config file holding a secret inline, is readable by
 * every user of the machine.
 */
public final class ConfigLoader {
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");
    private static final Pattern KEYSPACE = Pattern.compile("[a-z][a-z0-9_]{0,47}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final Logger LOG = LoggerFactory.getLogger(ConfigLoader.class);

    private static final ObjectMapper MAPPER = new ObjectMapper(new YAMLFactory())
            .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    private ConfigLoader() {}

    /** Reads and validates a config file; warnings (secrets readable by everyone) go to the log. */
    public static GsiConfig load(Path file) {
        return load(file, LOG::warn, System::getenv);
    }

    /**
     * Reads and validates a config file, taking {@code *_env} secrets from {@code env} and passing
     * each warning to {@code warnings}.
     */
    static GsiConfig load(Path file, Consumer<String> warnings, Function<String, String> env) {
        String source = file.toString();
        String yaml;
        try {
            yaml = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException(source, null, "cannot read the config file: " + e);
        }
        Path dir = file.toAbsolutePath().getParent();
        Validator validator = new Validator(source, dir, warnings, env);
        GsiConfig config = validator.validate(read(yaml, source));
        if (!validator.inlineSecrets.isEmpty() && worldReadable(file)) {
            warnings.accept(source + " holds " + String.join(", ", validator.inlineSecrets) + " and is readable by every user"
                    + " of this machine: chmod 600 it, or take the secrets from the environment or from files"
                    + " (password_env/password_file, token_env/token_file)");
        }
        return config;
    }

    /**
     * Parses and validates config YAML; {@code source} names it in errors, {@code baseDir} resolves
     * relative paths.
     */
    public static GsiConfig parse(String yaml, String source, Path baseDir) {
        return new Validator(source, baseDir, LOG::warn, System::getenv).validate(read(yaml, source));
    }

    private static Raw.Root read(String yaml, String source) {
        try {
            JsonNode tree = MAPPER.readTree(yaml);
            boolean empty = tree == null || tree.isMissingNode() || tree.isNull();
            return empty ? new Raw.Root() : MAPPER.readValue(yaml, Raw.Root.class);
        } catch (JsonProcessingException e) {
            throw translate(e, source);
        }
    }

    /** Whether every user of the machine may read the file (false where POSIX permissions are unknown). */
    static boolean worldReadable(Path file) {
        try {
            return Files.getPosixFilePermissions(file).contains(PosixFilePermission.OTHERS_READ);
        } catch (UnsupportedOperationException | IOException e) {
            return false;
        }
    }

    private static ConfigException translate(JsonProcessingException e, String source) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof MarkedYAMLException m) {
                Mark mark = m.getProblemMark();
                String where = mark == null ? "" : " (line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1) + ")";
                return new ConfigException(source, null, "not valid YAML: " + m.getProblem() + where);
            }
        }
        if (e instanceof UnrecognizedPropertyException u) {
            return new ConfigException(source, path(u), "unknown key; known keys here: "
                    + known(u.getKnownPropertyIds()));
        }
        if (e instanceof MismatchedInputException m) {
            return new ConfigException(source, path(m), "expected " + describe(m.getTargetType()) + at(m));
        }
        if (e instanceof JsonMappingException m && !m.getPath().isEmpty()) {
            return new ConfigException(source, path(m), firstLine(m.getOriginalMessage()) + at(m));
        }
        return new ConfigException(source, null, "not valid YAML: " + firstLine(e.getOriginalMessage()) + at(e));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                sb.append('[').append(ref.getIndex()).append(']');
            }
        }
        return sb.length() == 0 ? null : sb.toString();
    }

    /** Where the offending token starts (for unknown keys: the line of the key). */
    private static String at(JsonProcessingException e) {
        JsonLocation location = e.getLocation();
        if (e.getProcessor() instanceof JsonParser p && p.currentTokenLocation() != null) {
            location = p.currentTokenLocation();
        }
        if (location == null || location.getLineNr() < 0) {
            return "";
        }
        return " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
    }

    private static String known(Collection<Object> ids) {
        return ids == null ? "?" : new TreeSet<>(ids.stream().map(String::valueOf).collect(Collectors.toList())).toString()
                .replaceAll("[\\[\\]]", "");
    }

    private static String describe(Class<?> type) {
        if (type == null) {
            return "a different kind of value";
        }
        if (type == Integer.class || type == int.class) {
            return "a whole number";
        }
        if (type == Boolean.class || type == boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a single value (text)";
        }
        if (List.class.isAssignableFrom(type)) {
            return "a list";
        }
        return "a section (key: value lines)";
    }

    /** The file's shape: every field optional (null = absent = default). */
    static final class Raw {
        private Raw() {}

        static final class Root {
            public Cassandra cassandra;
            public Consistency consistency;
            public Queue queue;
            public Http http;
        }

        static final class Cassandra {
            public List<String> contactPoints;
            public String localDatacenter;
            public String username;
            public String password;
            public String passwordEnv;
            public String passwordFile;
            public Tls tls;
            public String driverConfig;
        }

        static final class Tls {
            public Boolean enabled;
            public Store truststore;
            public Store keystore;
            public Boolean hostnameValidation;
        }

        static final class Store {
            public String path;
            public String password;
            public String passwordEnv;
            public String passwordFile;
        }

        static final class Consistency {
            public String read;
            public String write;
            public String serial;
        }

        static final class Queue {
            public String keyspace;
            public Integer shards;
            public String pollInterval;
        }

        static final class Http {
            public String bind;
            public Integer port;
            public String token;
            public String tokenEnv;
            public String tokenFile;
            public Boolean allowUnauthenticatedRemote;
            public List<String> allowedHosts;
        }
    }

    /** Turns the raw shape into typed sections, applying defaults and naming the key on errors. */
    private static final class Validator {
        private final String source;
        private final Path baseDir;
        private final Consumer<String> warnings;
        private final Function<String, String> env;
        /** The secrets written in the file itself (keys), for the warning about a world-readable file. */
        final List<String> inlineSecrets = new ArrayList<>();

        Validator(String source, Path baseDir, Consumer<String> warnings, Function<String, String> env) {
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
                if (worldReadable(p)) {
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
                    http(raw.http == null ? new Raw.Http() : raw.http));
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
            return new QueueConfig(keyspace, shards, poll);
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
            return new HttpConfig(bind, port, token, allowRemote, hosts);
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
}
