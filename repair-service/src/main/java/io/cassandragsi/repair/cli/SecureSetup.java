package io.cassandragsi.repair.cli;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cassandragsi.conf.LocalCluster;
import io.cassandragsi.conf.TlsMaterial;
import io.cassandragsi.repair.config.CassandraConfig;
import io.cassandragsi.repair.config.ContactPoint;
import io.cassandragsi.repair.config.CqlSessions;
import io.cassandragsi.repair.config.GsiConfig;
import io.cassandragsi.repair.config.HttpConfig;
import io.cassandragsi.repair.config.TlsConfig;
import io.cassandragsi.repair.service.ServiceGrants;
import io.cassandragsi.schema.Cql;
import io.cassandragsi.schema.TableDef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What {@code gsi up --secure} does on a {@link LocalCluster.Builder#secure secure} local cluster
 * once it runs: replaces the default superuser, creates the service's least-privilege role with
 * exactly {@link ServiceGrants#required the grants it needs}, and writes the service's config with
 * its secrets in files readable by the owner only. The integration tests set up their secure node
 * with the same calls.
 */
public final class SecureSetup {
    /** The superuser that replaces {@code cassandra}: schema changes, {@code CREATE TRIGGER}, roles. */
    public static final String ADMIN_ROLE = "gsi_admin";
    /** The repair service's role. */
    public static final String SERVICE_ROLE = "gsi_service";

    private static final Duration DDL_TIMEOUT = Duration.ofSeconds(60);

    private SecureSetup() {}

    /** A role and its password. */
    public record Login(String role, String password) {
        @Override
        public String toString() {
            return "Login[" + role + "]";
        }
    }

    /**
     * The config that connects to {@code cluster} with TLS (the cluster's CA, host names checked
     * against the certificate) as {@code login}; {@code http} as given.
     */
    public static GsiConfig config(LocalCluster cluster, Login login, HttpConfig http) {
        TlsMaterial tls = cluster.tls();
        if (tls == null) {
            throw new IllegalStateException("the cluster was not built secure");
        }
        List<ContactPoint> points = cluster.contactPoints().stream()
                .map(a -> new ContactPoint(a.getAddress().getHostAddress(), a.getPort()))
                .collect(Collectors.toList());
        TlsConfig tlsConfig = new TlsConfig(true, tls.truststore(), tls.truststorePassword(), null, null, true);
        GsiConfig d = GsiConfig.defaults();
        return new GsiConfig(
                new CassandraConfig(points, cluster.localDatacenter(), login.role(), login.password(), tlsConfig, null),
                d.consistency(), d.queue(), http);
    }

    /**
     * Creates {@link #ADMIN_ROLE}, a superuser with a random password, and takes login and
     * superuser away from the well-known {@code cassandra} role. With several nodes, {@code
     * system_auth} is first replicated to every node (up to 3), so that a node that is down does
     * not lock roles out. The cluster's own readiness checks log in as the new role from then on.
     */
    public static Login replaceDefaultSuperuser(LocalCluster cluster) {
        Login admin = new Login(ADMIN_ROLE, TlsMaterial.randomSecret());
        Login initial = new Login(LocalCluster.DEFAULT_SUPERUSER, LocalCluster.DEFAULT_SUPERUSER);
        try (CqlSession session = CqlSessions.open(config(cluster, initial, HttpConfig.defaults()))) {
            if (cluster.size() > 1) {
                ddl(session, "ALTER KEYSPACE system_auth WITH replication = {'class': 'SimpleStrategy', 'replication_factor': "
                        + Math.min(3, cluster.size()) + "}");
            }
            ddl(session, "CREATE ROLE " + Cql.literal(admin.role()) + " WITH SUPERUSER = true AND LOGIN = true AND PASSWORD = "
                    + Cql.literal(admin.password()));
        }
        try (CqlSession session = CqlSessions.open(config(cluster, admin, HttpConfig.defaults()))) {
            ddl(session, "ALTER ROLE " + Cql.literal(initial.role()) + " WITH SUPERUSER = false AND LOGIN = false");
        }
        cluster.credentials(admin.role(), admin.password());
        return admin;
    }

    /**
     * Creates {@code role} (login, random password) with the grants the repair service needs for
     * {@code definitions}; run as a superuser after {@code schema apply} (grants name existing
     * tables). Returns the role's login.
     */
    public static Login createServiceRole(CqlSession admin, String role, String projectKeyspace, List<TableDef> definitions) {
        Login login = new Login(role, TlsMaterial.randomSecret());
        ddl(admin, "CREATE ROLE " + Cql.literal(role) + " WITH LOGIN = true AND PASSWORD = " + Cql.literal(login.password()));
        for (ServiceGrants.Grant g : ServiceGrants.required(projectKeyspace, ServiceGrants.of(definitions))) {
            ddl(admin, g.cql(role));
        }
        return login;
    }

    /**
     * Writes {@code dir/gsi.yaml} for {@code ./gsi --config}: contact points, TLS, the role and
     * the HTTP token, each secret read from its own file under {@code dir/secrets/} (mode 600).
     */
    public static Path writeServiceConfig(Path dir, GsiConfig config) {
        CassandraConfig c = config.cassandra();
        Path secrets = dir.resolve("secrets");
        try {
            Files.createDirectories(secrets);
            Files.setPosixFilePermissions(secrets, PosixFilePermissions.fromString("rwx------"));
            secret(secrets.resolve("cassandra.password"), c.password());
            secret(secrets.resolve("truststore.password"), c.tls().truststorePassword());
            secret(secrets.resolve("http.token"), config.http().token());
            String yaml = "# written by gsi up --secure: the repair service's role; secrets in secrets/\n"
                    + "cassandra:\n"
                    + "  contact_points: [" + c.contactPoints().stream().map(p -> "\"" + p + "\"").collect(Collectors.joining(", ")) + "]\n"
                    + "  local_datacenter: " + c.localDatacenter() + "\n"
                    + "  username: " + c.username() + "\n"
                    + "  password_file: secrets/cassandra.password\n"
                    + "  tls:\n"
                    + "    enabled: true\n"
                    + "    truststore: { path: \"" + c.tls().truststorePath() + "\", password_file: secrets/truststore.password }\n"
                    + "http:\n"
                    + "  bind: " + config.http().bind() + "\n"
                    + "  port: " + config.http().port() + "\n"
                    + "  token_file: secrets/http.token\n";
            Path file = dir.resolve("gsi.yaml");
            secret(file, yaml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the service config in " + dir, e);
        }
    }

    private static void secret(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, text.endsWith("\n") ? text : text + "\n", StandardCharsets.UTF_8);
    }

    private static void ddl(CqlSession session, String cql) {
        session.execute(SimpleStatement.newInstance(cql).setTimeout(DDL_TIMEOUT));
    }
}
