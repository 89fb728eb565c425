package io.cassandragsi.repair.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * queue: { keyspace: gsi, shards: 8, poll_interval: 100ms, clock_skew: 100ms }
 * http: { bind: 127.0.0.1, port: 8080, token: ..., allow_unauthenticated_remote: false,
 *         allowed_hosts: [gsi.example.com, "gsi.internal:8080"],   # Host names besides the bound address
 *         tls: { keystore: { path: ..., password: ... } } }         # HTTPS (HTTP/2 by ALPN); default: plain HTTP
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
        ConfigValidator validator = new ConfigValidator(source, dir, warnings, env);
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
        return new ConfigValidator(source, baseDir, LOG::warn, System::getenv).validate(read(yaml, source));
    }

    private static Raw.Root read(String yaml, String source) {
        try {
            JsonNode tree = MAPPER.readTree(yaml);
            boolean empty = tree == null || tree.isMissingNode() || tree.isNull();
            return empty ? new Raw.Root() : MAPPER.readValue(yaml, Raw.Root.class);
        } catch (JsonProcessingException e) {
            throw YamlErrors.translate(e, source);
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

    /** The file's shape: every field optional (null = absent = default). */
    static final class Raw {
        private Raw() {}

        static final class Root {
            public Cassandra cassandra;
            public Consistency consistency;
            public Queue queue;
            public Http http;
            public AntiEntropy antiEntropy;
        }

        static final class AntiEntropy {
            public Boolean enabled;
            public Integer rowsPerSecond;
            public String startAfter;
            public String passInterval;
            public Integer splits;
            public String settle;
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
            public String clockSkew;
        }

        static final class Http {
            public String bind;
            public Integer port;
            public String token;
            public String tokenEnv;
            public String tokenFile;
            public Boolean allowUnauthenticatedRemote;
            public List<String> allowedHosts;
            public String freshTimeout;
            public HttpTls tls;
        }

        static final class HttpTls {
            public Store keystore;
        }
    }
}
